"""The terminal report (rich): cells with CIs, verdicts, effects, GC, warnings with hints."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from jvmlab import metrics as registry
from jvmlab.analyze import CellStats
from jvmlab.report import archives_view, notation
from jvmlab.report import nodes as nodes_view
from jvmlab.report.fit import Column, fitted_tables
from jvmlab.report.jmh import jmh_table, render_jmh
from jvmlab.report.sections import COLUMN_LABELS, RSS_NOTE, RSS_RUSAGE
from jvmlab.report.summary import Summary, called, effect_label, mean_ci_text, vs_baseline

GC_COLUMNS = ("gc.pause_count", "gc.pause_total_ms", "gc.pause_p99_ms", "gc.pause_max_ms",
              "gc.concurrent_cycles", "gc.stall_total_ms", "gc.paused_pct")
EXTRA_COLUMNS = ("mem.peak_rss_bytes", "mem.peak_pss_bytes", "cpu.jit_share", "cpu.gc_share",
                 "progress.steady_rate")
LIMIT_COLUMNS = ("jvm.active_processors", "jvm.max_heap_bytes", "jvm.memory_limit_bytes", "cgroup.oom_kills",
                 "cgroup.peak_bytes")  # [environment] cpus/memory: the limits and what the JVM believed


def _shown(summary: Summary, metric: str) -> registry.Metric:
    return notation.shown_metric(metric, notation.progress_unit(summary.experiment.spec_text), summary.metrics)


def _print_all(console: Console, tables: list[Table]) -> None:
    for table in tables:
        console.print(table)


def render(summary: Summary, console: Console) -> None:
    exp = summary.experiment
    metric = summary.metric
    width = console.width
    reason = getattr(summary, "metric_reason", None)  # issue 11 adds it; shown when present
    why = f" ({reason})" if reason else ""
    console.print(Text(f"Experiment {exp.id}: {exp.name}  ({exp.status}; metric {metric}{why}, "
                       f"baseline {summary.baseline or '-'})", style="bold"))
    _print_all(console, _cells_tables(summary, width))
    archives_view.render(summary.archives, console)
    if summary.analysis.comparisons:
        console.print(Text("Verdicts", style="bold"))
        for comp in summary.analysis.comparisons:
            style = "green" if called(summary, comp.cell) else "dim"
            console.print(Text(f"  {summary.verdicts.get(comp.cell, comp.cell)}", style=style))
    nodes_view.render(summary, console)  # a cluster run: the within-node verdicts, node offsets
    if summary.analysis.effects:
        _print_all(console, _effects_tables(summary, width))
    _print_all(console, _metric_tables(summary, GC_COLUMNS, "GC per cell (mean per invocation)", width))
    extra = _metric_tables(summary, EXTRA_COLUMNS, "Memory, threads and throughput (mean per invocation)", width)
    _print_all(console, extra)
    _print_all(console, _metric_tables(summary, LIMIT_COLUMNS,
                                       "CPU/memory limits and what the JVM believed (mean)", width))
    workload = sorted({m for cs in summary.cells for m in cs.stats if m.startswith("workload.") and cs.stats[m].n})
    _print_all(console, _metric_tables(summary, tuple(workload), "Workload-reported metrics (mean ± sd)", width))
    if extra and any("mem.peak_rss_bytes" in cs.stats and cs.stats["mem.peak_rss_bytes"].n for cs in summary.cells):
        console.print(Text(RSS_NOTE, style="dim"))

    if (jmh := jmh_table(summary)) is not None:
        render_jmh(jmh, console)
    if summary.warmup_classes:
        _print_all(console, _warmup_tables(summary, width))
    if summary.hazards:
        console.print(Text("Warnings", style="bold yellow"))
        for h in summary.hazards:
            console.print(Text(f"  [{h.kind}] {h.detail}", style="yellow"))
            if h.hint:
                console.print(Text(f"      hint: {h.hint}", style="dim"))


def _cells_tables(summary: Summary, width: int = 200) -> list[Table]:
    """Cells with their statistics, stacked into as many tables as the width needs (never
    a column dropped). Intervals are [low, high] in the unit of the row's mean."""
    metric = summary.metric
    m = _shown(summary, metric)
    stats = {cs.cell.name: cs.stats.get(metric) for cs in summary.cells}

    def col(header: str, fn: Callable[[Any, CellStats | None], str]) -> Column:
        return Column(header, [fn(cs, stats[cs.cell.name]) for cs in summary.cells])

    def mean(st: CellStats | None) -> float | None:
        return st.mean if st else None

    columns = [col("n", lambda cs, st: str(cs.n))]
    if any(cs.failures for cs in summary.cells):
        columns.append(col("fail", lambda cs, st: str(cs.failures) if cs.failures else ""))
    columns += [
        col("mean ± sd", lambda cs, st: notation.mean_sd(m, st)),
        col("vs baseline [95% CI]", lambda cs, st: vs_baseline(summary, cs.cell.name)),
        col("95% CI of mean", lambda cs, st: mean_ci_text(m, st)),
        col("median", lambda cs, st: notation.value(m, st.median if st else None, like=mean(st))),
        col("min–max", lambda cs, st: notation.span(m, st.min if st else None, st.max if st else None,
                                                    like=mean(st))),
        col("user", lambda cs, st: notation.mean_sd(summary.metrics.get("user_s"), cs.stats.get("user_s"))),
        col("sys", lambda cs, st: notation.mean_sd(summary.metrics.get("sys_s"), cs.stats.get("sys_s"))),
        col(RSS_RUSAGE, lambda cs, st: notation.mean_sd(summary.metrics.get("max_rss_bytes"),
                                                         cs.stats.get("max_rss_bytes"))),
    ]
    names = Column("cell", [cs.cell.name + (" (!)" if cs.not_in_effect else "") for cs in summary.cells], "left")
    return fitted_tables(names, columns, width, title=f"Cells: {metric} ({m.unit})")


def _mean(st: CellStats | None) -> float | None:
    return st.mean if st is not None else None


def _effects_tables(summary: Summary, width: int) -> list[Table]:
    effects = summary.analysis.effects
    key = Column("effect", [effect_label(e) for e in effects], "left")
    columns = [Column("kind", [e.kind for e in effects]),
               Column("ratio [95% CI]", [notation.ratio_ci(e.ratio, e.ci95) for e in effects])]
    return fitted_tables(key, columns, width, f"Factorial effects on {summary.metric} (ratio of geometric means)",
                         key_cap=40)


def _metric_tables(summary: Summary, metric_names: tuple[str, ...], title: str, width: int = 200) -> list[Table]:
    """A column per metric and a row per cell, stacked into parts when the metrics do not
    fit the width side by side; every value in a metric's own unit."""
    present = [m for m in metric_names if any(m in cs.stats and cs.stats[m].n for cs in summary.cells)]
    if not present:
        return []
    columns = []
    for name in present:
        m = _shown(summary, name)
        columns.append(Column(COLUMN_LABELS.get(name, name),
                              [notation.mean_sd(m, cs.stats.get(name)) if name.startswith("workload.")
                               else notation.value(m, _mean(cs.stats.get(name))) for cs in summary.cells]))
    key = Column("cell", [cs.cell.name for cs in summary.cells], "left")
    return fitted_tables(key, columns, width, title)


def _warmup_tables(summary: Summary, width: int) -> list[Table]:
    """Warm-up classes per cell (after Barrett et al. 2017): how many invocations of each."""
    classes = sorted({k for counts in summary.warmup_classes.values() for k in counts})
    key = Column("cell", [cs.cell.name for cs in summary.cells], "left")
    columns = [Column(name, [str(summary.warmup_classes.get(cs.cell.name, {}).get(name, ""))
                             for cs in summary.cells]) for name in classes]
    return fitted_tables(key, columns, width, "Warm-up classes (invocations per class)")
