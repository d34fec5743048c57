"""Plotly figures as plain dicts (data + layout), ready to be embedded as JSON.

Building dicts directly (not ``plotly.graph_objects``) keeps a 10,000-invocation report
fast. Every string that came from a spec or a workload is HTML-escaped here, because
plotly reads a small HTML subset in labels; escaped text is shown literally.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from jvmlab import metrics as registry
from jvmlab.analyze import Comparison, Effect
from jvmlab.model.documents import ProgressDocument
from jvmlab.report.axes import log_ticks, padded_log_range
from jvmlab.report.notation import ratio_ci
from jvmlab.report.timelines import Series, round_sig
from jvmlab.results.compare import ci_excludes_one

Figure = dict[str, Any]
PALETTE = ("#4c6ef5", "#e8590c", "#2b8a3e", "#ae3ec9", "#f08c00", "#1098ad", "#d6336c", "#5c940d",
           "#364fc7", "#c92a2a", "#087f5b", "#862e9c")
MAX_STRIP_POINTS = 400  # points drawn per cell in a distribution plot (box stats use all)
BETTER, WORSE, UNCLEAR = "#2b8a3e", "#c92a2a", "#868e96"  # as the verdict list's colours
HIST_BINS = 40
_BYTES = {"bytes": (1 / (1 << 20), "MiB")}


def esc(text: object) -> str:
    """Plotly label text: HTML-escaped so markup in names shows as text."""
    return html.escape(str(text), quote=True)


def color(idx: int) -> str:
    return PALETTE[idx % len(PALETTE)]


def scale(unit: str) -> tuple[float, str]:
    """Display factor and unit label (bytes are drawn in MiB)."""
    return _BYTES.get(unit, (1.0, unit))


def _layout(title: str, xtitle: str = "", ytitle: str = "", height: int = 360, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "title": {"text": esc(title), "font": {"size": 14}, "x": 0.01, "xanchor": "left"},
        "height": height, "autosize": True,
        "margin": {"l": 60, "r": 16, "t": 30, "b": 50},
        "paper_bgcolor": "#ffffff", "plot_bgcolor": "#ffffff",
        "xaxis": {"title": {"text": esc(xtitle), "standoff": 4}, "gridcolor": "#e9ecef", "zeroline": False},
        "yaxis": {"title": {"text": esc(ytitle)}, "gridcolor": "#e9ecef", "zeroline": False},
        "legend": {"orientation": "h", "yanchor": "top", "y": -0.22},
        "hovermode": "closest",
    }
    layout.update(extra)
    return layout


def _cell_axis(names: Sequence[str]) -> dict[str, Any]:
    """One row per cell. No zeroline: at y=0 it would run through the first row's interval
    and make it look unbounded."""
    return {"tickmode": "array", "tickvals": list(range(len(names))), "ticktext": [esc(n) for n in names],
            "range": [len(names) - 0.5, -0.5], "automargin": True, "gridcolor": "#f1f3f5",
            "zeroline": False, "showline": False}


def direction_color(ratio: float | None, clear: bool, lower_is_better: bool) -> str:
    """Green for a clear change for the better, red for the worse, grey otherwise: the
    metric's direction decides, as it does for the verdict sentence."""
    if not clear or ratio is None or ratio == 1.0:
        return UNCLEAR
    return BETTER if (ratio < 1.0) == lower_is_better else WORSE


def _ratio_axis(values: Sequence[float | None], title: str) -> dict[str, Any]:
    """A log axis whose range holds every ratio and CI end (and 1), with plain tick labels."""
    lo, hi = padded_log_range([v for v in values if v is not None and v > 0] + [1.0])
    vals, text = log_ticks(10 ** lo, 10 ** hi)
    return {"type": "log", "range": [lo, hi], "tickmode": "array", "tickvals": vals, "ticktext": text,
            "title": {"text": esc(title), "standoff": 4}, "gridcolor": "#e9ecef", "zeroline": False}


def _height_for(n_cells: int) -> int:
    return max(220, 60 + 46 * n_cells)


def distribution(metric: str, cells: Sequence[tuple[str, int, Sequence[float], Sequence[int]]],
                 seed: int = 0, m: registry.Metric | None = None) -> Figure | None:
    """Box (quartiles and 1.5 IQR whiskers of every value) plus a jittered strip of points.

    ``cells`` holds (name, color index, values, invocation ids) in display order; cells
    without values are left out (the caller says so), and no values at all draws nothing.
    ``m`` is the metric from the experiment's registry (dynamic metrics keep their unit).
    """
    m = m or registry.get(metric)
    factor, unit = scale(m.unit)
    rng = np.random.default_rng(seed)
    data: list[dict[str, Any]] = []
    cells = [c for c in cells if len(c[2])]  # a cell without values gets no empty row
    if not cells:
        return None
    names = [c[0] for c in cells]
    for pos, (name, idx, values, ids) in enumerate(cells):
        x = np.asarray(values, dtype=float) * factor
        q1, med, q3 = np.percentile(x, [25, 50, 75])
        iqr = q3 - q1
        inside = x[(x >= q1 - 1.5 * iqr) & (x <= q3 + 1.5 * iqr)]
        data.append({
            "type": "box", "orientation": "h", "y": [pos], "q1": round_sig([q1]), "median": round_sig([med]),
            "q3": round_sig([q3]), "lowerfence": round_sig([inside.min()]), "upperfence": round_sig([inside.max()]),
            "mean": round_sig([x.mean()]), "name": esc(name), "marker": {"color": color(idx)},
            "showlegend": False, "hoverinfo": "x", "width": 0.5})
        keep = np.arange(x.size)
        if x.size > MAX_STRIP_POINTS:
            keep = np.sort(rng.choice(x.size, MAX_STRIP_POINTS, replace=False))
        jitter = rng.uniform(-0.18, 0.18, keep.size)
        data.append({
            "type": "scatter", "mode": "markers", "x": round_sig(x[keep]),
            "y": round_sig(pos + jitter, 3), "customdata": [int(ids[int(k)]) for k in keep],
            "marker": {"color": color(idx), "size": 5, "opacity": 0.55}, "name": esc(name),
            "showlegend": False, "hovertemplate": f"{esc(name)}<br>%{{x}} {esc(unit)}"
                                                  "<br>invocation %{customdata}<extra></extra>"})
    layout = _layout(f"{metric}: every invocation per cell", f"{metric} ({unit})", "",
                     _height_for(len(cells)))
    layout["yaxis"] = _cell_axis(names)
    return {"data": data, "layout": layout}


def _ratio_figure(title: str, labels: Sequence[str], ratios: Sequence[float | None],
                  cis: Sequence[tuple[float, float] | None], colors: Sequence[str], hover: Sequence[str],
                  xtitle: str) -> Figure:
    """One row per label: intervals as explicit segments (robust on a log axis), a marker per
    ratio, a dashed line at 1, on a log axis that holds every ratio and interval end."""
    seg_x: list[float | None] = []
    seg_y: list[float | None] = []
    for pos, ci in enumerate(cis):
        if ci is not None:
            seg_x.extend([*round_sig(ci), None])
            seg_y.extend([pos, pos, None])
    traces = [
        {"type": "scatter", "mode": "lines", "x": seg_x, "y": seg_y, "hoverinfo": "skip", "showlegend": False,
         "line": {"color": "#495057", "width": 2}},
        {"type": "scatter", "mode": "markers", "x": list(ratios), "y": list(range(len(labels))),
         "marker": {"color": list(colors), "size": 11, "symbol": "diamond"},
         "text": [esc(h) for h in hover], "hovertemplate": "%{text}<extra></extra>", "showlegend": False},
    ]
    unity = {"type": "line", "xref": "x", "yref": "paper", "x0": 1, "x1": 1, "y0": 0, "y1": 1,
             "line": {"color": "#868e96", "dash": "dash", "width": 1}}
    layout = _layout(title, "", "", _height_for(len(labels)), shapes=[unity])
    layout["yaxis"] = _cell_axis(labels)
    layout["xaxis"] = _ratio_axis([*ratios, *(end for ci in cis for end in ci or ())], xtitle)
    return {"data": traces, "layout": layout}


def forest(metric: str, comparisons: Sequence[Comparison], baseline: str | None,
           m: registry.Metric | None = None) -> Figure | None:
    """Ratio of means against the baseline with 95% CIs, one row per compared cell; the
    marker is green when the cell is clearly better, red when clearly worse."""
    m = m or registry.get(metric)
    comparisons = [c for c in comparisons if c.ratio is not None]
    if not comparisons:
        return None
    return _ratio_figure(f"{metric}: ratio to {baseline or 'baseline'} (mean, 95% CI)", [c.cell for c in comparisons],
                         [c.ratio for c in comparisons], [c.ci95 for c in comparisons],
                         [direction_color(c.ratio, c.significant, m.lower_is_better) for c in comparisons],
                         [f"{c.cell}: ratio {ratio_ci(c.ratio, c.ci95)}" for c in comparisons],
                         f"ratio to baseline ({_better_side(m)})")


def _better_side(m: registry.Metric) -> str:
    return "left = better" if m.lower_is_better else "right = better"


def effects(metric: str, items: Sequence[tuple[str, Effect]], m: registry.Metric | None = None) -> Figure | None:
    """Factorial effects (ratios with 95% CIs); ``items`` are (label, effect), coloured by
    the metric's direction when the CI excludes 1."""
    m = m or registry.get(metric)
    items = [(label, e) for label, e in items if e.ratio is not None]
    if not items:
        return None
    return _ratio_figure(f"Factorial effects on {metric} (ratio, 95% CI)", [label for label, _ in items],
                         [e.ratio for _, e in items], [e.ci95 for _, e in items],
                         [direction_color(e.ratio, ci_excludes_one(e.ci95), m.lower_is_better) for _, e in items],
                         [f"{label}: {ratio_ci(e.ratio, e.ci95)}" for label, e in items],
                         f"ratio ({_better_side(m)})")


def lines(title: str, groups: Sequence[tuple[str, Sequence[Series]]], ytitle: str = "",
          mode: str = "lines", skip_all_zero: bool = False) -> Figure | None:
    """Time series colored by cell (one legend entry per cell); ``groups`` are (label, series)
    drawn with one dash style each, named in the title by the caller. ``skip_all_zero``
    draws nothing when every value is 0 (huge pages never used, say)."""
    if skip_all_zero and not any(v for _, series in groups for s in series for v in s.values if v is not None):
        return None  # a flat line at 0 says nothing a sentence cannot
    dashes = ("solid", "dot", "dash", "dashdot", "longdash")
    data: list[dict[str, Any]] = []
    shown: set[str] = set()
    unit = ""
    for g, (label, series) in enumerate(groups):
        for s in series:
            factor, unit = scale(s.unit)
            name = f"{s.cell}" + (f" {label}" if label else "")
            data.append({
                "type": "scattergl" if len(s.t_s) > 2000 else "scatter", "mode": mode,
                "x": s.t_s, "y": round_sig(np.asarray(s.values, dtype=float) * factor) if factor != 1 else s.values,
                "name": esc(s.cell), "legendgroup": esc(s.cell), "showlegend": s.cell not in shown,
                "line": {"color": color(s.cell_idx), "width": 1.4, "dash": dashes[g % len(dashes)]},
                "marker": {"color": color(s.cell_idx), "size": 5},
                "hovertemplate": f"{esc(name)} (invocation {s.invocation_id})<br>t=%{{x}} s<br>%{{y}}<extra></extra>"})
            shown.add(s.cell)
    if not data:
        return None
    return {"data": data, "layout": _layout(title, "seconds since start", ytitle or unit)}


def throughput(series: Sequence[Series], progress: Mapping[int, ProgressDocument],
               unit: str = "units/s") -> Figure | None:
    """Throughput over time per invocation (in the workload's unit), with the warm-up
    changepoints marked."""
    fig = lines("Throughput over time (changepoints marked)", [("", series)], unit)
    if fig is None:
        return None
    for s in series:
        doc = progress.get(s.invocation_id)
        cps = list(doc.changepoints_s) if doc is not None else []
        klass = doc.klass if doc is not None and doc.klass else "?"
        if not cps or not s.t_s:
            continue
        t = np.asarray(s.t_s, dtype=float)
        v = np.asarray([np.nan if x is None else x for x in s.values], dtype=float)
        ys = [v[int(np.argmin(np.abs(t - c)))] for c in cps]
        fig["data"].append({
            "type": "scatter", "mode": "markers", "x": round_sig(cps), "y": round_sig(ys),
            "name": esc(f"{s.cell} changepoint"), "legendgroup": esc(s.cell), "showlegend": False,
            "marker": {"symbol": "line-ns-open", "size": 18, "color": color(s.cell_idx),
                       "line": {"width": 2.5, "color": color(s.cell_idx)}},
            "hovertemplate": esc(f"{s.cell}: changepoint ({klass})") + " at %{x} s<extra></extra>"})
    return fig


def pause_timeline(series: Sequence[Series]) -> Figure | None:
    """Each GC pause as a point: when it happened and how long it took."""
    fig = lines("GC pauses over time", [("", series)], "pause (ms)", mode="markers")
    if fig is not None:
        fig["layout"]["yaxis"]["rangemode"] = "tozero"
    return fig


def histogram(title: str, per_cell: Sequence[tuple[str, int, Sequence[float | None]]], xtitle: str) -> Figure | None:
    """Overlaid histograms, one per cell, on log-spaced bins and a log axis: GC pauses run
    from microseconds to seconds, and linear bins would put nearly all of them in one bar.
    Drawn as filled step lines (bars of log-spaced bins are not well drawn on a log axis)."""
    cells = [(name, idx, np.asarray([v for v in values if v is not None and v > 0], dtype=np.float64))
             for name, idx, values in per_cell]
    cells = [(name, idx, v) for name, idx, v in cells if v.size]
    if not cells:
        return None
    lo = min(float(v.min()) for _, _, v in cells)
    hi = max(float(v.max()) for _, _, v in cells)
    if hi <= lo:
        hi = lo * 1.01
    edges = np.geomspace(lo, hi * 1.0001, HIST_BINS + 1)
    data = []
    for name, idx, v in cells:
        counts, _ = np.histogram(v, bins=edges)
        xs = np.repeat(edges, 2)[1:-1]
        ys = np.repeat(counts, 2)
        data.append({"type": "scatter", "mode": "lines", "x": round_sig(xs), "y": [int(c) for c in ys],
                     "name": esc(name), "fill": "tozeroy", "opacity": 0.6,
                     "line": {"color": color(idx), "width": 1.2},
                     "hovertemplate": f"{esc(name)}<br>%{{x}} {esc(xtitle)}<br>%{{y}} pauses<extra></extra>"})
    layout = _layout(title, xtitle + " (log scale)", "pauses per bin")
    lo_log, hi_log = padded_log_range([lo, hi], pad=0.02)
    vals, text = log_ticks(10 ** lo_log, 10 ** hi_log)
    layout["xaxis"].update({"type": "log", "range": [lo_log, hi_log], "tickmode": "array",
                            "tickvals": vals, "ticktext": text})
    layout["yaxis"]["rangemode"] = "tozero"
    return {"data": data, "layout": layout}
