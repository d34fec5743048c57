"""The real-server recipe: Jetty 12.1.14 from Maven Central (``builtin = "jetty"``), built once
with Maven into ~/.cache/jvmlab/servers/jetty/<hash>/ like the Minestom recipe, from the
pom.xml and Java file shipped in ``recipes/jetty``. Same endpoints as the built-in server."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.model.jdk import JdkInfo

RECIPES = {"jetty": "JvmlabJetty"}
MIN_FEATURE = 17
BUILD_TIMEOUT_S = 900.0
DEFAULT_ARGS = ("--port", "{port}")
_JAR = "jvmlab-jetty-1.jar"


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "jvmlab" / "servers"


def _source(name: str) -> bytes:
    return resources.files("jvmlab.server").joinpath(f"recipes/jetty/{name}").read_bytes()


def build_jetty(jdk: JdkInfo, root: Path | None = None) -> tuple[str, ...]:
    """The classpath (jar, lib/*) of the Jetty server, built on first use with ``jdk``'s javac."""
    if jdk.feature < MIN_FEATURE:
        raise UserError(f"builtin = \"jetty\" needs Java {MIN_FEATURE}+ (Jetty 12.1); {jdk.home} is Java {jdk.feature}")
    sources = {"pom.xml": _source("pom.xml"), "JvmlabJetty.java": _source("JvmlabJetty.java")}
    digest = hashlib.sha256(b"\0".join(sources[n] for n in sorted(sources))).hexdigest()[:12]
    folder = (root or cache_root()) / "jetty" / digest
    jar, lib = folder / "target" / _JAR, folder / "target" / "lib"
    if not (jar.is_file() and lib.is_dir()):
        _maven(folder, sources, jdk)
    return str(jar), str(lib / "*")


def _maven(folder: Path, sources: dict[str, bytes], jdk: JdkInfo) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise UserError("builtin = \"jetty\" is built with Maven on first use: install it (apt-get install maven)")
    if not jdk.has_javac:
        raise UserError(f"builtin = \"jetty\" is compiled on first use: {jdk.home} has no javac; use a full JDK")
    (folder / "src").mkdir(parents=True, exist_ok=True)
    (folder / "pom.xml").write_bytes(sources["pom.xml"])
    (folder / "src" / "JvmlabJetty.java").write_bytes(sources["JvmlabJetty.java"])
    try:
        done = subprocess.run([mvn, "-q", "-B", "package"], cwd=folder, env={**os.environ, "JAVA_HOME": str(jdk.home)},
                              capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise UserError(f"the Jetty build took over {BUILD_TIMEOUT_S:.0f} s; is Maven Central reachable?") from None
    if done.returncode != 0 or not (folder / "target" / _JAR).is_file():
        lines = [ln for ln in (done.stdout + done.stderr).splitlines() if "ERROR" in ln][:2]
        raise UserError(f"the Jetty build in {folder} failed: {' | '.join(lines) or done.returncode}")
