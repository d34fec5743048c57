"""The compiled event folder for unified G1, Parallel, Serial and ZGC logs (``linefold.c``).

Why: a Parallel or Serial log has a pause line and a young-generation line every ~900
bytes, a ZGC log 16 event and heap-table lines per cycle, and each cost about 6 µs of
Python (finding the line, the regex, the stamp, the event tuple, folding it into the
summary): 85 and 46 MB/s of CPU. A G1 log has a pause every ~4.5 kB, 105 530 of them in
the 474 MB bench log, where the Python parser and the findings' fold per event made most of
the command's 2.4 s of CPU. The C folder reads those lines (G1 also: its cycle lines,
concurrent phases and "To-space exhausted") and folds them straight into the summary's
figures with the same arithmetic in the same order (a float is parsed with a correctly
rounded ``strtod``, as Python's ``float``), so no Python runs per line. It also does the
findings' share of a collection that the fold only counts (timelines, the young tally,
:func:`findings_fold.only_counted`); the others go to :meth:`LogFold.collection` as
records. Header lines (no GC id) are handed to the Python parser as before.

It accepts only what it can read exactly as the Python parser does; anything else (another
collector, safepoint, stall or trigger lines, a decimal comma, an uncommon decorator, a
line it cannot place) makes it give up, and :func:`fold` returns False: the caller then
reads the whole log with the Python parser, so the result is the Python parser's either
way (tests/gclog/test_linefold.py compares both on the shared corpus). Switched off with
the pre-filter (``JVMLAB_GCLOG_NATIVE=0``) or without a C compiler.
"""

from __future__ import annotations

import ctypes
import functools
import math
import mmap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from jvmlab.gclog import events as ev
from jvmlab.gclog import linescan
from jvmlab.gclog.events import GcEvent
from jvmlab.gclog.figures import type_label
from jvmlab.gclog.findings_fold import MAX_EVENTS, LogFold, only_counted
from jvmlab.gclog.findings_scan import CPU_MIN_REAL_S, Tally
from jvmlab.gclog.reader import iter_chunks
from jvmlab.gclog.summary import LogSummary
from jvmlab.gclog.unified import UnifiedParser
from jvmlab.gclog.unified_names import cause_and_failure, collector_of_pause, pause_kind
from jvmlab.native import build

SOURCE = Path(__file__).with_name("linefold.c")
_NAMES, _NAME_CHARS, _CAUSES, _GENS, _LINES = 64, 200, 64, 17, 4096
_COLLECTOR_NAMES = {1: "Parallel", 2: "Serial", 3: "ZGC", 4: "G1"}
_COLLECTOR_CODES = {None: 0, "Parallel": 1, "Serial": 2, "ZGC": 3, "G1": 4}  # any other: 5
_SETTINGS = ("heap_min_mb", "heap_max_mb", "heap_soft_max_mb")  # linefold.c's setting_mb order
_MIN_LINE_BYTES = 20  # "[0s] GC(0) Pause X 1ms\n" is longer: bounds the event records of one block
_REC = 8  # doubles per event record (linefold.c's REC)
_G1_CYCLE = -1000  # record code of a G1 cycle: _G1_CYCLE - its name's index (linefold.c's G1_CYCLE)
_EXHAUSTED = "to-space exhausted"  # failure 0: linefold.c's "To-space exhausted" lines name it

_D, _I = ctypes.c_double, ctypes.c_longlong


class _Table(ctypes.Structure):
    """``table_t`` of linefold.c."""

    _fields_ = [("n", _I), ("len", _I * _NAMES), ("val", _I * _NAMES), ("seen", _I * _NAMES),
                ("text", (ctypes.c_char * _NAME_CHARS) * _NAMES)]


class _State(ctypes.Structure):
    """``fold_t`` of linefold.c, field for field (its size is checked on load)."""

    _fields_ = [
        *((n, _D) for n in ("offset", "last_raw", "first", "last", "done_s", "run_first", "run_offset")),
        *((n, _I) for n in ("runs", "bases_jvm", "bases_first", "expect_restart", "uptime", "timer_idx",
                            "collector", "py_collector", "generational", "max_gid", "n_gen")),
        ("gen_gid", _I * _GENS), ("gen_b", _D * _GENS), ("gen_a", _D * _GENS),
        ("names", _Table), ("causes", _Table), ("phases", _Table),
        ("n_tab", _I), ("tab_gid", _I * _GENS), ("tab", (_D * 4) * _GENS),
        ("n_st", _I), ("st_gid", _I * _GENS), ("st_t", _D * _GENS),
        ("setting_seen", _I * 4), ("cycle_seen", _I), ("setting_mb", _D * 4),
        ("setting_seq", _I * 4), ("header_seen", _I * 4), ("header_seq", _I * 4), ("chunk_no", _I),
        ("cycles_count", _I), ("phase_count", _I * _NAMES),
        ("cycles_total", _D), ("phase_total", _D * _NAMES), ("phase_max", _D * _NAMES),
        ("p_count", _I), ("p_total", _D), ("p_max", _D), ("p_min", _D),
        ("kind_count", _I * 8), ("kind_total", _D * 8), ("first_pause_t", _D), ("last_pause_t", _D),
        ("ha_n", _I), ("ha_total", _D), ("ha_lo", _D), ("ha_hi", _D),
        *((n, _D) for n in ("allocated", "promoted", "last_ha", "alloc_t0", "alloc_t1")),
        ("promo_known", _I),
        *((n, _D) for n in ("f_first", "f_last", "committed_max", "used_max", "after_max", "young_max", "old_max")),
        ("lp_name", _I), ("lp_gid", _I),
        *((n, _D) for n in ("lp_t", "lp_dur", "lp_before", "lp_after", "lp_committed", "lp_yb", "lp_ya")),
        ("cause_count", _I * _CAUSES), ("cause_total", _D * _CAUSES), ("cause_max", _D * _CAUSES),
        ("fail_count", _I * _CAUSES), ("fail_total", _D * _CAUSES), ("fail_max", _D * _CAUSES),
        ("cycles", _Table), ("n_exh", _I), ("exh_gid", _I * _GENS), ("lp_exh", _I), ("eden_side", _I),
        ("cpu_min_real", _D), *((n, _I) for n in ("cpu_short", "workers_seen", "workers_n", "workers_m")),
        *((n, _I) for n in ("fast", "last_full", "ev_total", "max_events", "tl_room", "fast_events", "rec_cap",
                            "yt_count")),
        *((n, _D) for n in ("yt_total", "yt_worst", "yt_first", "yt_last")),
        *((n, ctypes.POINTER(_D)) for n in ("pd", "tlp", "tlh")), *((n, _I) for n in ("n_pd", "n_tlp", "n_tlh")),
        ("n_durs", _I), ("side_len", _I), ("plain_at", _I * _LINES), ("plain_end", _I * _LINES), ("gc0", _I * _LINES),
    ]


_CLASSIFY = ctypes.CFUNCTYPE(_I, _I, ctypes.c_void_p, _I)
_PAUSE_NAME, _CAUSE, _PHASE, _CYCLE = 0, 1, 2, 3  # what the C side asks about
_PLAIN_BIT = 26  # of a pause name's info or a cause's index: findings_fold.only_counted (linefold.c's PLAIN_BIT)


class _Decline(Exception):
    """The folder met a line it does not read exactly as the Python parser: use that."""


@functools.cache
def _native() -> tuple[Any, Any] | None:
    path = build(SOURCE, "gclog", "linefold.so", [["-shared", "-fPIC"]])
    if path is None:
        return None
    try:
        lib = ctypes.CDLL(str(path))
        init, fold, size = lib.jvmlab_fold_init, lib.jvmlab_gclog_fold, lib.jvmlab_fold_size
    except (OSError, AttributeError):
        return None
    size.restype = ctypes.c_long
    if size() != ctypes.sizeof(_State) or ev.PAUSE_KINDS.index(ev.YOUNG) != 0 or ev.PAUSE_KINDS.index(ev.FULL) != 2:
        return None  # linefold.c's KIND_YOUNG, KIND_FULL
    init.restype = None
    init.argtypes = [ctypes.POINTER(_State)]
    fold.restype = ctypes.c_long
    fold.argtypes = [ctypes.POINTER(_State), ctypes.c_char_p, ctypes.c_long, ctypes.c_char_p,
                     ctypes.POINTER(_D), ctypes.c_long, _CLASSIFY, ctypes.c_char_p]
    return init, fold


def _untouched(kind: Any, n: int) -> Any:
    """A ctypes array of ``n`` ``kind`` in fresh anonymous memory: sized for the worst case
    (a line every 20 bytes), it costs resident memory only where the folder writes."""
    return (kind * n).from_buffer(mmap.mmap(-1, max(1, n * ctypes.sizeof(kind))))


def _opt(value: float) -> float | None:
    return None if math.isnan(value) else value


class _Folder:
    """One log's C state, the pause names and causes it has met, and the ``keep`` function
    that iter_chunks calls with each raw block."""

    def __init__(self, init: Any, fold: Any, add_durations: Callable[[Sequence[float]], None], facts: LogFold) -> None:
        self.state = _State()
        init(ctypes.byref(self.state))
        self.state.cpu_min_real = CPU_MIN_REAL_S  # shorter pauses' CPU-time lines are only counted
        self.state.max_events = MAX_EVENTS
        self._fold = fold
        self._add = add_durations
        self._points: list[Any] = []  # the pauses' durations, the pause and heap timeline points
        self._facts = facts
        self.words: list[tuple[str, str, str | None]] = []  # per name index: (what, kind, cause)
        self._events: list[tuple[str, str, str | None, str | None]] = []  # per name index: name, kind, cause, failure
        self.causes: list[str] = []
        self.failures: list[str] = [_EXHAUSTED]
        self.phases: list[str] = []
        self.cycles: list[str] = []  # G1's cycle names
        self._out = ctypes.create_string_buffer(0)
        self._side = ctypes.create_string_buffer(0)
        self._durs = (_D * 0)()
        self._classify = _CLASSIFY(self._classify_name)  # kept referenced while C may call it

    def _index(self, table: list[str], value: str) -> int:
        if value not in table:
            if len(table) >= _CAUSES or len(table) >= 255:
                raise ValueError("too many distinct names")
            table.append(value)
        return table.index(value)

    def _classify_name(self, asked: int, ptr: int | None, length: int) -> int:
        """Called from C once per distinct pause name (its kind, cause, failure, collector,
        packed), cycle cause or concurrent phase name (its index)."""
        try:
            if ptr is None:
                return -1
            what = ctypes.string_at(ptr, length).decode("ascii")
            if asked == _CAUSE:
                plain = only_counted(ev.CYCLE, "concurrent", what, None)
                return self._index(self.causes, what) | int(plain) << _PLAIN_BIT
            if asked == _PHASE:
                self.phases.append(what)
                return len(self.phases) - 1
            if asked == _CYCLE:
                self.cycles.append(what)
                return len(self.cycles) - 1
            kind = pause_kind(what)
            cause, failure = cause_and_failure(what)
            collector = collector_of_pause(what)
            caused = bool(cause) and kind in ev.COLLECTION_STARTS
            info = ev.PAUSE_KINDS.index(kind)
            if caused:
                info |= (self._index(self.causes, str(cause)) + 1) << 3
            if failure:
                info |= (self._index(self.failures, failure) + 1) << 11
            info |= _COLLECTOR_CODES.get(collector, 5) << 19
            info |= int("(Young)" in what or "(Old)" in what) << 23
            info |= int(caused) << 25
            info |= int(only_counted(ev.PAUSE, kind, cause, failure)) << _PLAIN_BIT
            self.words.append((what, kind, cause))
            self._events.append(("Pause " + what, kind, cause, failure))
            return info
        except Exception:  # noqa: BLE001 - any surprise: let the Python parser read the log
            return -1

    def keep(self, block: bytes, length: int) -> bytes:
        s, facts = self.state, self._facts
        if len(self._out) < length:
            records = length // _MIN_LINE_BYTES + 16
            self._out, self._side = _untouched(ctypes.c_char, length), _untouched(ctypes.c_char, length)
            self._durs = _untouched(_D, _REC * records)
            self._points = [_untouched(_D, records), _untouched(_D, 2 * records), _untouched(_D, 3 * records)]
            s.pd, s.tlp, s.tlh = (ctypes.cast(a, ctypes.POINTER(_D)) for a in self._points)
        s.fast, s.tl_room = facts.examples_found(), facts.timeline_room
        written = self._fold(ctypes.byref(self.state), block, length, self._out, self._durs, len(self._durs),
                             self._classify, self._side)
        if written < 0:
            raise _Decline
        # the findings read the lines the folder set aside for them (it gives up on a \r), and
        # look up their example lines in the raw block
        facts.text(ctypes.string_at(self._side, s.side_len).decode("ascii"), (block, length), s.cpu_short,
                   (s.workers_n, s.workers_m) if s.workers_seen else None)
        pd, tlp, tlh = (memoryview(a).cast("B").cast("d") for a in self._points)
        self._add(pd[: s.n_pd].tolist())
        young = Tally(s.yt_count, s.yt_total, _opt(s.yt_worst), _opt(s.yt_first), _opt(s.yt_last), s.yt_count > 0)
        facts.folded(s.fast_events, tlp[: 2 * s.n_tlp].tolist(), tlh[: 3 * s.n_tlh].tolist(), s.tl_room, young)
        self._records(memoryview(self._durs).cast("B").cast("d")[: _REC * s.n_durs].tolist())
        return ctypes.string_at(self._out, written)

    def _records(self, recs: Sequence[float]) -> None:
        """The pauses and cycles the findings' fold does more with than count into it."""
        collection, names, causes = self._facts.collection, self._events, self.causes
        pause, cycle = ev.PAUSE, ev.CYCLE
        for i in range(0, len(recs), _REC):
            code, t, dur, before, after, committed, gid, exhausted = recs[i: i + _REC]
            # NaN (not given) becomes None: NaN != NaN
            if code >= 0:
                name, kind, cause, failure = names[int(code)]
                collection(pause, kind, name, cause, _EXHAUSTED if exhausted else failure, t, dur,
                           before if before == before else None, after if after == after else None,
                           committed if committed == committed else None, int(gid), True)
            elif code <= _G1_CYCLE:
                collection(cycle, "concurrent", self.cycles[int(_G1_CYCLE - code)], None, None, t, dur, None, None,
                           None, int(gid), True)
            else:
                collection(cycle, "concurrent", "Garbage Collection", causes[int(-code) - 2] if code <= -2 else None,
                           None, t, dur if dur == dur else None, before if before == before else None,
                           after if after == after else None, committed if committed == committed else None, int(gid),
                           True)

    def finish(self, summary: LogSummary, parser: UnifiedParser) -> None:
        """Move the folded figures into ``summary`` and the clock and collector into ``parser``."""
        s = self.state
        for i, kind in enumerate(ev.PAUSE_KINDS):
            stat = summary.by_kind[kind]
            stat.count, stat.total_ms = s.kind_count[i], s.kind_total[i]
        summary.first_pause_t, summary.last_pause_t = _opt(s.first_pause_t), _opt(s.last_pause_t)
        ha = summary.heap_after
        ha.n, ha.total, ha.lo, ha.hi = s.ha_n, s.ha_total, s.ha_lo, s.ha_hi
        summary.allocated_mb, summary.promoted_mb = s.allocated, s.promoted
        summary.promotion_known = bool(s.promo_known)
        summary._last_heap_after, summary._alloc_t0, summary._alloc_t1 = (
            _opt(s.last_ha), _opt(s.alloc_t0), _opt(s.alloc_t1))
        fig = summary.figures
        fig.first_t, fig.last_t = _opt(s.f_first), _opt(s.f_last)
        fig.heap_committed_max, fig.heap_used_max, fig.heap_after_max = (
            _opt(s.committed_max), _opt(s.used_max), _opt(s.after_max))
        fig.young_max, fig.old_max = _opt(s.young_max), _opt(s.old_max)
        for i, cause in enumerate(self.causes):
            if s.cause_count[i]:
                fig.causes[cause] = [s.cause_count[i], s.cause_total[i], s.cause_max[i]]
        for i, failure in enumerate(self.failures):
            if s.fail_count[i]:
                fig.failures[failure] = [s.fail_count[i], s.fail_total[i], s.fail_max[i]]
        for i, (what, kind, why) in enumerate(self.words):
            if s.names.seen[i]:
                fig._seen.add((ev.PAUSE, "Pause " + what, why))
                fig.types.add(f"{ev.PAUSE}:{type_label('Pause ' + what, kind, why)}")
        for i, phase in enumerate(self.phases):
            if s.phases.seen[i]:
                fig.phases[phase] = [s.phase_count[i], s.phase_total[i], s.phase_max[i]]
                fig._seen.add((ev.PHASE, phase, None))
                fig.types.add(f"{ev.PHASE}:{phase}")
        if s.cycle_seen:
            fig.types.add(f"{ev.CYCLE}:Garbage Collection")
        for i, name in enumerate(self.cycles):
            if s.cycles.seen[i]:
                fig._seen.add((ev.CYCLE, name, None))
                fig.types.add(f"{ev.CYCLE}:{name}")
        summary.cycles.count, summary.cycles.total_ms = s.cycles_count, s.cycles_total
        for i, key in enumerate(_SETTINGS):  # the first setting of a kind wins: a header's or a GC line's
            if s.setting_seen[i] and not (s.header_seen[i] and s.header_seq[i] < s.setting_seq[i]):
                summary.heap[key] = s.setting_mb[i]
        if s.lp_name >= 0:
            what, kind, why = self.words[s.lp_name]
            fig.last_pause = GcEvent(ev.PAUSE, kind, _opt(s.lp_t), _opt(s.lp_dur), "Pause " + what, why, s.lp_gid,
                                     _opt(s.lp_before), _opt(s.lp_after), _opt(s.lp_committed), _opt(s.lp_yb),
                                     _opt(s.lp_ya), _EXHAUSTED if s.lp_exh else cause_and_failure(what)[1])
        clock = parser.clock
        clock.offset, clock.last_raw, clock.first, clock.last = s.offset, _opt(s.last_raw), _opt(s.first), _opt(s.last)
        clock.runs, clock._done_s, clock._run_first, clock._run_offset = (
            s.runs, s.done_s, _opt(s.run_first), s.run_offset)
        clock._bases = ["jvm_start"] * s.bases_jvm + ["first_event"] * s.bases_first
        clock.uptime, clock.expect_restart = bool(s.uptime), bool(s.expect_restart)
        if s.collector in _COLLECTOR_NAMES:
            parser.collector = _COLLECTOR_NAMES[s.collector]
        parser.generational = parser.generational or bool(s.generational)


def fold(paths: list[Path], summary: LogSummary, parser: UnifiedParser) -> bool:
    """Read a unified log with the C folder into ``summary`` (fresh) and ``parser`` (fresh).
    False when it is not available or gave up: both are then spoilt, start again."""
    if linescan.prefilter() is None:  # no compiler, or switched off
        return False
    native = _native()
    if native is None:
        return False
    folder = _Folder(*native, summary.pauses.add_many, summary.fold)
    try:
        for item in parser.parse(c for p in paths for c in iter_chunks(p, keep=folder.keep)):
            if isinstance(item, GcEvent):
                return False  # a line without a GC id made an event: the Python parser's log
            summary.add(item)
    except _Decline:
        return False
    folder.finish(summary, parser)
    summary.fold.finish()
    return True
