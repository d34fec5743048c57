"""The latency percentile curves of a server experiment: per cell, the histograms of all its
ok invocations merged (they share one bucketing, so merging is exact), drawn HdrHistogram-
style with the percentile axis stretched towards the tail (1 / (1 - p))."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jvmlab.report.page import figure_entries
from jvmlab.report.plots import _layout, color, esc
from jvmlab.server.histogram import Histogram

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary

_TICKS = (0.0, 50.0, 90.0, 99.0, 99.9, 99.99)


def merged_histograms(summary: Summary) -> dict[str, tuple[int, Histogram, int]]:
    """cell name -> (cell index, merged histogram, invocations merged), from the histograms
    the results layer loaded with the experiment."""
    invocations = [i for i in summary.invocations if i.status == "ok"]
    docs = summary.results.histograms if summary.results is not None else {}
    out: dict[str, tuple[int, Histogram, int]] = {}
    for cs in summary.cells:
        hist, n = Histogram(), 0
        for inv in invocations:
            if inv.cell_id == cs.cell.id and inv.id in docs:
                hist.merge(Histogram(dict(docs[inv.id].counts)))
                n += 1
        if n:
            out[cs.cell.name] = (cs.cell.idx, hist, n)
    return out


def latency_figure(merged: dict[str, tuple[int, Histogram, int]]) -> dict[str, Any] | None:
    data = []
    for name, (idx, hist, n) in merged.items():
        points = [(p, v) for p, v in hist.curve() if p < 100.0]
        if not points:
            continue
        data.append({"type": "scatter", "mode": "lines", "name": esc(f"{name} ({n} inv.)"),
                     "x": [1.0 / (1.0 - p / 100.0) for p, _ in points], "y": [v / 1000.0 for _, v in points],
                     "line": {"color": color(idx), "width": 1.6, "shape": "hv"},
                     "hovertemplate": esc(name) + "<br>p%{customdata:.3f}: %{y:.3f} ms<extra></extra>",
                     "customdata": [p for p, _ in points]})
    if not data:
        return None
    layout = _layout("Request latency by percentile (merged histograms per cell)", "percentile", "latency (ms)")
    layout["xaxis"] = {**layout.get("xaxis", {}), "type": "log",
                       "tickvals": [1.0 / (1.0 - t / 100.0) for t in _TICKS],
                       "ticktext": [f"{t:g}%" for t in _TICKS]}
    layout["yaxis"] = {**layout.get("yaxis", {}), "type": "log"}
    return {"data": data, "layout": layout}


def latency_figures(summary: Summary) -> list[dict[str, str]]:
    """Template entries for the report's latency section (empty for non-server experiments)."""
    return figure_entries([latency_figure(merged_histograms(summary))], "lat")
