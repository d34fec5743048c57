"""`ramdisk`: does a JDK on tmpfs or a cold page cache change startup and a short JIT-bound run?"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jvmlab.model.jdk import JdkInfo
from jvmlab.scenarios.jdks import jvm_name, jvms_table, run_table
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import Machine, diff_ci, index_cells, key_with, pair_n
from jvmlab.scenarios.table import Estimate, ScenarioVerdict, empty, withheld_notes

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary

# Full mode: add blocks until every comparison's 95% CI is within +-2% (a cold page cache costs
# tens of ms on a JVM start, tmpfs a few), at most 40 blocks.
FULL_UNTIL = 0.02
FULL_MAX_BLOCKS = 40
WORKLOADS = {"hello": "", "integral": 'args = ["--steps", "20000000"]\n'}


def runs(jdks: list[JdkInfo], quick: bool, max_blocks: int = FULL_MAX_BLOCKS) -> list[ScenarioRun]:
    """One spec per workload on the first JDK; full mode adds blocks (--until 2%) up to ``max_blocks``."""
    jdks = jdks[:1]
    out = []
    for workload, args in WORKLOADS.items():
        text = f'''name = "demo ramdisk: {workload} x JDK location x page cache"
description = "Does a JDK on tmpfs, or a cold page cache, change the time of {workload}?"

[workload]
builtin = "{workload}"
{args}
[jvms]
{jvms_table(jdks)}

[environment]
jdk_location = ["disk", "tmpfs"]
page_cache = ["warm", "cold"]

[matrix]
baseline = {{ jvm = "{jvm_name(jdks[0])}", jdk_location = "disk", page_cache = "warm" }}

{run_table(5 if quick else 10, 1, "60s")}'''
        out.append(ScenarioRun("ramdisk", workload, text, "wall_s", "wall time",
                               until_rel=None if quick else FULL_UNTIL, max_blocks=None if quick else max_blocks))
    return out


def verdict(summary: Summary) -> ScenarioVerdict:
    cells, machine = index_cells(summary), Machine.of(summary)
    workload = summary.experiment.name.split("ramdisk: ", 1)[-1].split(" x", 1)[0]
    title = f"{workload} wall time: change per comparison (95% CI, negative is faster)"
    rows, found = [], []
    for key, _cell in sorted(cells.items()):
        levels = dict(key)
        if levels.get("jdk_location") != "disk" or levels.get("page_cache") != "warm":
            continue
        pairs = (("tmpfs vs disk (warm)", key_with(key, jdk_location="tmpfs"), key),
                 ("cold vs warm (disk)", key_with(key, page_cache="cold"), key),
                 ("cold vs warm (tmpfs)", key_with(key, jdk_location="tmpfs", page_cache="cold"),
                  key_with(key, jdk_location="tmpfs")))
        for label, a, b in pairs:
            if a in cells and b in cells:
                delta = Estimate.of(diff_ci(machine, cells[a], cells[b], "wall_s", scale=1000.0), "{:+.0f} ms",
                                    pair_n(cells[a], cells[b], "wall_s"))
                if delta.value is not None:
                    rows.append((levels["jvm"], label, delta.text(), delta.answer()))
                    found.append((label, delta))
    if not rows:
        return empty(title, f"ramdisk ({workload}): no pair had measurements, so nothing can be said.")
    clear = [f"{label} {d.value[0]:+.0f} ms" for label, d in found if d.clear and d.value]
    conclusion = (f"Clear on {workload}: " + ", ".join(clear) + "." if clear else
                  f"Neither tmpfs nor a cold page cache clearly changed the time of {workload}.")
    notes = (("A cold page cache on tmpfs is not cold: its files live in RAM (see the page-cache warnings).",)
             if any(h.kind == "page-cache" for h in summary.hazards) else ()) + withheld_notes([d for _, d in found])
    return ScenarioVerdict(title, ("JDK", "comparison", "change", "answer"), tuple(rows), conclusion, notes)
