"""`gc`: the chunk generator under each collector each JDK has; steady-state throughput,
pauses, stalls and pacing, ranked with CIs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
from jvmlab.scenarios.stats import Machine, cell_n, mean_ci, pair_n, ratio_pct
from jvmlab.scenarios.table import Estimate, ScenarioVerdict, empty

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary
    from jvmlab.results import CellResult

GCS = ["G1", "Parallel", "ZGC", "Shenandoah"]
METRIC = "progress.steady_rate"
FALLBACK = "progress.mean_rate"  # when no run reached a steady state
# Full mode: every JDK x every collector, 6 per cell, the fewest at which the bootstrap
# intervals are trustworthy (jvmlab.analyze.smallsample); 7 comparisons (8 cells) under Holm
# can reach significance from 6 blocks on (jvmlab.plan.power).
FULL_INVOCATIONS = 6
# Quick mode and `demo all`: one JDK and the three collectors that differ most (Shenandoah
# is G1-like on this workload), 5 blocks: the fewest at which 2 Holm-corrected comparisons
# can be significant (4 blocks cannot: 2 x 0.029 > 0.05). 15 runs of 10 s: about 3 minutes.
SHORT_GCS = ("G1", "Parallel", "ZGC")
SHORT_INVOCATIONS = 5


def runs(jdks: list[JdkInfo], quick: bool, seconds: int | None = None, workload: str | None = None,
         invocations: int | None = None, scenario: str = "gc", heap: str = "256m",
         collectors: tuple[str, ...] | None = None) -> list[ScenarioRun]:
    """Collectors compared on chunkgen, or on another workload block with a progress regex.
    Quick: one JDK, ``SHORT_GCS``, ``SHORT_INVOCATIONS`` (``collectors`` overrides the list)."""
    jdks = jdks[:1] if quick else jdks
    seconds = seconds or 10  # the steady-state detector needs at least 6 one-second windows
    wanted = collectors or (SHORT_GCS if quick else GCS)
    gcs = [gc for gc in wanted if any(not j.gcs or gc in j.gcs for j in jdks)]
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
{run_table(invocations or (SHORT_INVOCATIONS if quick else FULL_INVOCATIONS), 0, f"{seconds * 4 + 60}s")}'''
    return [ScenarioRun(scenario, "collectors", text, METRIC, "steady-state throughput")]


def _pause(cell: Any) -> str:
    value = mean_ci(cell, "gc.pause_p99_ms")
    return f"{value[0]:.1f} ms" if value is not None else "-"


def _mean(cell: Any, metric: str) -> float:
    """The cell's mean of ``metric`` (-inf without one: ranked last)."""
    value = mean_ci(cell, metric)
    return value[0] if value is not None else float("-inf")


def verdict(summary: Summary, unit: str = "chunks/s", metric: str | None = None) -> ScenarioVerdict:
    """Collectors ranked per JDK on ``metric`` (default: steady throughput where a run reached
    a steady state, else the mean rate)."""
    fell_back = metric is None and not any(mean_ci(cs, METRIC) for cs in summary.cells)
    metric = metric or (FALLBACK if fell_back else METRIC)
    what = ("steady-state throughput (after warm-up)" if metric == METRIC else "mean throughput over the whole run"
            + (" (no run reached a steady state: run longer)" if fell_back else ""))
    title = f"Collectors ranked by {what}, {unit}, 95% CI; higher is better"
    by_jvm: dict[str, list[CellResult]] = {}
    machine = Machine.of(summary)
    for cs in summary.cells:
        if mean_ci(cs, metric) is not None:
            by_jvm.setdefault(cs.cell.jvm, []).append(cs)
    if not by_jvm:
        return empty(title, "gc: no collector reported throughput (progress lines), so no ranking can be given.")
    rows: list[tuple[str, ...]] = []
    leads: list[tuple[str, str | None, list[tuple[str, Estimate]]]] = []
    for jvm, cells in by_jvm.items():
        ranked = sorted(cells, key=lambda c: -_mean(c, metric))
        behind: list[tuple[str, Estimate]] = []  # each collector against the leader: the figures of its row
        for k, c in enumerate(ranked):
            vs = Estimate.of(ratio_pct(machine, c, ranked[0], metric), "{:+.1f}%",
                             pair_n(c, ranked[0], metric)) if k else None
            mean = Estimate(mean_ci(c, metric), "{:.0f}", cell_n(c, metric))
            rows.append((jvm, str(c.cell.levels.get("gc")), mean.text(),
                         vs.text() if vs else "leader", _pause(c), vs.answer() if vs else ""))
            if vs is not None:
                behind.append((str(c.cell.levels.get("gc")), vs))
        if behind:
            leads.append((jvm, ranked[0].cell.levels.get("gc"), behind))
    header = ("JDK", "GC", unit, "vs leader", "p99 pause", "answer")
    return ScenarioVerdict(title, header, tuple(rows), _conclusion(leads, by_jvm))


def _conclusion(leads: list[tuple[str, str | None, list[tuple[str, Estimate]]]],
                by_jvm: dict[str, list[CellResult]]) -> str:
    if not leads:
        jvm, cells = next(iter(by_jvm.items()))
        return f"Only {cells[0].cell.levels.get('gc')} ran on {jvm}: nothing to rank."
    parts = []
    for jvm, first, behind in leads:
        (second, runner_up), *_ = behind
        if runner_up.clear and runner_up.value is not None:
            parts.append(f"{first} leads on {jvm}; {second}, the runner-up, is {runner_up.value[0]:+.1f}% behind it")
            continue
        # Not clearly ahead of the runner-up: say which collectors it is clearly ahead of, if any
        # (a close pair at the top must not hide a clear answer further down).
        tied = [gc for gc, e in behind if not e.clear]
        clear = [f"{gc} ({e.value[0]:+.1f}%)" for gc, e in behind if e.clear and e.value is not None]
        text = f"{first} leads on {jvm} but not clearly ahead of {', '.join(tied)} ({runner_up.answer()})"
        parts.append(text + (f"; {', '.join(clear)} clearly behind it" if clear else ""))
    return "; ".join(parts) + "."
