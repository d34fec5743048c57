"""The timeline page of a series (``history SERIES --html FILE``): per cell and metric the
labels' means with their 95% intervals as a band, the segments' levels, the change points
marked and labelled, hover with the label and its figures. Self-contained like the report
(plotly inlined, figures as JSON in the page); every text from the store is escaped: labels,
cell and series names are user input.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from jvmlab import metrics as registry
from jvmlab.report.history import change_text, gate_line, summary_line
from jvmlab.report.notation import interval
from jvmlab.report.notation import value as metric_value
from jvmlab.report.page import figure_entries, render_page, write_text
from jvmlab.report.plots import esc
from jvmlab.results.history import CellHistory, History
from jvmlab.results.history_gate import HistoryGate

BAND = "rgba(51, 102, 204, 0.18)"
LINE = "rgb(51, 102, 204)"
CHANGE = "rgb(201, 42, 42)"


def _short(label: str, width: int = 14) -> str:
    """A tick label short enough to stay off the legend (the hover shows it whole)."""
    text = html.unescape(label)
    return label if len(text) <= width else esc(text[:width - 1] + "…")


def cell_figure(cell: CellHistory) -> dict[str, Any]:
    """One cell's timeline as a plotly figure (a plain dict)."""
    info = registry.get(cell.metric, cell.unit)
    x = list(range(len(cell.points)))
    labels = [esc(p.label) for p in cell.points]
    low = [p.ci95[0] if p.ci95 else p.mean for p in cell.points]
    high = [p.ci95[1] if p.ci95 else p.mean for p in cell.points]
    hover = [f"<b>{labels[i]}</b><br>{esc(metric_value(info, p.mean))} "
             f"{esc(interval(info, p.ci95[0], p.ci95[1], like=p.mean)) if p.ci95 else '(one run)'}"
             f"<br>n={p.n_runs}" for i, p in enumerate(cell.points)]
    data: list[dict[str, Any]] = [
        {"type": "scatter", "mode": "lines", "x": x, "y": high, "line": {"width": 0}, "hoverinfo": "skip",
         "showlegend": False, "name": "95% CI high"},
        {"type": "scatter", "mode": "lines", "x": x, "y": low, "line": {"width": 0}, "fill": "tonexty",
         "fillcolor": BAND, "hoverinfo": "skip", "name": "95% interval"},
        {"type": "scatter", "mode": "lines+markers", "x": x, "y": [p.mean for p in cell.points],
         "line": {"color": LINE, "width": 1}, "marker": {"size": 4}, "name": "mean",
         "text": hover, "hovertemplate": "%{text}<extra></extra>"}]
    shapes, notes = [], []
    seg = cell.segmentation
    if seg is not None:
        levels = ([seg.changes[0].before_mean, *[c.after_mean for c in seg.changes]] if seg.changes else
                  [sum(p.mean for p in cell.points) / len(cell.points)])
        for (start, stop), level in zip(seg.segments, levels, strict=True):
            data.append({"type": "scatter", "mode": "lines", "x": [start - 0.4, stop - 0.6], "y": [level, level],
                         "line": {"color": "rgb(90, 90, 90)", "dash": "dot", "width": 1}, "hoverinfo": "skip",
                         "showlegend": start == 0, "name": "segment level"})
        for change in seg.changes:
            text = esc(f"{change_text(change, cell.label_at(change.index))}, p={change.p_value:.2g}")
            shapes.append({"type": "line", "xref": "x", "yref": "paper", "x0": change.index - 0.5,
                           "x1": change.index - 0.5, "y0": 0, "y1": 1,
                           "line": {"color": CHANGE, "dash": "dash", "width": 1.5}})
            notes.append({"x": change.index - 0.5, "y": 1, "xref": "x", "yref": "paper", "text": text,
                          "showarrow": False, "yanchor": "bottom",
                          "xanchor": "left" if change.index < len(x) / 2 else "right",
                          "font": {"color": CHANGE, "size": 11}})
    step = max(1, len(x) // 20)
    return {"data": data, "layout": {
        "title": {"text": esc(f"{cell.cell}: {cell.metric}")}, "height": 360, "hovermode": "closest",
        "margin": {"l": 60, "r": 20, "t": 40, "b": 90}, "shapes": shapes, "annotations": notes,
        "legend": {"orientation": "h", "y": -0.35},
        "xaxis": {"tickmode": "array", "tickvals": x[::step], "ticktext": [_short(t) for t in labels[::step]],
                  "tickangle": -45,
                  "zeroline": False, "title": {"text": "label"}},
        "yaxis": {"title": {"text": esc(f"{cell.metric} ({info.unit})" if info.unit else cell.metric)},
                  "zeroline": False}}}


def write_history_html(history: History, path: Path, gate: HistoryGate | None = None) -> Path:
    """Write the timeline page; return its path."""
    rows = [[c.cell, summary_line(c)] for c in history.cells]
    gate_part = None
    if gate is not None:
        css = {"fail": "worse", "pass": "better"}.get(gate.outcome, "")
        gate_part = {"outcome": gate.outcome, "lines": [{"text": gate_line(gate), "css": css}]}
    first, last = history.labels[0].label, history.labels[-1].label
    context = {"title": f"jvmlab history: {history.series}",
               "subtitle": f"{len(history.labels)} labels, {first} ... {last}; metrics {', '.join(history.metrics)}",
               "header": ["cell", "summary"], "rows": rows, "gate": gate_part,
               "figures": figure_entries([cell_figure(c) for c in history.cells], "timeline")}
    return write_text(path, render_page("history.html.j2", context))
