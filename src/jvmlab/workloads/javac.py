"""Find a javac that can build classes for a given runtime, and run it.

The built-in workloads ship as Java sources. Any runtime must be able to run them, including
a JRE or a jlink image without javac, so the classes may come from another JDK's javac with
``--release R`` where R is at most the runtime's feature version (8 whenever possible, so one
build serves every runtime).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.model.jdk import JdkInfo

LOWEST_RELEASE = 8  # the sources use lambdas and streams
JAVAC_TIMEOUT_S = 300.0
_VERSION_TIMEOUT_S = 60.0
# Options that would make javac print noise or fail; javac's messages are parsed in English.
_DROPPED_ENV = ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS")


@dataclass(frozen=True)
class Compiler:
    """One usable javac. ``origin`` says where it came from, for messages and provenance."""

    javac: Path
    feature: int
    origin: str  # "runtime", "compilers", "PATH"


class ReleaseUnsupported(Exception):
    """This javac cannot target the requested release (too old or too new for it)."""


def find_compilers(runtime: JdkInfo, compilers: Sequence[JdkInfo] = ()) -> list[Compiler]:
    """Usable javacs in order of preference: the runtime's own, the given JDKs', PATH's."""
    found: list[Compiler] = []
    seen: set[Path] = set()

    def add(javac: Path | None, feature: int | None, origin: str) -> None:
        if javac is None or feature is None or not javac.is_file():
            return
        key = javac.resolve()
        if key not in seen:
            seen.add(key)
            found.append(Compiler(javac, feature, origin))

    add(runtime.javac, runtime.feature, "runtime")
    for jdk in compilers:
        add(jdk.javac, jdk.feature, "compilers")
    on_path = shutil.which("javac")
    if on_path is not None and Path(on_path).resolve() not in seen:
        add(Path(on_path), javac_feature(Path(on_path)), "PATH")
    return found


def javac_feature(javac: Path) -> int | None:
    """Feature version of a javac from ``javac -version`` ("javac 17.0.2", "javac 1.8.0_392")."""
    try:
        done = subprocess.run([str(javac), "-version"], capture_output=True, text=True,
                              timeout=_VERSION_TIMEOUT_S, env=javac_env(), check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"javac (\d+)(?:\.(\d+))?", done.stdout + done.stderr)
    if match is None:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def candidate_releases(compiler: Compiler, runtime_feature: int) -> list[int]:
    """Releases to try, lowest first: from 8 up to what both javac and runtime support."""
    return list(range(LOWEST_RELEASE, min(compiler.feature, runtime_feature) + 1))


def release_options(compiler: Compiler, release: int) -> list[str]:
    """``--release R`` (javac 9+) or ``-source/-target`` for javac 8, which lacks --release."""
    if compiler.feature >= 9:
        return ["--release", str(release)]
    return ["-source", f"1.{release}", "-target", f"1.{release}"]


def javac_argv(compiler: Compiler, release: int, sources: Sequence[Path], out_dir: Path) -> list[str]:
    """The full javac command line (recorded next to the classes for provenance)."""
    return [str(compiler.javac), "-encoding", "UTF-8", "-nowarn", "-Xlint:-options",
            *release_options(compiler, release), "-d", str(out_dir), *map(str, sources)]


def compile_sources(compiler: Compiler, release: int, sources: Sequence[Path], out_dir: Path,
                    cwd: Path) -> list[str]:
    """Compile ``sources`` into ``out_dir`` (both may be relative to ``cwd``); return the argv.

    Raises ReleaseUnsupported when javac rejects the release, UserError on any other failure.
    """
    argv = javac_argv(compiler, release, sources, out_dir)
    try:
        done = run_javac(argv, cwd)
    except subprocess.TimeoutExpired as exc:
        raise UserError(f"{compiler.javac} took over {JAVAC_TIMEOUT_S:.0f} s to compile the built-in "
                        f"workloads; check the machine is not overloaded and retry") from exc
    except OSError as exc:
        raise UserError(f"cannot run {compiler.javac}: {exc}; check that JDK installation") from exc
    if done.returncode == 0:
        return argv
    output = (done.stderr or "") + (done.stdout or "")
    if re.search(r"release version \S+ not supported|invalid (source|target) release", output):
        raise ReleaseUnsupported(output.strip())
    first = next((line for line in output.splitlines() if line.strip()), "no output")
    raise UserError(f"{compiler.javac} failed to compile the built-in workloads "
                    f"(exit {done.returncode}): {first.strip()}; check that JDK works")


def run_javac(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run javac once. The single place javac starts: tests wrap it to count compilations."""
    return subprocess.run(argv, capture_output=True, text=True, timeout=JAVAC_TIMEOUT_S,
                          env=javac_env(), cwd=cwd, check=False)


def javac_env() -> dict[str, str]:
    """The environment for javac: ours minus JVM option variables, messages in English."""
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
    env["LC_ALL"] = "C"
    return env
