"""One GC log as the reports see it: its summary document and the series its plots draw.

Reports render from these records and never open a log: a :class:`GcLogView` is made by
the analyzer from the files (:func:`view_of`, one bounded pass for the series) or from
what the store kept for an invocation (:func:`view_of_stored`: the summary document and
the ``gc.pause_ms`` / ``gc.heap_after_mb`` timelines), so a page still renders after the
log files are deleted (``keep_gc_logs = false``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jvmlab.gclog import events as ev
from jvmlab.gclog.analyze import iter_events
from jvmlab.gclog.summary import LogSummary

MAX_EVENTS = 200_000  # events read per log for the plots (a bounded loop on huge logs)


@dataclass(frozen=True)
class GcPoints:
    """Time series of one log: pauses, heap before/after each collection, stalls and pacing."""

    pause_t_s: tuple[float, ...] = ()
    pause_ms: tuple[float, ...] = ()
    heap_t_s: tuple[float, ...] = ()
    heap_before_mb: tuple[float, ...] = ()  # may be empty when only the after-GC series was kept
    heap_after_mb: tuple[float, ...] = ()
    held_t_s: tuple[float, ...] = ()
    held_ms: tuple[float, ...] = ()
    held_what: tuple[str, ...] = ()  # "allocation stalls", "pacing", ...
    capped: bool = False  # True: only the first MAX_EVENTS events were read


@dataclass(frozen=True)
class GcLogView:
    """A log's name, its summary document (``LogSummary.to_json()``) and its series."""

    name: str
    doc: dict[str, Any]
    pauses_logged: bool = True  # False: a ZGC log at -Xlog:gc level shows cycles, not pauses
    points: GcPoints | None = None  # None: no series (the plots are left out)


def log_name(files: Sequence[str | Path]) -> str:
    """``gc.log``, or ``gc.log.0 (+3 rotated)`` for a rotated set."""
    first = Path(files[0]).name
    return first if len(files) == 1 else f"{first} (+{len(files) - 1} rotated)"


def read_points(files: Sequence[Path]) -> GcPoints:
    """The plot series of a log's files, in one pass of at most MAX_EVENTS events."""
    cols: dict[str, list[float]] = {k: [] for k in ("pt", "pm", "ht", "hb", "ha", "st", "sm")}
    what: set[str] = set()
    n = 0
    for path in files:
        for e in iter_events(path):
            n += 1
            if n > MAX_EVENTS:
                return _points(cols, what, capped=True)
            t = e.t_s if e.t_s is not None else float(n)
            if e.type == ev.PAUSE and e.duration_ms is not None:
                cols["pt"].append(t)
                cols["pm"].append(e.duration_ms)
            if e.type in (ev.PAUSE, ev.CYCLE) and e.heap_after_mb is not None and e.heap_before_mb is not None:
                cols["ht"].append(t)
                cols["hb"].append(e.heap_before_mb)
                cols["ha"].append(e.heap_after_mb)
            if e.type in (ev.STALL, ev.PACING) and e.duration_ms:
                cols["st"].append(t)
                cols["sm"].append(e.duration_ms)
                what.add(f"{e.kind} stalls" if e.type == ev.STALL else "pacing")
    return _points(cols, what, capped=False)


def _points(cols: dict[str, list[float]], what: set[str], capped: bool) -> GcPoints:
    return GcPoints(tuple(cols["pt"]), tuple(cols["pm"]), tuple(cols["ht"]), tuple(cols["hb"]),
                    tuple(cols["ha"]), tuple(cols["st"]), tuple(cols["sm"]), tuple(sorted(what)), capped)


def view_of(summary: LogSummary, with_points: bool = True) -> GcLogView:
    """The view of an analyzed log; ``with_points`` reads its series from the files now."""
    from jvmlab.gclog.findings import summary_document

    points = read_points(summary.files) if with_points else None
    return GcLogView(log_name(summary.files), summary_document(summary), summary.pauses_logged, points)


def view_of_stored(name: str, doc: dict[str, Any],
                   timelines: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None) -> GcLogView:
    """The view of a stored invocation: its ``GcDocument.summary`` and its gc.* timelines
    (``{"gc.pause_ms": (t_s, values), "gc.heap_after_mb": (t_s, values)}``)."""
    tl = timelines or {}
    pause_t, pause_ms = tl.get("gc.pause_ms", ((), ()))
    heap_t, heap_mb = tl.get("gc.heap_after_mb", ((), ()))
    points = GcPoints(tuple(pause_t), tuple(pause_ms), tuple(heap_t), (), tuple(heap_mb)) if tl else None
    pauses = doc.get("pauses") or {}
    cycles = doc.get("concurrent_cycles") or {}
    logged = not (pauses.get("count") == 0 and (cycles.get("count") or 0) > 0
                  and str(doc.get("collector") or "").startswith("ZGC"))
    return GcLogView(name, doc, logged, points)
