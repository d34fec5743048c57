"""The JMH recipe: ``org.openjdk.jmh:jmh-samples`` (with jmh-core and its dependencies)
fetched once with Maven into ``~/.cache/jvmlab/jmh-samples/<version>/lib``.

jmh-samples is JMH's own tutorial suite, published on Maven Central with its generated
benchmark list, so it runs with ``org.openjdk.jmh.Main`` and no build of ours: the recipe
only resolves the jars. The pom is written here, Maven runs as an argv list, no shell.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.paths import cache_root

VERSION = "1.37"
FETCH_TIMEOUT_S = 600.0
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies"
POM = f"""<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>jvmlab</groupId>
  <artifactId>jvmlab-jmh-samples</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.openjdk.jmh</groupId>
      <artifactId>jmh-samples</artifactId>
      <version>{VERSION}</version>
    </dependency>
  </dependencies>
</project>
"""


class RecipeUnavailable(UserError):
    """The jars cannot be fetched here (no Maven, no network); the message says what to do."""


def samples_jar(lib: Path) -> Path:
    return lib / f"jmh-samples-{VERSION}.jar"


def fetch(java_home: Path | None = None, root: Path | None = None) -> Path:
    """The folder holding jmh-samples and its dependencies; fetched with Maven on first use."""
    folder = (root or cache_root() / "jmh-samples") / VERSION
    lib = folder / "lib"
    if samples_jar(lib).is_file() and (lib / f"jmh-core-{VERSION}.jar").is_file():
        return lib
    mvn = shutil.which("mvn")
    if mvn is None:
        raise RecipeUnavailable("the JMH recipe needs Maven (`mvn`) to fetch jmh-samples once: "
                                "apt-get install maven")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pom.xml").write_text(POM, encoding="utf-8")
    env = {**os.environ, **({"JAVA_HOME": str(java_home)} if java_home else {})}
    try:
        done = subprocess.run([mvn, "-q", "-B", DEPENDENCY_PLUGIN, f"-DoutputDirectory={lib}"], cwd=folder,
                              env=env, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise RecipeUnavailable(f"fetching jmh-samples took over {FETCH_TIMEOUT_S:.0f} s; retry with a "
                                f"working connection to Maven Central") from None
    if done.returncode != 0 or not samples_jar(lib).is_file():
        lines = [ln for ln in (done.stdout + done.stderr).splitlines() if "ERROR" in ln][:3]
        raise RecipeUnavailable(f"Maven could not fetch jmh-samples {VERSION} into {lib} "
                                f"({' | '.join(lines) or f'exit code {done.returncode}'}); is Maven Central reachable?")
    return lib


def workload_toml(lib: Path, benchmarks: list[str], params: dict[str, list[str]], options: list[str]) -> str:
    """A ``[workload]`` table running jmh-samples benchmarks."""
    import json

    params_toml = ", ".join(f"{k} = {json.dumps(v)}" for k, v in params.items())
    return (f"[workload]\njmh = {json.dumps(str(samples_jar(lib)))}\n"
            f"classpath = {json.dumps([str(lib / '*')])}\n"
            f"benchmarks = {json.dumps(benchmarks)}\n"
            + (f"params = {{ {params_toml} }}\n" if params else "")
            + f"args = {json.dumps(options)}\n")
