"""Built-in scenarios: specs made for the JDKs found on this machine."""

from __future__ import annotations

import json

from jvmlab.errors import UserError, did_you_mean
from jvmlab.jdk.model import JdkInfo

SCENARIOS = {
    "default": "AlwaysPreTouch off/on at a 1 GB heap on up to two JDKs (about a minute)",
}


def scenario_names() -> dict[str, str]:
    return dict(SCENARIOS)


def demo_jdks(limit: int = 2) -> list[JdkInfo]:
    """The default JDK first, then the newest JDKs of other feature versions."""
    from jvmlab.jdk import discover, select

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


def jvms_table(jdks: list[JdkInfo]) -> str:
    return "\n".join(f"jdk{j.feature} = {json.dumps(str(j.home))}" for j in jdks)


def demo_spec(name: str, quick: bool = False) -> str:
    """The TOML text of a scenario for this machine."""
    if name not in SCENARIOS:
        raise UserError(f"unknown scenario {name!r}{did_you_mean(name, SCENARIOS)}; "
                        f"`jvmlab demo --list` lists them")
    jdks = demo_jdks()
    return f'''name = "demo: AlwaysPreTouch at a 1 GB heap"
description = "What does -XX:+AlwaysPreTouch cost at startup with a 1 GB heap?"

[workload]
builtin = "pretouch"

[jvms]
{jvms_table(jdks)}

[factors.pretouch]
off = "-Xms1g -Xmx1g"
on = "-Xms1g -Xmx1g -XX:+AlwaysPreTouch"

[matrix]
baseline = {{ jvm = "jdk{jdks[0].feature}", pretouch = "off" }}

[run]
invocations = {3 if quick else 5}
warmup = 1
order = "random-blocks"
seed = 7
timeout = "60s"
'''
