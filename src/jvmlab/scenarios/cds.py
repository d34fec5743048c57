"""`cds`: startup of hello and hellostream with CDS off, the default CDS archive, a dynamic
AppCDS archive and (JDK 24+) an AOT cache; one spec per workload.

When an OpenJ9 (Semeru) JDK is among the JDKs, its own startup levels join: the shared
classes cache off (``scc-off``) and trained for the workload (``scc``, checked with printStats),
``-Xtune:virtualized`` and ``-Xquickstart``. With an Azul Prime JDK, a ReadyNow-trained level
(``readynow``) joins. Each level runs only on the VMs it exists for (the others are excluded).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from jvmlab.model.jdk import JdkInfo
from jvmlab.plan.template import AOT, CDS
from jvmlab.scenarios.jdks import exclude_rules, jvm_name, jvms_table, run_table
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import Machine, cell_n, diff_ci, index_cells, key_with, mean_ci, pair_n
from jvmlab.scenarios.table import Estimate, ScenarioVerdict, empty, withheld_notes

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary

AOT_FEATURE = 24
# Full mode: blocks are added until every startup comparison's 95% CI is within +-2% of the
# default-CDS startup (about +-1.2 ms on a 60 ms HelloWorld: AppCDS saves more than that), at
# most 60 blocks; a row still unclear then says how many invocations it would need. 10 first
# blocks: paired by block, 6 comparisons (two JDKs) reach p < 0.05 / 6 from 8 blocks on, 10
# with room (6 x 0.002); quick mode's 6 unpaired blocks reach it too (6 x 0.0024).
FULL_FIRST_BLOCKS = 10
FULL_UNTIL = 0.02
FULL_MAX_BLOCKS = 60
QUICK_BLOCKS = 6
# A level is its JVM flags, or a typed archive preparation (``{"prepare": kind}``, made by a
# training run before the measured runs; see docs/scenarios.md).
Level = list[str] | dict[str, str]
LEVELS: dict[str, Level] = {"off": ["-Xshare:off"], "default": [], "appcds": {"prepare": CDS},
                            "aot": {"prepare": AOT}}
OPENJ9_LEVELS: dict[str, Level] = {"scc-off": ["-Xshareclasses:none"], "scc": {"prepare": "shared-classes"},
                                   "virtualized": ["-Xtune:virtualized"], "quickstart": ["-Xquickstart"]}
PRIME_LEVELS: dict[str, Level] = {"readynow": {"prepare": "readynow"}}
HOTSPOT_ONLY = ("off", "appcds", "aot")  # -Xshare and the HotSpot archives
COMPARED = ("off", "appcds", "aot", *OPENJ9_LEVELS, *PRIME_LEVELS)


def factor_table(name: str, levels: dict[str, Level]) -> str:
    """``[factors.NAME]``: a flag level as a TOML list, a prepared level as an inline table."""
    def value(level: Level) -> str:
        if isinstance(level, dict):
            return "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in level.items()) + " }"
        return json.dumps(level)
    rows = "\n".join(f"{level} = {value(flags)}" for level, flags in levels.items())
    return f"[factors.{name}]\n{rows}\n"


def levels_for(jdks: list[JdkInfo]) -> tuple[dict[str, Level], list[dict[str, str]]]:
    """The cds levels these JDKs call for, and the (jvm, level) cells to exclude."""
    levels = dict(LEVELS)
    if not any(j.feature >= AOT_FEATURE and j.vm_kind == "HotSpot" for j in jdks):
        levels.pop("aot")
    vendor = {"OpenJ9": OPENJ9_LEVELS, "Zing": PRIME_LEVELS}
    for kind, extra in vendor.items():
        if any(j.vm_kind == kind for j in jdks):
            levels.update(extra)
    excludes = []
    for j in jdks:
        own = set(vendor.get(j.vm_kind, {}))
        for level in levels:
            hotspot_level = level in HOTSPOT_ONLY
            vendor_level = any(level in extra for extra in vendor.values())
            if (j.vm_kind != "HotSpot" and hotspot_level) or (vendor_level and level not in own) or (
                    level == "aot" and j.feature < AOT_FEATURE):
                excludes.append({"jvm": jvm_name(j), "cds": level})
    return levels, excludes


def runs(jdks: list[JdkInfo], quick: bool, workloads: tuple[str, ...] = ("hello", "hellostream"),
         invocations: int | None = None, max_blocks: int = FULL_MAX_BLOCKS) -> list[ScenarioRun]:
    """One spec per workload; full mode adds blocks (--until 2%) up to ``max_blocks``."""
    out = []
    levels, excludes = levels_for(jdks)
    for workload in workloads:
        text = f'''name = "demo cds: {workload} x class data sharing"
description = "What do CDS, AppCDS and the AOT cache save at startup of {workload}?"

[workload]
builtin = "{workload}"

[jvms]
{jvms_table(jdks)}

{factor_table("cds", levels)}
[matrix]
baseline = {{ jvm = "{jvm_name(jdks[0])}", cds = "default" }}
{exclude_rules(excludes)}
{run_table(invocations or (QUICK_BLOCKS if quick else FULL_FIRST_BLOCKS), 1, "60s")}'''
        sized = not quick and invocations is None
        out.append(ScenarioRun("cds", workload, text, "wall_s", "startup wall time",
                               until_rel=FULL_UNTIL if sized else None, max_blocks=max_blocks if sized else None))
    return out


def verdict(summary: Summary) -> ScenarioVerdict:
    cells, machine = index_cells(summary), Machine.of(summary)
    workload = summary.experiment.name.split("cds: ", 1)[-1].split(" x", 1)[0]
    title = f"Startup of {workload} (wall time, change against the default CDS archive, 95% CI, negative is faster)"
    rows, best = [], []
    for key, default in sorted(cells.items()):
        base = mean_ci(default, "wall_s")
        if dict(key).get("cds") != "default" or base is None:
            continue
        jvm = dict(key)["jvm"]
        base_ms = Estimate((base[0] * 1000, base[1] * 1000, base[2] * 1000), "{:.0f} ms",
                           cell_n(default, "wall_s"))
        rows.append((jvm, "default", base_ms.text(), "", ""))
        for level in COMPARED:
            other = cells.get(key_with(key, cds=level))
            if other is None:
                continue
            delta = Estimate.of(diff_ci(machine, other, default, "wall_s", scale=1000.0), "{:+.0f} ms",
                                pair_n(other, default, "wall_s"))
            if delta.value is not None:
                rows.append((jvm, level, "", delta.text(), delta.answer()))
                best.append((delta, level, jvm))
    if not rows:
        return empty(title, f"cds ({workload}): no cell had measurements, so nothing can be said.")
    header = ("JDK", "sharing", "startup", "vs default", "answer")
    return ScenarioVerdict(title, header, tuple(rows), _conclusion(workload, best),
                           withheld_notes([d for d, _, _ in best]))


def _conclusion(workload: str, deltas: list[tuple[Estimate, str, str]]) -> str:
    """The largest clear saving, and what sharing off costs."""
    saving = [(d.value[0], level, jvm) for d, level, jvm in deltas
              if d.clear and d.value is not None and d.value[0] < 0]
    if not saving:
        return f"No sharing level clearly sped up the startup of {workload}."
    ms, level, jvm = min(saving)
    return f"The best clear saving on {workload}: {level} on {jvm}, {ms:+.0f} ms against the default CDS archive."
