"""`pretouch`: what -XX:+AlwaysPreTouch costs at startup, per GB of heap, and the RSS it commits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jvmlab.model.jdk import JdkInfo
from jvmlab.scenarios.jdks import (
    GC_FLAGS,
    exclude_rules,
    factor_table,
    gc_excludes,
    jvm_name,
    jvms_table,
    run_table,
)
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import Machine, diff_ci, index_cells, key_with, pair_n
from jvmlab.scenarios.table import Estimate, ScenarioVerdict, empty, span, withheld_notes

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary

THP_ON = "-XX:+UseTransparentHugePages"
# The designs are sized so the report's own Holm-corrected comparisons against the one baseline
# can be significant (jvmlab.plan.power), not only the on/off pairs the verdict reads.
# Full: every JDK x pre-touch x THP x G1/Parallel/Serial at one 1 GB heap (the cost is given per
# GB, and one size answers it: 4 GB only made each pre-touched start 4 times longer). 24 cells
# on two JDKs are 23 comparisons: at 7 blocks the smallest p-value is about 0.0008, 23 x 0.0008
# < 0.05 (6 blocks: 23 x 0.0024 > 0.05, the warning `demo all` printed for its 47).
FULL_HEAPS = ("1g",)
FULL_GCS = ("G1", "Parallel", "Serial")
FULL_INVOCATIONS = 7
# Quick: one JDK, G1, 1 and 2 GB (8 cells, 7 comparisons): 6 blocks reach 7 x 0.0024 < 0.05.
QUICK_HEAPS = ("1g", "2g")
QUICK_GCS = ("G1",)
QUICK_INVOCATIONS = 6


def runs(jdks: list[JdkInfo], quick: bool) -> list[ScenarioRun]:
    jdks = jdks[:1] if quick else jdks
    heaps = list(QUICK_HEAPS if quick else FULL_HEAPS)
    gcs = list(QUICK_GCS if quick else FULL_GCS)
    heap = {f"h{h}": [f"-Xms{h}", f"-Xmx{h}"] for h in heaps}
    text = f'''name = "demo pretouch: AlwaysPreTouch x heap x THP x GC"
description = "What does -XX:+AlwaysPreTouch cost per GB of heap, with and without THP, per collector?"

[workload]
builtin = "pretouch"

[jvms]
{jvms_table(jdks)}

{factor_table("heap", heap)}
{factor_table("pretouch", {"off": [], "on": ["-XX:+AlwaysPreTouch"]})}
{factor_table("thp", {"off": [], "on": [THP_ON]})}
{factor_table("gc", {gc: [GC_FLAGS[gc]] for gc in gcs})}
[matrix]
baseline = {{ jvm = "{jvm_name(jdks[0])}", heap = "h{heaps[0]}", pretouch = "off", thp = "off", gc = "G1" }}
{exclude_rules(gc_excludes(jdks, gcs))}
{run_table(QUICK_INVOCATIONS if quick else FULL_INVOCATIONS, 1, "120s")}'''
    return [ScenarioRun("pretouch", "AlwaysPreTouch", text, "wall_s", "startup wall time")]


def heap_gb(level: str) -> float:
    """"h4g" -> 4.0, "h512m" -> 0.5."""
    size = level.removeprefix("h")
    return float(size[:-1]) / (1024.0 if size.endswith("m") else 1.0)


def verdict(summary: Summary) -> ScenarioVerdict:
    cells, machine = index_cells(summary), Machine.of(summary)
    title = "AlwaysPreTouch: startup cost and RSS committed per GB of heap (on minus off, 95% CI)"
    rows, costs, rsss = [], [], []
    for key, on in sorted(cells.items(), key=lambda kv: _order(dict(kv[0]))):
        levels = dict(key)
        if levels.get("pretouch") != "on":
            continue
        off = cells.get(key_with(key, pretouch="off"))
        if off is None:
            continue
        gb = heap_gb(levels["heap"])
        wall = Estimate.of(diff_ci(machine, on, off, "wall_s", scale=1.0 / gb), "{:+.3f}", pair_n(on, off, "wall_s"))
        rss = Estimate.of(diff_ci(machine, on, off, "max_rss_bytes", scale=1.0 / gb / (1 << 30)), "{:.2f}",
                          pair_n(on, off, "max_rss_bytes"))
        if wall.value is None:
            continue
        costs.append(wall)
        rsss.append(rss)
        rows.append((levels["jvm"], levels.get("gc", ""), levels.get("thp", "off"), levels["heap"][1:],
                     wall.text(), rss.text(), wall.answer()))
    if not rows:
        return empty(title, "AlwaysPreTouch: no on/off pair had measurements, so nothing can be said.")
    header = ("JDK", "GC", "THP", "heap", "s per GB", "RSS GiB per GB", "answer")
    clear = [e for e in costs if e.clear]
    conclusion = (f"Pre-touching costs {span(clear, '{:.2f}')} s per GB of heap at startup "
                  f"({len(clear)} of {len(costs)} settings clear), moving page faults from the run to "
                  "startup and committing the heap up front." if clear else
                  "No setting showed a clear pre-touch cost at startup; "
                  + ("a busy machine or a drift could explain the wall-time difference (see the note)."
                     if any(e.withheld for e in costs)
                     else "see the answer column for the invocations that would resolve it.") + _rss_clause(rsss))
    return ScenarioVerdict(title, header, tuple(rows), conclusion, withheld_notes(costs))


def _rss_clause(rss: list[Estimate]) -> str:
    """The RSS pre-touching commits, when the startup cost was not called (a busy machine moves
    wall time; peak RSS is judged by its own interval and stands)."""
    clear = [e for e in rss if e.clear]
    return (f" It commits {span(clear, '{:.2f}')} GiB of RSS per GB of heap ({len(clear)} of {len(rss)} "
            "settings clear)." if clear else "")


def _order(levels: dict[str, str]) -> tuple[str, str, str, float]:
    """Rows by JDK, collector, THP, then heap size in GB (not as text: 4g after 1g, 512m first)."""
    return (levels.get("jvm", ""), levels.get("gc", ""), levels.get("thp", ""), heap_gb(levels.get("heap", "h0g")))
