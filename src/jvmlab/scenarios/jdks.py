"""The JDKs a scenario runs on, and TOML snippets shared by the scenario specs."""

from __future__ import annotations

import json

from jvmlab.errors import UserError
from jvmlab.jdk import discover, select
from jvmlab.model.jdk import JdkInfo

GC_FLAGS = {"G1": "-XX:+UseG1GC", "Parallel": "-XX:+UseParallelGC", "Serial": "-XX:+UseSerialGC",
            "ZGC": "-XX:+UseZGC", "Shenandoah": "-XX:+UseShenandoahGC"}


def demo_jdks(limit: int = 2) -> list[JdkInfo]:
    """The default JDK first, then the newest JDKs of other feature versions."""
    found = discover()
    if not found:
        raise UserError("no JDK found: install one (e.g. apt-get install openjdk-17-jdk-headless), "
                        "set JAVA_HOME, or add its folder to JVMLAB_JDK_PATH")
    try:
        first = select("default", found)
    except UserError:
        first = found[0]
    chosen = [first]
    for jdk in sorted(found, key=lambda j: j.feature, reverse=True):
        if len(chosen) < limit and jdk.feature not in {c.feature for c in chosen}:
            chosen.append(jdk)
    return chosen


def jvm_name(jdk: JdkInfo) -> str:
    return f"jdk{jdk.feature}"


def jvms_table(jdks: list[JdkInfo]) -> str:
    return "\n".join(f"{jvm_name(j)} = {json.dumps(str(j.home))}" for j in jdks)


def factor_table(name: str, levels: dict[str, list[str]]) -> str:
    """``[factors.NAME]`` with each level's flags as a TOML list (pseudo-flags kept as they are)."""
    rows = "\n".join(f"{level} = {json.dumps(flags)}" for level, flags in levels.items())
    return f"[factors.{name}]\n{rows}\n"


def exclude_rules(rules: list[dict[str, str]]) -> str:
    """``[[matrix.exclude]]`` tables."""
    return "".join("[[matrix.exclude]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in rule.items())
                   for rule in rules)


def gc_excludes(jdks: list[JdkInfo], gcs: list[str]) -> list[dict[str, str]]:
    """Cells of collectors a JDK cannot start (from JdkInfo.gcs) are left out."""
    return [{"jvm": jvm_name(j), "gc": gc} for j in jdks for gc in gcs if j.gcs and gc not in j.gcs]


def run_table(invocations: int, warmup: int, timeout: str, seed: int = 7) -> str:
    return (f'[run]\ninvocations = {invocations}\nwarmup = {warmup}\norder = "random-blocks"\n'
            f'seed = {seed}\ntimeout = "{timeout}"\n')
