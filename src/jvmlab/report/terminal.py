"""The terminal report (rich): cells with CIs, verdicts, effects, GC, warnings with hints."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from jvmlab.report import archives_view, notation
from jvmlab.report import nodes as nodes_view
from jvmlab.report.fit import Column, fitted_tables
from jvmlab.report.jmh import jmh_table, render_jmh
from jvmlab.report.sections import COLUMN_LABELS, LIMIT_COLUMNS, RSS_NOTE, measured
from jvmlab.report.summary import (
    RSS_RUSAGE,
    Summary,
    called,
    cell_columns,
    effect_label,
    shown,
)

GC_COLUMNS = ("gc.pause_count", "gc.pause_total_ms", "gc.pause_p99_ms", "gc.pause_max_ms",
              "gc.concurrent_cycles", "gc.stall_total_ms", "gc.paused_pct")
EXTRA_COLUMNS = ("mem.peak_rss_bytes", "mem.peak_pss_bytes", "cpu.jit_share", "cpu.gc_share",
                 "progress.steady_rate")


def _print_all(console: Console, tables: list[Table]) -> None:
    for table in tables:
        console.print(table)


def render(summary: Summary, console: Console) -> None:
    exp = summary.experiment
    metric = summary.metric
    width = console.width
    why = f" ({summary.metric_reason})" if summary.metric_reason else ""
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
    if extra and measured(summary, "mem.peak_rss_bytes"):
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
    values = cell_columns(summary)
    keys = ["n", *(["failed"] if any(cs.failures for cs in summary.cells) else []), "mean ± sd",
            "vs baseline [95% CI]", "95% CI of mean", "median", "min–max", "user", "sys", RSS_RUSAGE]
    columns = [Column("fail" if k == "failed" else k, values[k]) for k in keys]
    names = Column("cell", [cs.cell.name + (" (!)" if cs.not_in_effect else "") for cs in summary.cells], "left")
    title = f"Cells: {summary.metric} ({shown(summary, summary.metric).unit})"
    return fitted_tables(names, columns, width, title=title)


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
    present = [m for m in metric_names if measured(summary, m)]
    if not present:
        return []
    columns = []
    for name in present:
        m = shown(summary, name)
        columns.append(Column(COLUMN_LABELS.get(name, name),
                              [notation.mean_sd(m, cs.stats.get(name)) if name.startswith("workload.")
                               else notation.value(m, st.mean if (st := cs.stats.get(name)) is not None else None)
                               for cs in summary.cells]))
    key = Column("cell", [cs.cell.name for cs in summary.cells], "left")
    return fitted_tables(key, columns, width, title)


def _warmup_tables(summary: Summary, width: int) -> list[Table]:
    """Warm-up classes per cell (after Barrett et al. 2017): how many invocations of each."""
    classes = sorted({k for counts in summary.warmup_classes.values() for k in counts})
    key = Column("cell", [cs.cell.name for cs in summary.cells], "left")
    columns = [Column(name, [str(summary.warmup_classes.get(cs.cell.name, {}).get(name, ""))
                             for cs in summary.cells]) for name in classes]
    return fitted_tables(key, columns, width, "Warm-up classes (invocations per class)")
