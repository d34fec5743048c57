"""`pretouch`: what -XX:+AlwaysPreTouch costs at startup, per GB of heap, and the RSS it commits."""

from __future__ import annotations

from jvmlab.jdk.model import JdkInfo
from jvmlab.scenarios.jdks import GC_FLAGS, exclude_rules, factor_table, gc_excludes, jvm_name, jvms_table, run_table
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import diff_ci, fmt_interval, index_cells

THP_ON = "-XX:+UseTransparentHugePages"


def runs(jdks: list[JdkInfo], quick: bool) -> list[ScenarioRun]:
    jdks = jdks[:1] if quick else jdks
    heaps = ["1g", "2g"] if quick else ["1g", "4g"]
    gcs = ["G1"] if quick else ["G1", "Parallel", "Serial"]
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
{run_table(3 if quick else 5, 1, "120s")}'''
    return [ScenarioRun("pretouch", "AlwaysPreTouch", text, "wall_s")]


def heap_gb(level: str) -> float:
    """"h4g" -> 4.0, "h512m" -> 0.5."""
    size = level.removeprefix("h")
    return float(size[:-1]) / (1024.0 if size.endswith("m") else 1.0)


def verdict(summary) -> str:
    cells = index_cells(summary)
    parts = []
    for key, on in sorted(cells.items()):
        levels = dict(key)
        if levels.get("pretouch") != "on":
            continue
        off = cells.get(tuple(sorted({**levels, "pretouch": "off"}.items())))
        if off is None:
            continue
        gb = heap_gb(levels["heap"])
        wall = diff_ci(on, off, "wall_s", scale=1.0 / gb)
        rss = diff_ci(on, off, "max_rss_bytes", scale=1.0 / gb / (1 << 30))
        if wall is None:
            continue
        label = f"{levels['jvm']} {levels.get('gc', '')} THP {levels.get('thp', 'off')} {levels['heap'][1:]}"
        rss_text = f", committing {fmt_interval(rss, '{:.2f}')} GiB of RSS per GB" if rss else ""
        parts.append(f"{label}: {fmt_interval(wall, '{:+.3f} s')} per GB{rss_text}")
    if not parts:
        return "AlwaysPreTouch: no on/off pair had measurements, so nothing can be said."
    return ("AlwaysPreTouch startup cost per GB of pre-touched heap (on minus off, 95% CI): "
            + "; ".join(parts) + ". Pre-touch moves page faults from the run to startup: the RSS column "
            "shows the heap committed up front.")
