"""The findings' facts, folded in the summary's one pass over a log (no second read).

:class:`LogFold` rides along with :class:`jvmlab.gclog.summary.LogSummary`: every event the
summary folds goes through :meth:`LogFold.event` (or, from the compiled folder, through
:meth:`LogFold.collection` with the same fields), and every chunk of text the parser reads
through :meth:`LogFold.text`. It keeps, in bounded memory: tallies by cause and failure, the
young and full collections, heap after full collections (the live-set points), runs of
consecutive full collections, full collections that freed little, the pause and heap
timelines the gc collector stores, and up to
:data:`EXAMPLES` log lines per kind of event, looked up in the chunk the event came from.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from jvmlab.gclog import events as ev
from jvmlab.gclog.events import GcEvent
from jvmlab.gclog.figures import type_label
from jvmlab.gclog.findings_scan import EXAMPLES, LINE_CHARS, LineFacts, Tally, note_workers, scan_text

MAX_EVENTS = 5_000_000  # a bound on the events folded per log (far above any real log's count)
MAX_TIMELINE_POINTS = 200_000  # pause, heap and stall points kept for the stored timelines and the plots
LIVE_POINTS = 4096  # live-set points kept; beyond, every other one is dropped (the stride doubles)
_MAX_FULL_AFTER = 10_000
HEADER_CHUNKS = 2  # start-up facts are read from a log's first chunks (4 MB each), and where a JVM restarts

# Causes that are a request from outside the collector (not a fallback), by the log's words.
# JDK 6-8 word System.gc() as "System" (JDK 6) or "System.gc()" (JDK 7-8).
EXPLICIT = ("System.gc()", "JvmtiEnv ForceGarbageCollection", "Diagnostic Command")
REQUESTED = EXPLICIT + ("Heap Inspection Initiated GC", "Heap Dump Initiated GC", "WhiteBox Initiated Young GC",
                        "WhiteBox Initiated Full GC")
# Causes that name Metaspace (a collection for class metadata, not for the heap).
METASPACE = ("Metadata GC Threshold", "Last ditch collection", "Metadata GC Clear Soft References")
HUMONGOUS = ("G1 Humongous Allocation",)
GC_LOCKER = ("GCLocker Initiated GC", "GC Locker", "GCLocker")
# The causes a rule reads: only these are tallied (a log's causes may carry figures, e.g.
# Shenandoah's "Old has overgrown, ... 1004M", so counting every distinct one is unbounded).
WATCHED = frozenset(REQUESTED + METASPACE + HUMONGOUS + GC_LOCKER)
_EXAMPLE_OF_CAUSE = {**{c: "explicit-gc" for c in EXPLICIT}, "Heap Inspection Initiated GC": "heap-inspection-gc",
                     "Heap Dump Initiated GC": "heap-dump-gc", **{c: "metaspace-gc" for c in METASPACE},
                     **{c: "humongous-allocation" for c in HUMONGOUS}, **{c: "gc-locker" for c in GC_LOCKER}}


def only_counted(typ: str, kind: str, raw_cause: str | None, failure: str | None) -> bool:
    """True for a collection :meth:`LogFold.collection` only counts, puts on the timelines and
    (a young pause) tallies, once its kind's example lines are found and no run of full
    collections is open: no cause a rule watches, no failure, not a full or degenerated
    collection. The compiled folder does that much itself and hands over the rest."""
    cause = canonical_cause(raw_cause) if raw_cause else None
    if failure or (cause and cause in WATCHED and (typ == ev.CYCLE or kind in ev.COLLECTION_STARTS)):
        return False
    return typ == ev.CYCLE or kind not in (ev.FULL, ev.DEGENERATED)


def canonical_cause(cause: str | None) -> str | None:
    """The cause as the rules name it: Shenandoah words a request ``Explicit GC request
    (System.gc())`` (its ``Trigger:`` line), JDK 6 ``System``, the others ``System.gc()``."""
    if cause and ("System.gc()" in cause or cause == "System"):
        return "System.gc()"
    return cause


@dataclass
class EventFacts:
    """What the event fold found: tallies keyed by what happened, and heap after full GCs."""

    by_cause: dict[str, Tally] = field(default_factory=dict)
    served_by: dict[str, dict[str, int]] = field(default_factory=dict)  # cause -> pause/cycle name -> count
    by_failure: dict[str, Tally] = field(default_factory=dict)
    full: Tally = field(default_factory=Tally)  # full collections whose cause is not a request
    all_full: Tally = field(default_factory=Tally)  # every full collection, requested or not
    full_causes: dict[str, int] = field(default_factory=dict)
    degenerated: Tally = field(default_factory=Tally)
    stalls: Tally = field(default_factory=Tally)
    young: Tally = field(default_factory=Tally)
    full_after: list[tuple[float | None, float, float | None]] = field(default_factory=list)  # t, after, committed
    consecutive: Tally = field(default_factory=Tally)  # full collections in runs of CONSECUTIVE_FULL_MIN+
    longest_full_run: int = 0
    full_runs: int = 0  # runs of CONSECUTIVE_FULL_MIN or more
    low_freed: Tally = field(default_factory=Tally)  # non-requested full collections that freed little
    full_with_heap: int = 0  # non-requested full collections with heap before and after
    live_t: array[float] = field(default_factory=lambda: array("d"))
    live_mb: array[float] = field(default_factory=lambda: array("d"))
    live_stride: int = 1
    events: int = 0


CONSECUTIVE_FULL_MIN = 3  # three full collections with no other collection between: the heap is full
LOW_FREED_FRACTION = 0.1  # a full collection that frees under 10% of the heap it started with


EXAMPLE_MISSES = 8  # lookups of a kind's example that found no line before it is given up (bounded work)


def _line_with(text: str | bytes, stop: int, needle: str, last: bool, have: list[str]) -> str | None:
    """A line of ``text[:stop]`` holding ``needle`` not yet in ``have`` (the last one when ``last``);
    ``text`` is the parser's text or the compiled folder's raw block (bytes, not copied)."""
    nl: str | bytes = "\n"
    pattern: str | bytes = needle
    if isinstance(text, bytes):
        nl, pattern = b"\n", needle.encode("utf-8", errors="replace")
    at = text.rfind(pattern, 0, stop) if last else text.find(pattern, 0, stop)  # type: ignore[arg-type]
    tries = 0
    while at >= 0 and tries < 4:
        start = text.rfind(nl, 0, at) + 1  # type: ignore[arg-type]
        end = text.find(nl, at, stop)  # type: ignore[arg-type]
        piece = text[start:end if end >= 0 else stop][:LINE_CHARS]
        line = (piece.decode("utf-8", errors="replace") if isinstance(piece, bytes) else piece).rstrip()
        if line not in have:
            return line
        tries += 1
        at = -1 if last else text.find(pattern, at + 1, stop)  # type: ignore[arg-type]
    return None


class LogFold:
    """The findings' facts of one log, folded as the summary is made."""

    def __init__(self) -> None:
        self.e = EventFacts()
        self.lines = LineFacts()
        self.examples: dict[str, list[str]] = {}
        self.pause_t = array("d")
        self.pause_ms = array("d")
        self.heap_t = array("d")
        self.heap_mb = array("d")
        self.heap_before_mb = array("d")  # beside heap_mb, NaN where not logged (the HTML page's plot)
        self.held_t = array("d")  # allocation stalls and pacing (the HTML page's plot)
        self.held_ms = array("d")
        self.held_what: set[str] = set()
        self._text = ""
        self._prev = ""
        self._run = Tally()  # the current run of non-requested full collections
        self._live_skip = 0
        self.collector_hint: str | None = None  # the collector the text names, for a log without header
        self._chunks = 0
        self._raw: tuple[bytes, int] | None = None
        self._misses: dict[str, int] = {}
        self._young_examples = True  # young collections (and pauses) still want example lines
        self.timeline_room = MAX_TIMELINE_POINTS  # timeline points still to keep (pauses, heap, held)

    # -- text ----------------------------------------------------------------------------
    def text(self, chunk: str, raw: tuple[bytes, int] | None = None, cpu_pauses: int = 0,
             workers: tuple[int, int] | None = None) -> None:
        """A chunk of the log's text as read (the events that follow came from it); ``raw``: the
        compiled folder's block (its first ``length`` bytes), where example lines are looked up
        when ``chunk`` holds only the lines the folder set aside; ``cpu_pauses`` and ``workers``:
        what the folder counted of the lines it did not set aside (CPU times of pauses too
        short to judge, the largest "Using N workers of M")."""
        self._raw = raw
        self._prev, self._text = self._text, chunk
        self._chunks += 1
        scan_text(self.lines, chunk, self._chunks <= HEADER_CHUNKS or "GC(0) " in chunk)
        self.lines.cpu.pauses += cpu_pauses
        if workers is not None:
            note_workers(self.lines, *workers)
        if self.collector_hint is None and "Eden regions: " in chunk:  # G1's region lines (-Xlog:gc+heap)
            self.collector_hint = "G1"

    def _example(self, key: str, name: str, gid: int | None, cause: str | None = None) -> bool:
        """Look up an example line of this kind of event; False once no more are wanted.
        ``cause``: the raw cause, looked up when the event's name is not a line of the log
        (Shenandoah's cycle is named "Concurrent phases"; its "Trigger: ... (System.gc())" line
        names the cause)."""
        have = self.examples.setdefault(key, [])
        if len(have) >= EXAMPLES or not name or self._misses.get(key, 0) >= EXAMPLE_MISSES:
            return False
        needle = f"GC({gid}) {name}" if gid is not None else name
        texts: tuple[tuple[str | bytes, int], ...] = ((self._text, len(self._text)), (self._prev, len(self._prev)))
        if self._raw is not None:
            texts = (self._raw,)
        for text, stop in texts:
            line = _line_with(text, stop, needle, gid is not None, have)
            if line is None and cause:
                line = _line_with(text, stop, cause, False, have)
            if line is not None:
                have.append(line)
                return True
        self._misses[key] = self._misses.get(key, 0) + 1
        return True

    # -- events --------------------------------------------------------------------------
    def event(self, e: GcEvent) -> None:
        typ = e.type
        if typ == ev.PAUSE or typ == ev.CYCLE:
            self.collection(typ, e.kind, e.name, e.cause, e.failure, e.t_s, e.duration_ms, e.heap_before_mb,
                            e.heap_after_mb, e.heap_committed_mb, e.gc_id)
        elif typ == ev.STALL:
            self.e.stalls.add(e.t_s, e.duration_ms)
            self._example("allocation-stall", e.name, None)
            self._held(e.t_s, e.duration_ms, f"{e.kind} stalls")
        elif typ == ev.PACING:
            self._held(e.t_s, e.duration_ms, "pacing")

    def _held(self, t: float | None, ms: float | None, what: str) -> None:
        """A thread held by the collector (a stall, pacing), for the HTML page's plot."""
        if t is not None and ms and self.timeline_room > 0:
            self.held_t.append(t)
            self.held_ms.append(ms)
            self.held_what.add(what)
            self.timeline_room -= 1

    def collection(self, typ: str, kind: str, name: str, raw_cause: str | None, failure: str | None,
                   t: float | None, dur: float | None, before: float | None, after: float | None,
                   committed: float | None, gid: int | None, folded: bool = False) -> None:
        """One pause or concurrent cycle (the fields of a GcEvent); ``folded``: from the compiled
        folder, which put it on the timelines and tallied it if young (:meth:`folded`)."""
        f = self.e
        f.events += 1
        if f.events > MAX_EVENTS:
            return
        if t is not None and self.timeline_room > 0 and not folded:
            if typ == ev.PAUSE and dur is not None:
                self.pause_t.append(t)
                self.pause_ms.append(dur)
                self.timeline_room -= 1
            if after is not None:
                self.heap_t.append(t)
                self.heap_mb.append(after)
                self.heap_before_mb.append(math.nan if before is None else before)
                self.timeline_room -= 1
        cause = canonical_cause(raw_cause) if raw_cause else None
        if cause and cause in WATCHED and (typ == ev.CYCLE or kind in ev.COLLECTION_STARTS):
            f.by_cause.setdefault(cause, Tally()).add(t, dur)
            served = f.served_by.setdefault(cause, {})
            if len(served) < 20:
                label = type_label(name, kind, raw_cause)
                served[label] = served.get(label, 0) + 1
            self._example(_EXAMPLE_OF_CAUSE[cause], name, gid, raw_cause)
        if failure:
            f.by_failure.setdefault(failure, Tally()).add(t, dur)
            self._example(f"failure:{failure.lower()}", name, gid)
        if typ == ev.CYCLE:  # a concurrent cycle's "after" includes what was allocated meanwhile: no live set
            return
        if kind != ev.FULL:
            if self._run.count:
                self._end_run()
            if kind == ev.YOUNG:
                if not folded:
                    f.young.add(t, dur)
                if self._young_examples:
                    self._young_examples = self._example("young", name, gid) and self._example("pause", name, gid)
                return
            if kind == ev.DEGENERATED:
                f.degenerated.add(t, dur)
                self._example("degenerated-gc", name, gid)
            self._example("pause", name, gid)
            return
        f.all_full.add(t, dur)
        self._example("any-full", name, gid)
        if self.collector_hint is None and name.startswith("Pause Full GC ("):
            self.collector_hint = "Serial"  # GraalVM native image's words: its Serial GC (HotSpot never says so)
        if after is not None:
            self._live(t, after)
        if cause in REQUESTED or cause in METASPACE:  # findings of their own
            self._end_run()
            return
        f.full.add(t, dur)
        self._example("full-gc", name, gid)
        key = cause or "(no cause logged)"
        if len(f.full_causes) < 20 or key in f.full_causes:
            f.full_causes[key] = f.full_causes.get(key, 0) + 1
        if after is not None and len(f.full_after) < _MAX_FULL_AFTER:
            f.full_after.append((t, after, committed))
        if before is not None and after is not None and before > 0:
            f.full_with_heap += 1
            if (before - after) / before < LOW_FREED_FRACTION:
                f.low_freed.add(t, dur)
        self._run.add(t, dur)

    # -- the compiled folder's share -----------------------------------------------------
    def examples_found(self) -> int:
        """Bit 0: young pauses want no more example lines; bit 1: other pauses neither (then
        :func:`only_counted` collections need nothing else from :meth:`collection`)."""
        have, misses = self.examples.get("pause"), self._misses.get("pause", 0)
        pause_done = (have is not None and len(have) >= EXAMPLES) or misses >= EXAMPLE_MISSES
        return int(not self._young_examples) | int(pause_done) << 1

    def folded(self, events: int, pause_points: Sequence[float], heap_points: Sequence[float], timeline_room: int,
               young: Tally) -> None:
        """What the compiled folder did of :meth:`collection` for one block: the collections it
        only counted, the timeline points of all in order (pauses: t, ms; heap: t, before
        (NaN if not logged), after), the room left, and the tally of every young pause so far."""
        self.e.events += events
        self.pause_t.extend(pause_points[0::2])
        self.pause_ms.extend(pause_points[1::2])
        self.heap_t.extend(heap_points[0::3])
        self.heap_before_mb.extend(heap_points[1::3])
        self.heap_mb.extend(heap_points[2::3])
        self.timeline_room = timeline_room
        self.e.young = young

    def _end_run(self) -> None:
        run = self._run
        if not run.count:
            return
        f = self.e
        f.longest_full_run = max(f.longest_full_run, run.count)
        if run.count >= CONSECUTIVE_FULL_MIN:
            f.full_runs += 1
            f.consecutive.merge(run)
        self._run = Tally()

    def finish(self) -> None:
        """The end of the log: close the open run of full collections, let go of the text."""
        self._end_run()
        self._text = self._prev = ""
        self._raw = None

    def _live(self, t: float | None, after_mb: float) -> None:
        if t is None:
            return
        f = self.e
        self._live_skip += 1
        if self._live_skip < f.live_stride:
            return
        self._live_skip = 0
        f.live_t.append(t)
        f.live_mb.append(after_mb)
        if len(f.live_t) >= LIVE_POINTS:  # thin: keep every other point, take every other from now on
            f.live_t, f.live_mb = f.live_t[::2], f.live_mb[::2]
            f.live_stride *= 2
