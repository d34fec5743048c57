"""Content of the `jvmlab gc analyze --html` page: the terminal's figures (gcrows) as
tables, and plots of each log's series: pauses over time, heap before/after each
collection over time, allocation stalls and pacing over time, and the pause-duration
histogram on a log axis (pauses span microseconds to seconds).

Renders from records only (:class:`~jvmlab.gclog.points.GcLogView`: the summary document
and the series the analyzer read, or the store kept): it never opens a log, so a page
renders after the logs are gone."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from jvmlab.gclog.points import MAX_PLOT_POINTS, GcLogView
from jvmlab.report import gcfindings, gcrows, plots
from jvmlab.report.page import figure_entries
from jvmlab.report.timelines import MAX_POINTS, Series, downsample, round_sig


def _series(name: str, idx: int, unit: str, t: list[float], v: list[float]) -> Series:
    t2, v2 = downsample(t, v, MAX_POINTS * 2)
    return Series(name, idx, 0, unit, round_sig(t2), round_sig(v2))


def _clean_hover(fig: dict[str, Any] | None) -> dict[str, Any] | None:
    if fig is not None:
        for trace in fig["data"]:
            trace["hovertemplate"] = trace["hovertemplate"].replace(" (invocation 0)", "")
    return fig


def log_histogram(per_log: list[tuple[str, int, list[float]]]) -> dict[str, Any] | None:
    """Pause durations in log-spaced bins (10 per decade), drawn on a log x axis."""
    values = [v for _, _, vs in per_log for v in vs if v > 0]
    if not values:
        return None
    lo, hi = math.floor(math.log10(min(values)) * 10), math.ceil(math.log10(max(values)) * 10) + 1
    edges = 10.0 ** (np.arange(lo, hi + 1) / 10.0)
    data = []
    for name, idx, vs in per_log:
        counts, _ = np.histogram([v for v in vs if v > 0], bins=edges)
        mids = np.sqrt(edges[:-1] * edges[1:])
        keep = counts > 0
        data.append({"type": "bar", "x": round_sig(mids[keep]), "y": counts[keep].tolist(),
                     "width": round_sig((edges[1:] - edges[:-1])[keep]), "name": plots.esc(name),
                     "opacity": 0.6, "marker": {"color": plots.color(idx)},
                     "hovertemplate": plots.esc(name) + ": %{y} pauses near %{x} ms<extra></extra>"})
    layout = plots._layout("GC pause durations (log axis)", "pause (ms)", "pauses", barmode="overlay")
    layout["xaxis"]["type"] = "log"
    return {"data": data, "layout": layout}


def _figures(views: Sequence[GcLogView], notes: list[str]) -> list[dict[str, Any] | None]:
    pauses: list[Series] = []
    heap_before: list[Series] = []
    heap_after: list[Series] = []
    held: list[Series] = []
    hist: list[tuple[str, int, list[float]]] = []
    for idx, view in enumerate(views):
        name, pts = view.name, view.points
        if pts is None:
            notes.append(f"{name}: no event series kept; tables only")
            continue
        if pts.pause_ms:
            pauses.append(_series(name, idx, "ms", list(pts.pause_t_s), list(pts.pause_ms)))
            hist.append((name, idx, list(pts.pause_ms)))
            if len(pauses[-1].values) < len(pts.pause_ms):
                notes.append(f"{name}: pause timeline downsampled from {len(pts.pause_ms)} to "
                             f"{len(pauses[-1].values)} points (minimum and maximum of each time bucket kept)")
        if pts.heap_t_s:
            if pts.heap_before_mb:
                heap_before.append(_series(name, idx, "MB", list(pts.heap_t_s), list(pts.heap_before_mb)))
            heap_after.append(_series(name, idx, "MB", list(pts.heap_t_s), list(pts.heap_after_mb)))
        if pts.held_t_s:
            held.append(_series(f"{name} ({' + '.join(pts.held_what)})", idx, "ms",
                                list(pts.held_t_s), list(pts.held_ms)))
        if pts.capped:
            notes.append(f"{name}: plots hold the first {MAX_PLOT_POINTS} points only; the tables use all events")
    heap = plots.lines("Heap before (dotted) and after (solid) each collection",
                       [("after GC", heap_after), ("before GC", heap_before)], "heap (MB)", mode="lines+markers")
    stalls = plots.lines("Allocation stalls and pacing over time", [("", held)], "delay (ms)", mode="markers")
    return [_clean_hover(plots.pause_timeline(pauses)), log_histogram(hist), _clean_hover(heap), _clean_hover(stalls)]


def _sections(view: GcLogView) -> dict[str, Any]:
    doc = view.doc
    tables = [(title, header, rows) for title, header, rows in (
        ("Pauses by kind, allocation stalls and pacing", gcrows.KIND_HEADER, gcrows.kind_rows(doc)),
        ("Collections by cause", gcrows.CAUSE_HEADER, gcrows.cause_rows(doc)),
        ("Concurrent phases", gcrows.PHASE_HEADER, gcrows.phase_rows(doc))) if rows]
    return {"name": view.name, "files": ", ".join(str(f) for f in doc.get("files") or ()), "tables": tables,
            "warning": gcrows.held_warning(doc, view.name),
            "findings": gcfindings.html_findings(doc), "findings_header": gcfindings.HEADER,
            "json": json.dumps(doc, indent=2, default=str)}


def gc_context(views: Sequence[GcLogView]) -> dict[str, Any]:
    """The page's template context, from the logs' records (summary documents and series)."""
    notes: list[str] = []
    figures = _figures(views, notes)
    labels, columns = gcrows.summary_columns(views)
    rows = [[label, *[col[k] for col in columns]] for k, label in enumerate(labels)]
    return {
        "title": f"jvmlab: GC log analysis ({len(views)} log(s))",
        "header": ["", *[v.name for v in views]], "rows": rows,
        "figures": figure_entries(figures, "gc"),
        "logs": [_sections(v) for v in views],
        "notes": notes,
    }
