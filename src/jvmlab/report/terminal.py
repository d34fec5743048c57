"""The terminal report (rich): cells with CIs, verdicts, effects, GC, warnings with hints."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from jvmlab import metrics as registry
from jvmlab.analyze import CellStats
from jvmlab.report.summary import Summary, comparison_of, effect_label

GC_COLUMNS = ("gc.pause_count", "gc.pause_total_ms", "gc.pause_p99_ms", "gc.pause_max_ms",
              "gc.concurrent_cycles", "gc.stall_total_ms", "gc.paused_pct")
EXTRA_COLUMNS = ("mem.peak_pss_bytes", "cpu.jit_share", "cpu.gc_share", "progress.steady_rate")


def _fmt(metric: str, value: float | None) -> str:
    return registry.get(metric).format(value)


def _mean_sd(metric: str, st: CellStats | None) -> str:
    if st is None or st.mean is None:
        return "-"
    unit = registry.get(metric).unit
    if st.sd is None:
        return registry.format_group([st.mean], unit, "")
    return registry.format_group([st.mean, st.sd], unit, " ± ")


def _range(metric: str, low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "-"
    return registry.format_group([low, high], registry.get(metric).unit, "–")


def render(summary: Summary, console: Console) -> None:
    exp = summary.experiment
    metric = summary.metric
    console.print(Text(f"Experiment {exp.id}: {exp.name}  ({exp.status}; metric {metric}, "
                       f"baseline {summary.baseline or '-'})", style="bold"))
    console.print(_cells_table(summary, wide=console.width >= 150))
    if summary.analysis.comparisons:
        console.print(Text("Verdicts", style="bold"))
        for comp in summary.analysis.comparisons:
            style = "green" if comp.significant else "dim"
            console.print(Text(f"  {summary.verdicts.get(comp.cell, comp.cell)}", style=style))
    if summary.analysis.effects:
        console.print(_effects_table(summary))
    gc_table = _metric_table(summary, GC_COLUMNS, "GC per cell (mean per invocation)")
    if gc_table is not None:
        console.print(gc_table)
    extra = _metric_table(summary, EXTRA_COLUMNS, "Memory, threads and throughput (mean per invocation)")
    if extra is not None:
        console.print(extra)
    workload = sorted({m for cs in summary.cells for m in cs.stats if m.startswith("workload.") and cs.stats[m].n})
    wl_table = _metric_table(summary, tuple(workload), "Workload-reported metrics (mean ± sd)")
    if wl_table is not None:
        console.print(wl_table)
    if summary.warmup_classes:
        console.print(_warmup_table(summary))
    if summary.hazards:
        console.print(Text("Warnings", style="bold yellow"))
        for h in summary.hazards:
            console.print(Text(f"  [{h.kind}] {h.detail}", style="yellow"))
            if h.hint:
                console.print(Text(f"      hint: {h.hint}", style="dim"))


def _cells_table(summary: Summary, wide: bool = True) -> Table:
    """Cells with their statistics; median and min–max only where the terminal is wide."""
    metric = summary.metric
    any_failed = any(cs.failures for cs in summary.cells)
    table = Table(title=None, show_lines=False, header_style="bold")
    table.add_column("cell", no_wrap=True)
    table.add_column("n", justify="right")
    if any_failed:
        table.add_column("fail", justify="right")
    columns = [f"{metric} mean ± sd", "95% CI of mean"] + (["median", "min–max"] if wide else []) + \
        ["user", "sys", "peak RSS", "vs baseline (95% CI)"]
    for col in columns:
        table.add_column(col, justify="right", no_wrap=col != "peak RSS")
    for cs in summary.cells:
        st = cs.stats.get(metric)
        comp = comparison_of(summary, cs.cell.name)
        if cs.cell.name == summary.baseline:
            rel = "baseline"
        elif comp is not None and comp.ratio is not None:
            ci = f" ({comp.ci95[0]:.3f}–{comp.ci95[1]:.3f})" if comp.ci95 else ""
            rel = f"{comp.ratio:.3f}x{ci}"
        else:
            rel = "-"
        ci95 = st.mean_ci95 if st else None
        name = cs.cell.name + (" (!)" if cs.not_in_effect else "")
        row = [name, str(cs.n)] + ([str(cs.failures) if cs.failures else ""] if any_failed else [])
        row += [_mean_sd(metric, st), _range(metric, *ci95) if ci95 else "-"]
        if wide:
            row += [_fmt(metric, st.median if st else None),
                    _range(metric, st.min if st else None, st.max if st else None)]
        row += [_fmt("user_s", _mean(cs.stats.get("user_s"))), _fmt("sys_s", _mean(cs.stats.get("sys_s"))),
                _fmt("max_rss_bytes", _mean(cs.stats.get("max_rss_bytes"))), rel]
        table.add_row(*row)
    return table


def _mean(st: CellStats | None) -> float | None:
    return st.mean if st is not None else None


def _effects_table(summary: Summary) -> Table:
    table = Table(title=f"Factorial effects on {summary.metric} (ratio of geometric means)", header_style="bold")
    for col in ("effect", "kind", "ratio", "95% CI"):
        table.add_column(col, justify="left" if col == "effect" else "right")
    for e in summary.analysis.effects:
        ci = f"{e.ci95[0]:.3f} … {e.ci95[1]:.3f}" if e.ci95 else "-"
        table.add_row(effect_label(e), e.kind, f"{e.ratio:.3f}" if e.ratio is not None else "-", ci)
    return table


def _metric_table(summary: Summary, metric_names: tuple[str, ...], title: str) -> Table | None:
    """One row per metric, one column per cell (cells are few; metric names are long)."""
    present = [m for m in metric_names if any(m in cs.stats and cs.stats[m].n for cs in summary.cells)]
    if not present:
        return None
    table = Table(title=title, header_style="bold")
    table.add_column("metric", no_wrap=True)
    for cs in summary.cells:
        table.add_column(cs.cell.name, justify="right")
    for m in present:
        table.add_row(m, *[_mean_sd(m, cs.stats.get(m)) if m.startswith("workload.")
                           else _fmt(m, _mean(cs.stats.get(m))) for cs in summary.cells])
    return table


def _warmup_table(summary: Summary) -> Table:
    """Warm-up classes per cell (after Barrett et al. 2017): how many invocations of each."""
    classes = sorted({k for counts in summary.warmup_classes.values() for k in counts})
    table = Table(title="Warm-up classes (invocations per class)", header_style="bold")
    table.add_column("cell")
    for name in classes:
        table.add_column(name, justify="right")
    for cs in summary.cells:
        counts = summary.warmup_classes.get(cs.cell.name, {})
        table.add_row(cs.cell.name, *[str(counts.get(name, "")) for name in classes])
    return table
