"""`gc`: the chunk generator under each collector each JDK has; steady-state throughput,
pauses, stalls and pacing, ranked with CIs."""

from __future__ import annotations

from jvmlab.jdk.model import JdkInfo
from jvmlab.scenarios.jdks import GC_FLAGS, exclude_rules, factor_table, gc_excludes, jvm_name, jvms_table, run_table
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import clearly, fmt_interval, mean_ci, ratio_pct

GCS = ["G1", "Parallel", "ZGC", "Shenandoah"]
METRIC = "progress.steady_rate"
FALLBACK = "progress.mean_rate"  # when no run reached a steady state


def runs(jdks: list[JdkInfo], quick: bool, seconds: int | None = None, workload: str | None = None,
         invocations: int | None = None, scenario: str = "gc", heap: str = "256m") -> list[ScenarioRun]:
    """Collectors compared on chunkgen, or on another workload block with a progress regex."""
    jdks = jdks[:1] if quick else jdks
    seconds = seconds or 10  # the steady-state detector needs at least 6 one-second windows
    gcs = [gc for gc in GCS if any(not j.gcs or gc in j.gcs for j in jdks)]
    block = workload or (f'builtin = "chunkgen"\nargs = ["--threads", "2", "--seconds", "{seconds}", '
                         f'"--retain-mb", "64", "--chunk-kb", "64"]')
    text = f'''name = "demo {scenario}: chunk generation x collector"
description = "Which collector generates the most chunks per second, and at what pause cost?"

[workload]
{block}

[jvms]
{jvms_table(jdks)}

{factor_table("heap", {f"h{heap}": [f"-Xms{heap}", f"-Xmx{heap}"]})}
{factor_table("gc", {gc: [GC_FLAGS[gc]] for gc in gcs})}
[matrix]
baseline = {{ jvm = "{jvm_name(jdks[0])}", gc = "G1" }}
{exclude_rules(gc_excludes(jdks, gcs))}
{run_table(invocations or (2 if quick else 3), 0, f"{seconds * 4 + 60}s")}'''
    return [ScenarioRun(scenario, "collectors", text, METRIC)]


def _extra(cell) -> str:
    bits = []
    for metric, label in (("gc.pause_p99_ms", "p99 pause {:.1f} ms"), ("gc.stall_total_ms", "stalls {:.0f} ms"),
                          ("gc.pacing_total_ms", "pacing {:.0f} ms")):
        value = mean_ci(cell, metric)
        if value is not None and (metric == "gc.pause_p99_ms" or value[0] > 0):
            bits.append(label.format(value[0]))
    return f" [{', '.join(bits)}]" if bits else ""


def verdict(summary) -> str:
    metric = METRIC if any(mean_ci(cs, METRIC) for cs in summary.cells) else FALLBACK
    by_jvm: dict[str, list] = {}
    for cs in summary.cells:
        if mean_ci(cs, metric) is not None:
            by_jvm.setdefault(cs.cell.jvm, []).append(cs)
    if not by_jvm:
        return "gc: no collector reported throughput (progress lines), so no ranking can be given."
    parts = []
    for jvm, cells in by_jvm.items():
        ranked = sorted(cells, key=lambda c: -mean_ci(c, metric)[0])
        rows = [f"{c.cell.levels.get('gc')} {fmt_interval(mean_ci(c, metric), '{:.0f}')} chunks/s{_extra(c)}"
                for c in ranked]
        text = f"on {jvm}: " + " > ".join(rows)
        if len(ranked) > 1:
            lead = ratio_pct(ranked[0], ranked[1], metric)
            if lead is not None:
                word = "ahead" if clearly(lead) else "not clearly ahead"
                text += (f"; {ranked[0].cell.levels.get('gc')} is {word} of {ranked[1].cell.levels.get('gc')} "
                         f"by {fmt_interval(lead, '{:+.1f}%')}")
        parts.append(text)
    what = ("steady-state throughput (mean chunks/s after warm-up" if metric == METRIC else
            "mean throughput over the whole run (no run reached a steady state: run longer; chunks/s")
    return f"Collectors ranked by {what}, 95% CI; higher is better): " + "; ".join(parts) + "."
