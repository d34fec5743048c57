"""`server`: the built-in HTTP server under fixed-rate load from the built-in generator, across
G1 / Parallel / ZGC and two heap sizes; verdict on throughput, p99 latency, RSS and p99 pause,
each against G1 at the same heap, with 95% CIs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jvmlab.model.jdk import JdkInfo
from jvmlab.scenarios.jdks import (
    GC_FLAGS,
    factor_table,
    jvm_name,
    jvms_table,
    run_table,
)
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import Machine, cell_n, fmt_interval, mean_ci, pair_n, ratio_pct
from jvmlab.server.measure import KEPT_UP

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary

GCS = ("G1", "Parallel", "ZGC")
HEAPS = ("128m", "512m")
METRIC = "load.latency_p99_ms"
PAUSE = "gc.pause_p99_ms"
RATE = 1500  # requests/s in total: well under what 2 cores serve, so latency (not saturation) is compared
# Quick: the small heap only (where the collectors differ most: 48 MB live in 128 MB), 3 cells,
# 6 blocks (bootstrap intervals, jvmlab.analyze.smallsample; 18 runs of about 7 s: 2 minutes).
# Its headline is the collectors' own tail, the p99 GC pause: in 3-s windows the request p99 at
# this rate is mostly the 2-core machine's scheduling (quiet, 5 blocks: Parallel vs G1 +31.5%,
# 95% CI +1.9% ... +89%, not significant after Holm), while ZGC's pauses are two orders of
# magnitude shorter than G1's in every block. The request p99 is still shown and compared.
# Full: both heaps (5 comparisons), 6 blocks, on the request p99.
QUICK_HEAPS = HEAPS[:1]
QUICK_INVOCATIONS = 6
FULL_INVOCATIONS = 6
QUICK_WHY = "the collectors' own tail latency: p99 GC pause"
_COLUMNS = (("load.throughput_rps", "", "{:.0f}", "req/s"), ("load.latency_p99_ms", "p99 ", "{:.2f}", "ms"),
            ("mem.peak_rss_bytes", "RSS ", "{:.0f}", "MiB"), ("gc.pause_p99_ms", "p99 pause ", "{:.1f}", "ms"))
_COMPARED = ((METRIC, "p99 latency"), (PAUSE, "p99 pause"), ("load.throughput_rps", "throughput"),
             ("mem.peak_rss_bytes", "RSS"))


def runs(jdks: list[JdkInfo], quick: bool) -> list[ScenarioRun]:
    jdk = jdks[-1]  # the newest JDK: ZGC is generational there (JDK 21+)
    gcs = [gc for gc in GCS if not jdk.gcs or gc in jdk.gcs]
    measure_s = 3 if quick else 6
    heaps = QUICK_HEAPS if quick else HEAPS
    text = f'''name = "demo server: built-in HTTP server x collector x heap under fixed-rate load"
description = "Which collector serves {RATE} requests/s with the lowest tail latency, RSS and pauses?"

[workload]
builtin = "httpserver"
args = ["--port", "{{port}}", "--threads", "4", "--alloc-kb", "64", "--retain-mb", "48"]

[jvms]
{jvms_table([jdk])}

{factor_table("gc", {gc: [GC_FLAGS[gc]] for gc in gcs})}
{factor_table("heap", {f"h{h}": [f"-Xms{h}", f"-Xmx{h}"] for h in heaps})}
[matrix]
baseline = {{ jvm = "{jvm_name(jdk)}", gc = "G1", heap = "h{HEAPS[0]}" }}

{run_table(QUICK_INVOCATIONS if quick else FULL_INVOCATIONS, 0, "120s")}
[server]
ready_url = "http://127.0.0.1:{{port}}/health"
ready_timeout = "30s"
stop_grace = "5s"

[load]
[[load.phases]]
name = "warmup"
duration = "{2 if quick else 4}s"
args = ["--connections", "4", "--rate", "{RATE}"]

[[load.phases]]
name = "measure"
duration = "{measure_s}s"
args = ["--connections", "4", "--rate", "{RATE}"]
'''
    if quick:
        return [ScenarioRun("server", "collectors under load", text, PAUSE, QUICK_WHY)]
    return [ScenarioRun("server", "collectors under load", text, METRIC)]


def _describe(cell: Any) -> str:
    bits = []
    for metric, label, fmt, unit in _COLUMNS:
        value = mean_ci(cell, metric)
        if value is None:
            continue
        est, lo, hi = value
        scaled = (est / (1 << 20), lo / (1 << 20), hi / (1 << 20)) if metric == "mem.peak_rss_bytes" else value
        bits.append(f"{label}{fmt_interval(scaled, fmt, cell_n(cell, metric))} {unit}")
    return ", ".join(bits) or "no load metrics"


def _behind(cell: Any) -> str:
    """Said beside the cell when it could not keep up with the rate asked (server/measure.py)."""
    share = mean_ci(cell, "load.achieved_share")
    if share is None or share[0] >= KEPT_UP:
        return ""
    return (f" (FELL BEHIND: answered {share[0]:.0%} of the {RATE} req/s asked; its latency includes the "
            "queue, not comparable at this rate)")


def verdict(summary: Summary) -> str:
    """Per heap: each collector's figures, and how it differs from G1 at that heap."""
    by_heap: dict[str, dict[str, object]] = {}
    machine = Machine.of(summary)
    for cs in summary.cells:
        by_heap.setdefault(cs.cell.levels.get("heap", ""), {})[cs.cell.levels.get("gc", "")] = cs
    parts = []
    unresolved: dict[str, list[str]] = {}  # figure -> collectors whose difference from G1 is not clear
    for heap, cells in by_heap.items():
        rows = [f"{gc}: {_describe(cell)}{_behind(cell)}" for gc, cell in cells.items()]
        base = cells.get("G1")
        for gc, cell in cells.items():
            if gc == "G1" or base is None:
                continue
            for metric, what in _COMPARED:
                change = ratio_pct(machine, cell, base, metric)
                if change is not None and change.clear:
                    rows.append(f"{gc} vs G1 {what} "
                                f"{fmt_interval(change.value, '{:+.1f}%', pair_n(cell, base, metric))}")
                elif change is not None:
                    unresolved.setdefault(what, []).append(gc)
                    if change.withheld is not None:
                        rows.append(f"{gc} vs G1 {what} {fmt_interval(change.value, '{:+.1f}%')}: {change.withheld}")
        parts.append(f"heap {heap.removeprefix('h')}: " + "; ".join(rows))
    if not parts:
        return "server: no cell reported load metrics (see the failures)."
    unclear = "; ".join(f"{what} ({', '.join(dict.fromkeys(unresolved[what]))})"
                        for _, what in _COMPARED if what in unresolved)
    return (f"Built-in server at a fixed {RATE} req/s (latency from each request's intended start; "
            "means with 95% CIs; only differences whose CI excludes 0 are named): " + " | ".join(parts) + "."
            + (f" No clear difference from G1 ({_blocks(summary)}): {unclear}." if unclear else ""))


def _blocks(summary: Summary) -> str:
    n = min((cs.n for cs in summary.cells if getattr(cs, "n", None)), default=0)
    return f"n={n}" if n else "these blocks"
