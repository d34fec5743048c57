"""One GC log as the reports see it: its summary document and the series its plots draw.

Reports render from these records and never open a log: a :class:`GcLogView` is made by
the analyzer's summary (:func:`view_of`: the series its one pass kept, bounded) or from
what the store kept for an invocation (:func:`view_of_stored`: the summary document and
the ``gc.pause_ms`` / ``gc.heap_after_mb`` timelines), so a page still renders after the
log files are deleted (``keep_gc_logs = false``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jvmlab.gclog.findings_fold import MAX_TIMELINE_POINTS, LogFold
from jvmlab.gclog.summary import LogSummary

MAX_PLOT_POINTS = MAX_TIMELINE_POINTS  # points kept per log for the plots (pauses, heap, stalls together)


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
    capped: bool = False  # True: only the first MAX_PLOT_POINTS points were kept


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


def folded_points(fold: LogFold) -> GcPoints:
    """The plot series the summary's pass kept (events with a time stamp, at most MAX_PLOT_POINTS
    points): pauses, heap before and after each collection that logs both, stalls and pacing."""
    both = [i for i, b in enumerate(fold.heap_before_mb) if b == b]  # NaN: before not logged
    return GcPoints(tuple(fold.pause_t), tuple(fold.pause_ms), tuple(fold.heap_t[i] for i in both),
                    tuple(fold.heap_before_mb[i] for i in both), tuple(fold.heap_mb[i] for i in both),
                    tuple(fold.held_t), tuple(fold.held_ms), tuple(sorted(fold.held_what)),
                    fold.timeline_room <= 0)


def view_of(summary: LogSummary, with_points: bool = True) -> GcLogView:
    """The view of an analyzed log, ``with_points``: the series its pass kept (no second read)."""
    from jvmlab.gclog.findings import summary_document

    points = folded_points(summary.fold) if with_points else None
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
