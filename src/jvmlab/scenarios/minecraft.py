"""`minecraft`: a real Minestom server generating chunks in-process, compared across collectors.

The server is built with Maven on first use into ~/.cache/jvmlab/minecraft/<hash>/ from the
pom.xml and Java file shipped here (Minestom 2026.08.28-26.2 from Maven Central, JDK 25+).
It never starts its network listener; each run is bounded by ``--seconds``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path

from jvmlab.jdk import discover
from jvmlab.model.jdk import JdkInfo
from jvmlab.paths import cache_root
from jvmlab.scenarios import gc
from jvmlab.scenarios.model import ScenarioRun, ScenarioSkipped

MIN_FEATURE = 25
BUILD_TIMEOUT_S = 900.0
MAIN = "JvmlabMinestom"
PROGRESS = r"progress (?P<units>\d+) chunks"
SOURCES = ("pom.xml", f"{MAIN}.java")


def _source_text(name: str) -> bytes:
    return resources.files("jvmlab.scenarios").joinpath(f"minecraft/{name}").read_bytes()


def pick_jdk(jdks: list[JdkInfo]) -> JdkInfo:
    usable = [j for j in jdks if j.feature >= MIN_FEATURE and j.has_javac]
    if not usable:
        found = ", ".join(f"JDK {j.feature}" for j in jdks) or "none"
        raise ScenarioSkipped(f"needs a JDK {MIN_FEATURE}+ with javac (found: {found}); install one, "
                              f"e.g. Temurin 25, and set JVMLAB_JDK_PATH")
    return max(usable, key=lambda j: j.feature)


def build(jdk: JdkInfo, root: Path | None = None) -> Path:
    """Build once per source hash; returns the build folder holding target/*.jar and target/lib."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise ScenarioSkipped("needs Maven (`mvn`) to fetch Minestom: apt-get install maven")
    digest = hashlib.sha256(b"".join(_source_text(n) for n in SOURCES)).hexdigest()[:12]
    folder = (root or cache_root() / "minecraft") / digest
    jar = folder / "target" / "jvmlab-minestom-1.jar"
    if jar.is_file() and (folder / "target" / "lib").is_dir():
        return folder
    (folder / "src").mkdir(parents=True, exist_ok=True)
    (folder / "pom.xml").write_bytes(_source_text("pom.xml"))
    (folder / "src" / f"{MAIN}.java").write_bytes(_source_text(f"{MAIN}.java"))
    env = {**os.environ, "JAVA_HOME": str(jdk.home)}
    try:
        done = subprocess.run([mvn, "-q", "-B", "package"], cwd=folder, env=env, capture_output=True,
                              text=True, timeout=BUILD_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise ScenarioSkipped(f"the Maven build took over {BUILD_TIMEOUT_S:.0f} s; retry with a working "
                              f"connection to Maven Central") from None
    if done.returncode != 0 or not jar.is_file():
        lines = [ln for ln in (done.stdout + done.stderr).splitlines() if "ERROR" in ln][:3]
        raise ScenarioSkipped(f"the Maven build in {folder} failed ({' | '.join(lines) or done.returncode}); "
                              f"is Maven Central reachable?")
    return folder


def runs(quick: bool, jdks: list[JdkInfo] | None = None) -> list[ScenarioRun]:
    jdk = pick_jdk(jdks if jdks is not None else discover())
    folder = build(jdk)
    seconds = 10 if quick else 20
    classpath = [str(folder / "target" / "jvmlab-minestom-1.jar"), str(folder / "target" / "lib" / "*")]
    block = (f'main = "{MAIN}"\nclasspath = {json.dumps(classpath)}\n'
             f'args = ["--seconds", "{seconds}", "--keep", "400"]\nprogress = {json.dumps(PROGRESS)}')
    blocks = gc.SHORT_INVOCATIONS if quick else gc.FULL_INVOCATIONS
    return gc.runs([jdk], quick, seconds=seconds, workload=block, invocations=blocks, scenario="minecraft", heap="1g")
