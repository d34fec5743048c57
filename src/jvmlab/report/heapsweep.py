"""Heap sweep report: per series, time (or throughput), peak RSS and p99 pause against heap
size with 95% CI bands, and the knee. Takes a :class:`SweepResult`, never a store; minimum
heap intervals render here too (a table), so `jvmlab minheap` prints one thing per result.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from jvmlab import metrics as registry
from jvmlab.report import plots
from jvmlab.report.page import figure_entries, render_page, write_text
from jvmlab.sizing.minheap import MinHeapResult, Status
from jvmlab.sizing.results import SweepResult

MB = 1 << 20


def mib(n: int | None) -> str:
    return "-" if n is None else f"{n / MB:g} MiB"


def interval_text(r: MinHeapResult) -> str:
    """"(70, 74] MiB, 94% confidence; flaky at 72 MiB" or the reason there is no interval."""
    lower, upper, confidence = r.lower_bytes, r.upper_bytes, r.confidence
    if r.status is Status.FOUND and lower is not None and upper is not None and confidence is not None:
        text = f"({lower / MB:g}, {upper / MB:g}] MiB at {confidence:.0%} confidence"
        if r.flaky:
            text += "; flaky (passed and failed) at " + ", ".join(f"{s / MB:g}" for s in r.flaky_sizes) + " MiB"
        return text
    if r.status is Status.BELOW_LOWER:
        return f"at most {mib(r.upper_bytes)} (the lower bound already passes)"
    return f"not found: {r.note}"


def minheap_table(rows: list[tuple[str, MinHeapResult]], console: Console) -> None:
    table = Table(title="Minimum heap (interval: largest size that always failed, smallest that always passed)")
    for col in ("cell", "minimum heap", "probes", "failures seen"):
        table.add_column(col)
    for name, r in rows:
        reasons = sorted({str(p.verdict) for p in r.probes if not p.verdict.passed})
        table.add_row(name, interval_text(r), str(r.invocations), ", ".join(reasons) or "-")
    console.print(table)


def _fmt(metric: str, value: float | None) -> str:
    try:
        return registry.get(metric).format(value)
    except Exception:  # noqa: BLE001 - a workload metric the registry does not know yet
        return "-" if value is None else f"{value:.4g}"


def sweep_table(result: SweepResult, console: Console) -> None:
    """Per series: the time metric at each heap, the knee marked with *."""
    knees = result.knees()
    for c in result.curves.get(result.time_metric, ()):
        knee = knees.get(c.series)
        table = Table(title=f"{c.series}: {result.time_metric} against heap size")
        for col in ("heap", "x min", "n", "mean", "95% CI", "peak RSS", "p99 pause"):
            table.add_column(col)
        side = {m: {p.level: p for s in result.curves[m] if s.series == c.series for p in s.points}
                for m in ("max_rss_bytes", "gc.pause_p99_ms")}
        for p in c.points:
            ci = "-" if p.ci_low is None else f"{_fmt(c.metric, p.ci_low)} – {_fmt(c.metric, p.ci_high)}"
            mark = " *" if knee is not None and p.level == knee.level else ""
            table.add_row(mib(p.heap_bytes) + mark, "-" if p.multiple is None else f"{p.multiple:g}", str(p.n),
                          _fmt(c.metric, p.mean), ci, _fmt("max_rss_bytes", side["max_rss_bytes"][p.level].mean),
                          _fmt("gc.pause_p99_ms", side["gc.pause_p99_ms"][p.level].mean))
        console.print(table)
        console.print(knee_sentence(result, c.series))


def knee_interval_text(low_bytes: int | None, high_bytes: int | None) -> str:
    """"95% interval 108-216 MiB" (or one size when both ends agree)."""
    if low_bytes is None or high_bytes is None:
        return "no interval"
    if low_bytes == high_bytes:
        return f"95% interval {mib(low_bytes)}"
    return f"95% interval {low_bytes / MB:g}-{mib(high_bytes)}"


def knee_sentence(result: SweepResult, series: str) -> str:
    estimate = result.knee_estimates().get(series)
    knee = estimate.point if estimate else None
    if estimate is None or knee is None:
        return f"{series}: no heap size had a measurement, so there is no knee."
    times = f"{result.within:.0%} of the best {result.time_metric}"
    if not estimate.resolved:
        return (f"{series}: knee not resolved ({estimate.reason}; the means put it at {mib(knee.heap_bytes)}, "
                f"the smallest heap within {times}); more invocations per heap would resolve it.")
    mult = f" ({knee.multiple:g}x the minimum heap)" if knee.multiple is not None else ""
    edge = (" It is the largest size swept: the curve may still be falling beyond it."
            if knee.heap_bytes == max(level.heap_bytes for level in result.levels) else "")
    return (f"{series}: knee at {mib(knee.heap_bytes)}{mult} "
            f"({knee_interval_text(estimate.low_bytes, estimate.high_bytes)}, bootstrap over invocations), "
            f"the smallest heap within {times}.{edge}")


def figure(result: SweepResult, metric: str) -> plots.Figure | None:
    """One metric against heap size: a line per series, its CI as a shaded band, knees marked."""
    curves = result.curves.get(metric, ())
    unit = registry.get(metric).unit if metric in registry.REGISTRY else ""
    factor, label = plots.scale(unit)
    data: list[dict[str, Any]] = []
    knees = result.knees() if metric == result.time_metric else {}
    for i, c in enumerate(curves):
        pts = [p for p in c.points if p.mean is not None]
        means = [p.mean for p in pts if p.mean is not None]
        if not pts:
            continue
        x = [p.heap_bytes / MB for p in pts]
        bands = [(p.heap_bytes / MB, lo, hi) for p in pts
                 if (lo := p.ci_low) is not None and (hi := p.ci_high) is not None]
        if bands:
            bx = [b[0] for b in bands]
            data.append({"type": "scatter", "mode": "lines", "x": bx + bx[::-1],
                         "y": [hi * factor for _, _, hi in bands] + [lo * factor for _, lo, _ in bands[::-1]],
                         "fill": "toself", "fillcolor": plots.color(i), "opacity": 0.18, "line": {"width": 0},
                         "name": plots.esc(f"{c.series} 95% CI"), "legendgroup": plots.esc(c.series),
                         "showlegend": False, "hoverinfo": "skip"})
        data.append({"type": "scatter", "mode": "lines+markers", "x": x, "y": [m * factor for m in means],
                     "name": plots.esc(c.series), "legendgroup": plots.esc(c.series),
                     "line": {"color": plots.color(i)}, "marker": {"color": plots.color(i), "size": 6},
                     "hovertemplate": f"{plots.esc(c.series)}<br>heap %{{x}} MiB<br>%{{y}}<extra></extra>"})
        knee = knees.get(c.series)
        if knee is not None and knee.mean is not None:
            data.append({"type": "scatter", "mode": "markers", "x": [knee.heap_bytes / MB],
                         "y": [knee.mean * factor], "name": plots.esc(f"{c.series} knee"),
                         "legendgroup": plots.esc(c.series), "showlegend": False,
                         "marker": {"symbol": "star", "size": 14, "color": plots.color(i)}})
    if not data:
        return None
    return {"data": data, "layout": plots._layout(f"{metric} against heap size (95% CI bands)", "heap (MiB)",
                                                  label or unit)}


def sweep_html(result: SweepResult, title: str, minheap_rows: Sequence[tuple[str, MinHeapResult]] = ()) -> str:
    metrics = (result.time_metric, "max_rss_bytes", "gc.pause_p99_ms")
    rows = []
    for series, knee in result.knees().items():
        rows.append([series, mib(knee.heap_bytes) if knee else "-",
                     "-" if knee is None or knee.multiple is None else f"{knee.multiple:g}x",
                     _fmt(result.time_metric, knee.mean if knee else None)])
    notes = [f"{name}: minimum heap {interval_text(r)}" for name, r in minheap_rows]
    if result.reference_bytes:
        notes.append(f"multiples are of {mib(result.reference_bytes)}, the largest minimum heap of the cells")
    context = {"title": title, "subtitle": f"experiment {result.experiment_id}",
               "within": f"{result.within:.0%}", "time_metric": result.time_metric,
               "header": ["series", "knee heap", "multiple", result.time_metric], "rows": rows,
               "figures": figure_entries([figure(result, m) for m in metrics], "sweep"), "notes": notes}
    return render_page("heapsweep.html.j2", context)


def write_sweep_html(result: SweepResult, path: Path, title: str,
                     minheap_rows: Sequence[tuple[str, MinHeapResult]] = ()) -> Path:
    return write_text(path, sweep_html(result, title, list(minheap_rows)))
