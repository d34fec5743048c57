"""Content of the `jvmlab gc analyze --html` page: the terminal's figures (gcrows) as
tables, and plots read from each log's events in one bounded pass: pauses over time,
heap before/after each collection over time, allocation stalls and pacing over time, and
the pause-duration histogram on a log axis (pauses span microseconds to seconds)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jvmlab.gclog import LogSummary, iter_events
from jvmlab.gclog import events as ev
from jvmlab.report import gcrows, plots
from jvmlab.report.page import figure_entries
from jvmlab.report.timelines import MAX_POINTS, Series, downsample, round_sig

MAX_EVENTS = 200_000  # events read per log for the plots (a bounded loop on huge logs)
log_name = gcrows.log_name


@dataclass
class _Points:
    """Time series of one log, as read for the plots."""

    pause_t: list[float] = field(default_factory=list)
    pause_ms: list[float] = field(default_factory=list)
    heap_t: list[float] = field(default_factory=list)
    heap_before: list[float] = field(default_factory=list)
    heap_after: list[float] = field(default_factory=list)
    held_t: list[float] = field(default_factory=list)
    held_ms: list[float] = field(default_factory=list)
    held_what: set[str] = field(default_factory=set)
    capped: bool = False


def read_points(s: LogSummary) -> _Points:
    pts = _Points()
    n = 0
    for path in s.files:
        for e in iter_events(path):
            n += 1
            if n > MAX_EVENTS:
                pts.capped = True
                return pts
            t = e.t_s if e.t_s is not None else float(n)
            if e.type == ev.PAUSE and e.duration_ms is not None:
                pts.pause_t.append(t)
                pts.pause_ms.append(e.duration_ms)
            if e.type in (ev.PAUSE, ev.CYCLE) and e.heap_after_mb is not None and e.heap_before_mb is not None:
                pts.heap_t.append(t)
                pts.heap_before.append(e.heap_before_mb)
                pts.heap_after.append(e.heap_after_mb)
            if e.type in (ev.STALL, ev.PACING) and e.duration_ms:
                pts.held_t.append(t)
                pts.held_ms.append(e.duration_ms)
                pts.held_what.add(f"{e.kind} stalls" if e.type == ev.STALL else "pacing")
    return pts


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


def _figures(summaries: list[LogSummary], notes: list[str]) -> list[dict[str, Any] | None]:
    pauses: list[Series] = []
    heap_before: list[Series] = []
    heap_after: list[Series] = []
    held: list[Series] = []
    hist: list[tuple[str, int, list[float]]] = []
    for idx, s in enumerate(summaries):
        name = log_name(s)
        pts = read_points(s)
        if pts.pause_ms:
            pauses.append(_series(name, idx, "ms", pts.pause_t, pts.pause_ms))
            hist.append((name, idx, pts.pause_ms))
            if len(pauses[-1].values) < len(pts.pause_ms):
                notes.append(f"{name}: pause timeline downsampled from {len(pts.pause_ms)} to "
                             f"{len(pauses[-1].values)} points (minimum and maximum of each time bucket kept)")
        if pts.heap_t:
            heap_before.append(_series(name, idx, "MB", pts.heap_t, pts.heap_before))
            heap_after.append(_series(name, idx, "MB", pts.heap_t, pts.heap_after))
        if pts.held_t:
            held.append(_series(f"{name} ({' + '.join(sorted(pts.held_what))})", idx, "ms", pts.held_t, pts.held_ms))
        if pts.capped:
            notes.append(f"{name}: plots read the first {MAX_EVENTS} events only; the tables use all")
    heap = plots.lines("Heap before (dotted) and after (solid) each collection",
                       [("after GC", heap_after), ("before GC", heap_before)], "heap (MB)", mode="lines+markers")
    stalls = plots.lines("Allocation stalls and pacing over time", [("", held)], "delay (ms)", mode="markers")
    return [_clean_hover(plots.pause_timeline(pauses)), log_histogram(hist), _clean_hover(heap), _clean_hover(stalls)]


def _sections(s: LogSummary) -> dict[str, Any]:
    doc = s.to_json()
    tables = [(title, header, rows) for title, header, rows in (
        ("Pauses by kind, allocation stalls and pacing", gcrows.KIND_HEADER, gcrows.kind_rows(doc)),
        ("Collections by cause", gcrows.CAUSE_HEADER, gcrows.cause_rows(doc)),
        ("Concurrent phases", gcrows.PHASE_HEADER, gcrows.phase_rows(doc))) if rows]
    return {"name": log_name(s), "files": ", ".join(str(f) for f in s.files), "tables": tables,
            "warning": gcrows.held_warning(s), "json": json.dumps(doc, indent=2, default=str)}


def gc_context(summaries: list[LogSummary]) -> dict[str, Any]:
    notes: list[str] = []
    figures = _figures(summaries, notes)
    labels, columns = gcrows.summary_columns(summaries)
    rows = [[label, *[col[k] for col in columns]] for k, label in enumerate(labels)]
    return {
        "title": f"jvmlab: GC log analysis ({len(summaries)} log(s))",
        "header": ["", *[log_name(s) for s in summaries]], "rows": rows,
        "figures": figure_entries(figures, "gc"),
        "logs": [_sections(s) for s in summaries],
        "notes": notes,
    }
