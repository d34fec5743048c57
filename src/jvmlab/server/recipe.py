"""The real-server recipes from Maven Central: Jetty 12.1.14 (``builtin = "jetty"``) and
embedded Tomcat 11.0.27 (``builtin = "tomcat"``), each built once with Maven into
~/.cache/jvmlab/servers/<name>/<hash>/ like the Minestom recipe, from the pom.xml and Java
file shipped in ``recipes/<name>``. Same endpoints as the built-in server."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.model.jdk import JdkInfo
from jvmlab.paths import cache_root

RECIPES = {"jetty": "JvmlabJetty", "tomcat": "JvmlabTomcat"}  # builtin name -> main class
VERSIONS = {"jetty": "Jetty 12.1", "tomcat": "Tomcat 11.0"}
MIN_FEATURE = 17
BUILD_TIMEOUT_S = 900.0
DEFAULT_ARGS = ("--port", "{port}")


def _source(name: str, file: str) -> bytes:
    return resources.files("jvmlab.server").joinpath(f"recipes/{name}/{file}").read_bytes()


def build_recipe(name: str, jdk: JdkInfo, root: Path | None = None) -> tuple[str, ...]:
    """The classpath (jar, lib/*) of recipe ``name``, built on first use with ``jdk``'s javac.

    The cache folder is named by a hash of the shipped sources, so a changed pom or Java file
    builds anew and an unchanged one never builds twice."""
    if name not in RECIPES:
        raise UserError(f"no server recipe {name!r}; known: {', '.join(sorted(RECIPES))}")
    if jdk.feature < MIN_FEATURE:
        raise UserError(f"builtin = \"{name}\" needs Java {MIN_FEATURE}+ ({VERSIONS[name]}); "
                        f"{jdk.home} is Java {jdk.feature}")
    java_file = f"{RECIPES[name]}.java"
    sources = {"pom.xml": _source(name, "pom.xml"), java_file: _source(name, java_file)}
    digest = hashlib.sha256(b"\0".join(sources[n] for n in sorted(sources))).hexdigest()[:12]
    folder = (root or cache_root() / "servers") / name / digest
    jar, lib = folder / "target" / f"jvmlab-{name}-1.jar", folder / "target" / "lib"
    if not (jar.is_file() and lib.is_dir()):
        _maven(name, folder, sources, jdk, jar)
    return str(jar), str(lib / "*")


def _maven(name: str, folder: Path, sources: dict[str, bytes], jdk: JdkInfo, jar: Path) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise UserError(f"builtin = \"{name}\" is built with Maven on first use: install it (apt-get install maven)")
    if not jdk.has_javac:
        raise UserError(f"builtin = \"{name}\" is compiled on first use: {jdk.home} has no javac; use a full JDK")
    (folder / "src").mkdir(parents=True, exist_ok=True)
    for file, data in sources.items():
        (folder / file if file == "pom.xml" else folder / "src" / file).write_bytes(data)
    try:
        done = subprocess.run([mvn, "-q", "-B", "package"], cwd=folder, env={**os.environ, "JAVA_HOME": str(jdk.home)},
                              capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise UserError(f"the {VERSIONS[name]} build took over {BUILD_TIMEOUT_S:.0f} s; "
                        f"is Maven Central reachable?") from None
    if done.returncode != 0 or not jar.is_file():
        lines = [ln for ln in (done.stdout + done.stderr).splitlines() if "ERROR" in ln][:2]
        raise UserError(f"the {VERSIONS[name]} build in {folder} failed: {' | '.join(lines) or done.returncode}")
