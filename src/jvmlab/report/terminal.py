"""The terminal report (rich): cells with CIs, verdicts, effects, GC, warnings with hints."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from jvmlab import metrics as registry
from jvmlab.analyze import CellStats
from jvmlab.report.summary import Summary, ci_mark, effect_label, vs_baseline

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
    if summary.metric_reason:
        console.print(Text(f"Compared on {metric}: {summary.metric_reason}", style="dim"))
    console.print(_cells_table(summary, console.width))
    if summary.analysis.comparisons:
        console.print(Text("Verdicts", style="bold"))
        for comp in summary.analysis.comparisons:
            style = "green" if comp.significant else "dim"
            console.print(Text(f"  {summary.verdicts.get(comp.cell, comp.cell)}", style=style))
    if summary.analysis.effects:
        console.print(_effects_table(summary))
    width = console.width
    gc_table = _metric_table(summary, GC_COLUMNS, "GC per cell (mean per invocation)", width)
    if gc_table is not None:
        console.print(gc_table)
    extra = _metric_table(summary, EXTRA_COLUMNS, "Memory, threads and throughput (mean per invocation)", width)
    if extra is not None:
        console.print(extra)
    workload = sorted({m for cs in summary.cells for m in cs.stats if m.startswith("workload.") and cs.stats[m].n})
    wl_table = _metric_table(summary, tuple(workload), "Workload-reported metrics (mean ± sd)", width)
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


def _cells_table(summary: Summary, width: int = 200) -> Table:
    """Cells with their statistics. Columns are dropped, least useful first, until the
    table fits the terminal: min–max, median, user, sys, peak RSS."""
    metric = summary.metric
    any_failed = any(cs.failures for cs in summary.cells)
    name_width = max(len(cs.cell.name) + 4 for cs in summary.cells)
    optional = [("min–max", 16), ("median", 10), ("user", 9), ("sys", 9), ("peak RSS", 10)]
    fixed = name_width + 5 + (6 if any_failed else 0) + 18 + 17 + 19
    while optional and fixed + sum(w for _, w in optional) + 3 * (len(optional) + 6) > width:
        optional.pop(0)
    shown = {name for name, _ in optional}
    table = Table(title=None, show_lines=False, header_style="bold")
    table.add_column("cell", overflow="fold", min_width=12)
    table.add_column("n", justify="right", min_width=2)
    if any_failed:
        table.add_column("fail", justify="right", min_width=4)
    columns = [f"{metric} mean ± sd", "95% CI of mean"] + \
        [c for c in ("median", "min–max", "user", "sys", "peak RSS") if c in shown] + ["vs baseline"]
    for col in columns:
        table.add_column(col, justify="right", no_wrap=col != "peak RSS")
    for cs in summary.cells:
        st = cs.stats.get(metric)
        rel = vs_baseline(summary, cs.cell.name, digits=".3g", brackets="()")
        ci95 = st.mean_ci95 if st else None
        values = {
            "median": _fmt(metric, st.median if st else None),
            "min–max": _range(metric, st.min if st else None, st.max if st else None),
            "user": _fmt("user_s", _mean(cs.stats.get("user_s"))),
            "sys": _fmt("sys_s", _mean(cs.stats.get("sys_s"))),
            "peak RSS": _fmt("max_rss_bytes", _mean(cs.stats.get("max_rss_bytes"))),
        }
        name = cs.cell.name + (" (!)" if cs.not_in_effect else "")
        row = [name, str(cs.n)] + ([str(cs.failures) if cs.failures else ""] if any_failed else [])
        row += [_mean_sd(metric, st), _range(metric, *ci95) + ci_mark(st) if ci95 else "-"]
        row += [values[c] for c in ("median", "min–max", "user", "sys", "peak RSS") if c in shown]
        table.add_row(*row, rel)
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


def _metric_table(summary: Summary, metric_names: tuple[str, ...], title: str,
                  width: int = 200) -> Table | None:
    """One row per metric and a column per cell when that fits the terminal; otherwise one
    row per (metric, cell), which stays readable with many cells."""
    present = [m for m in metric_names if any(m in cs.stats and cs.stats[m].n for cs in summary.cells)]
    if not present:
        return None

    def value(m: str, cs: object) -> str:
        st = cs.stats.get(m)  # type: ignore[attr-defined]
        return _mean_sd(m, st) if m.startswith("workload.") else _fmt(m, _mean(st))

    table = Table(title=title, header_style="bold")
    label = max(len(m) for m in present) + 4
    if label + 20 * len(summary.cells) <= width:
        table.add_column("metric", no_wrap=True)
        for cs in summary.cells:
            table.add_column(cs.cell.name, justify="right")
        for m in present:
            table.add_row(m, *[value(m, cs) for cs in summary.cells])
        return table
    for col in ("metric", "cell", "mean" if not any(m.startswith("workload.") for m in present) else "value"):
        table.add_column(col, justify="right" if col in ("mean", "value") else "left", no_wrap=col != "cell")
    for m in present:
        for k, cs in enumerate(summary.cells):
            table.add_row(m if k == 0 else "", cs.cell.name, value(m, cs), end_section=k == len(summary.cells) - 1)
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
