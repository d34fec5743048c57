# Shared set-up for scripts/demo and scripts/test (sourced, not run).
# Installs jvmlab with pinned dependencies into .venv; installs Debian packages only when
# something is missing and we are root (or have password-less sudo).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"

say() { printf 'jvmlab setup: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo "$@"
  else say "need root to run: $*"; return 1
  fi
}

apt_install() {
  command -v apt-get >/dev/null 2>&1 || { say "no apt-get here; install $* yourself"; return 1; }
  say "installing Debian packages: $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

pick_python() {
  # A pyenv shim exists for every version pyenv knows and fails noisily ("pyenv: python3.13:
  # command not found", a dozen lines) when that version is not the active one: probe each
  # candidate quietly and take the first that really runs 3.11+.
  for py in python3.13 python3.12 python3.11 python3; do
    if command -v "$py" >/dev/null 2>&1 \
        && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then
      echo "$py"; return 0
    fi
  done
  say "Python 3.11 or newer is needed"; return 1
}

ensure_venv() {  # $1: extras, e.g. "test" (optional)
  local extras="${1:-}" py stamp want
  py="$(pick_python)"
  if [ ! -x "$VENV/bin/python" ]; then
    if ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
      apt_install python3-venv
    fi
    say "creating $VENV"
    "$py" -m venv "$VENV"
  fi
  want="$(cat "$ROOT/pyproject.toml" "$ROOT/requirements/lock.txt" "$ROOT/requirements/test-nodeps.txt" | sha256sum | cut -c1-16)-$extras"
  stamp="$VENV/.jvmlab-installed"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    say "installing jvmlab and its pinned dependencies${extras:+ (with $extras extras)}"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -c "$ROOT/requirements/lock.txt" \
      -e "$ROOT${extras:+[$extras]}"
    if [ "$extras" = "test" ]; then  # test tools whose own pins clash with ours: see the file
      "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$ROOT/requirements/test-nodeps.txt"
    fi
    echo "$want" > "$stamp"
  fi
}

ensure_jdk() {
  if command -v java >/dev/null 2>&1 || [ -n "${JAVA_HOME:-}" ] || ls -d /usr/lib/jvm/*/bin/java >/dev/null 2>&1; then
    return 0
  fi
  apt_install openjdk-17-jdk-headless
}

ensure_measuring_tools() {
  # cc + libc6-dev build jvmlab's launch helper (the child's own peak RSS and clock); GNU time
  # is the reference the peak-RSS test compares with.
  local missing=()
  command -v cc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
  [ -x /usr/bin/time ] || missing+=(time)
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}" || say "without ${missing[*]}: peak RSS is not measured"
}

ensure_chromium() {
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then return 0; fi
  apt_install chromium chromium-driver || say "no Chromium: browser tests will be skipped"
}

ensure_postgres() {  # a PostgreSQL server for the store contract tests (started per test session)
  if command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then return 0; fi
  apt_install postgresql || say "no PostgreSQL: its store tests will be skipped"
}

ensure_wrk() {  # wrk, a load client of [load] (parser = "wrk"), for its end-to-end test (tests/server)
  command -v wrk >/dev/null 2>&1 && return 0
  apt_install wrk || say "no wrk: its server test will be skipped"
}

K6_VERSION=v1.8.1   # pinned; built from its Go module (go.k6.io/k6) by the Go toolchain, once
K6_GO=go1.25.12     # the Go release k6 v1.8.1's go.mod asks for, when the machine's Go is older
jvmlab_tools() { echo "${XDG_CACHE_HOME:-$HOME/.cache}/jvmlab/tools"; }
k6_path() { echo "$(jvmlab_tools)/k6-$K6_VERSION/k6"; }

ensure_k6() {  # k6 for its end-to-end test (tests/server): cached in ~/.cache/jvmlab/tools
  local bin go
  bin="$(k6_path)"
  [ -x "$bin" ] && return 0
  go="$(find_go)" || { say "no Go toolchain: k6 not built, its test will be skipped"; return 0; }
  say "building k6 $K6_VERSION with $go into $(dirname "$bin") (once; a few minutes)"
  mkdir -p "$(dirname "$bin")"
  GOBIN="$(dirname "$bin")" GOTOOLCHAIN=auto GOFLAGS=-mod=mod "$go" install "go.k6.io/k6@$K6_VERSION" >&2 \
    || say "the k6 build failed: its test will be skipped"
}

go_minor() { "$1" env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p'; }

find_go() {  # a Go that can build k6: 1.21+ fetches the newer toolchain itself (GOTOOLCHAIN=auto)
  local go minor
  for go in "$(command -v go || true)" /usr/local/go/bin/go /usr/lib/go/bin/go; do
    [ -n "$go" ] && [ -x "$go" ] || continue
    minor="$(go_minor "$go")"
    if [ -n "$minor" ] && [ "$minor" -ge 21 ]; then echo "$go"; return 0; fi
  done
  [ -x /usr/lib/go/bin/go ] || apt_install golang-go >/dev/null || return 1
  go_toolchain /usr/lib/go/bin/go  # Debian 12's Go is 1.19: fetch $K6_GO as the Go module golang.org/toolchain
}

go_toolchain() {  # $1: an older go; prints the go command of $K6_GO, unpacked once into the cache
  local old="$1" dir src tmp
  dir="$(jvmlab_tools)/$K6_GO"
  if [ ! -x "$dir/bin/go" ]; then
    tmp="$(mktemp -d)"
    printf 'module bootstrap\n\ngo 1.19\n' > "$tmp/go.mod"
    src="$(cd "$tmp" && GOFLAGS=-mod=mod "$old" mod download -json \
      "golang.org/toolchain@v0.0.1-$K6_GO.$("$old" env GOOS)-$("$old" env GOARCH)" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
    rm -rf "$tmp"
    [ -n "$src" ] && [ -f "$src/bin/go" ] || return 1
    rm -rf "$dir" && mkdir -p "$(dirname "$dir")" && cp -r "$src" "$dir" && chmod -R u+w "$dir"
    chmod +x "$dir"/bin/* "$dir"/pkg/tool/*/*  # module files are stored read-only, not executable
  fi
  echo "$dir/bin/go"
}
