"""JDK 9+ unified logging (``-Xlog:gc`` and ``-Xlog:gc*``), every collector, any decorators.

Speed comes from one compiled multi-line regex that picks out, in C, only the lines that
carry events or header facts (unified_scan.py); everything else is skipped without a
Python-level loop. With a C compiler, linescan.c drops most other lines even before that.
Lines that carry no decorator block at all are counted as not understood (a few kept).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from jvmlab.gclog import events as ev
from jvmlab.gclog.clock import MonotonicClock
from jvmlab.gclog.decorators import SIZE_MB, Timer, decimal, size_mb, transition_mb
from jvmlab.gclog.events import GcEvent, LogInfo
from jvmlab.gclog.state import SAMPLE_LIMIT, ParserState
from jvmlab.gclog.triggers import trigger_cause
from jvmlab.gclog.unified_names import bare_phase, cause_and_failure, collector_of_pause, pause_kind
from jvmlab.gclog.unified_scan import (  # which lines to read; _GC_LINE and plain_matches also for the bench
    _BAD_LINE,
    _GC_LINE,
    _NO_SAFEPOINT_LINES,
    _RECURRING_LINES,
    _SAFEPOINT_NEEDLES,
    _SHENANDOAH_ONLY,
    _ZGC_NEEDLES,
    header_spans,
    plain_matches,
)
from jvmlab.gclog.zgc_table import CycleTables, setting

_PENDING_LIMIT = 16
_WORDS_LIMIT = 512  # distinct pause names remembered (a damaged log cannot grow memory)
_NO_YOUNG: tuple[None, None] = (None, None)
# Collectors whose concurrent cycles have lines of their own: a pause is never part of a
# cycle made of phases (Shenandoah, CMS, an unknown collector: it may be).
_EXPLICIT_CYCLES = ("G1", "ZGC", "Parallel", "Serial", "Epsilon")
_OWN_CYCLE_LINES = ("G1", "ZGC")

_NUM = r"\d+(?:[.,]\d+)?"
_PAUSE = re.compile(
    rf"^(?:(?P<gen>[yYO]): )?Pause (?P<what>.*?)"
    rf"(?: (?P<b>{_NUM})(?P<bu>[BKMGT])->(?P<a>{_NUM})(?P<au>[BKMGT])"
    rf"(?:\((?P<c>{_NUM})(?P<cu>[BKMGT])\))?)? (?P<dur>{_NUM})ms$")
_CONC = re.compile(rf"^(?:[yYO]: )?Concurrent (?P<what>.*?)"
                   rf"(?: (?P<b>{_NUM})(?P<bu>[BKMGT])->(?P<a>{_NUM})(?P<au>[BKMGT])"
                   rf"(?:\((?P<c>{_NUM})(?P<cu>[BKMGT])\))?.*?)? (?P<dur>{_NUM})ms$")
_ZCOLL = re.compile(
    rf"^(?P<what>Garbage|Minor|Major) Collection \((?P<cause>.*?)\)"
    rf"(?: (?P<b>{_NUM})M\(\d+%\)->(?P<a>{_NUM})M\(\d+%\))?(?: (?P<dur>{_NUM})s)?$")
_GEN = re.compile(
    rf"^(?:PSYoungGen|DefNew|ParNew): (?P<b>{_NUM})(?P<bu>[BKMGT])(?:\({_NUM}[BKMGT]\))?->"
    rf"(?P<a>{_NUM})(?P<au>[BKMGT])")
_STALL = re.compile(rf"^(?P<what>Allocation|Relocation) Stall \((?P<who>.*)\) (?P<dur>{_NUM})ms$")
_SAFEPOINT_17 = re.compile(r'^Safepoint "(?P<op>[^"]*)".*Total: (?P<ns>\d+) ns')
_SAFEPOINT_9 = re.compile(rf"^Total time for which application threads were stopped: (?P<s>{_NUM}) seconds")
_PACING = re.compile(r"^[ \t]*(?P<ms>\d+) of +\d+ ms ")
_GEN_COLLECTORS = {"P": "Parallel", "D": "Serial", "N": "CMS"}  # PSYoungGen:, DefNew:, ParNew:

_COLLECTORS = (
    ("G1", "G1"), ("Parallel", "Parallel"), ("Serial", "Serial"), ("Shenandoah", "Shenandoah"),
    ("The Z Garbage Collector", "ZGC"), ("Concurrent Mark Sweep", "CMS"), ("Epsilon", "Epsilon"),
)


class UnifiedParser(ParserState):
    """Streaming parser: feed chunks, get events; counts what it could not read."""

    def __init__(self) -> None:
        super().__init__()
        self.timer = Timer()
        self._gen: dict[int, tuple[float | None, float | None]] = {}
        # Collectors whose cycles are only runs of "Concurrent ..." phases (Shenandoah, CMS):
        # gid -> [first t, concurrent ms, explicit cycle line, has concurrent phases,
        #         heap (before, after, capacity) MB of its last phase line that logs one]
        self._conc: dict[int, list[Any]] = {}
        self._starts: dict[int, float | None] = {}
        self._exhausted: dict[int, bool] = {}
        self._no_safepoints = False
        self._max_gid = 0
        self._n_pauses = 0
        self._n_safepoints = 0
        self._recurring_cache: dict[tuple[str, bool], tuple[tuple[str, re.Pattern[str]], ...]] = {}
        self._tables = CycleTables()
        self._settings_seen: set[str] = set()
        # Shenandoah: the cause of the last "Trigger:" line, for the next GC id after _last_gid.
        self._trigger: str | None = None
        self._trigger_after: int | None = None
        self._last_gid: int | None = None
        self._causes: dict[int, str] = {}
        self._words: dict[str, tuple[str, str | None, str | None, str | None, bool, bool]] = {}
        self._extra: list[GcEvent | LogInfo] = []  # items a line adds besides its own event

    @property
    def clock(self) -> MonotonicClock:
        return self.timer.clock

    def parse(self, chunks: Iterable[str]) -> Iterator[GcEvent | LogInfo]:
        extra = self._extra
        for chunk in chunks:
            self._count_unparsed(chunk)
            spans = header_spans(chunk)
            if len(spans) > 1:
                self._no_safepoints = False  # a JVM (re)starts here: its logging may differ
            plain = plain_matches(chunk, self._recurring(len(spans) > 1), spans)
            pauses_before, safepoints_before = self._n_pauses, self._n_safepoints
            if plain:
                found = list(_GC_LINE.finditer(chunk))
                found.extend(m for _, m in plain)
                found.sort(key=re.Match.start)
                matches: Iterable[re.Match[str]] = found
            else:
                matches = _GC_LINE.finditer(chunk)
            for match in matches:
                start = match.start()
                line_start = chunk.rfind("\n", 0, start) + 1
                gid = None
                if match.re is _GC_LINE:
                    at = chunk.rfind("GC(", line_start, start)
                    id_s = chunk[at + 3:start]
                    if at < 0 or not id_s.isdigit():
                        continue
                    gid = int(id_s)
                    start = at
                deco = chunk[line_start:start].rstrip(" \t")
                if deco and deco[0] == "[" and deco[-1] == "]":
                    try:
                        msg = match["m"].rstrip()
                        if not msg:
                            continue
                        if gid is None:
                            yield from self._plain(deco, msg)
                            continue
                        event = self._line(msg, deco, gid)
                        if event is not None:
                            yield event
                    except ValueError:  # a damaged number: count the line, keep going
                        self.unparsed += 1
                    if extra:
                        yield from extra
                        extra.clear()
            if self._n_pauses > pauses_before and self._n_safepoints == safepoints_before and len(spans) == 1:
                # Pauses are safepoints: a chunk with pauses and no safepoint line means this
                # JVM does not log safepoints; stop looking (two passes per chunk) until a restart.
                self._no_safepoints = True
        yield from self._flush_cycles(all_=True)

    def _recurring(self, restart: bool) -> tuple[tuple[str, re.Pattern[str]], ...]:
        """The recurring line kinds this log can contain: stalls only with ZGC, pacing only
        with Shenandoah, safepoints only if logged; everything where a JVM (re)starts."""
        c = self.collector
        if restart or c is None:
            return _RECURRING_LINES if not self._no_safepoints or restart else _NO_SAFEPOINT_LINES
        key = (c, self._no_safepoints)
        chosen = self._recurring_cache.get(key)
        if chosen is None:
            chosen = self._recurring_cache[key] = tuple(
                (n, rx) for n, rx in _RECURRING_LINES
                if not (n in _ZGC_NEEDLES and c != "ZGC") and not (n in _SHENANDOAH_ONLY and c != "Shenandoah")
                and not (self._no_safepoints and n in _SAFEPOINT_NEEDLES))
        return chosen

    def _count_unparsed(self, chunk: str) -> None:
        bad = len(_BAD_LINE.findall(chunk))
        if chunk and chunk[0] not in "[\n":
            bad += 1
        if bad <= 0:
            return
        self.unparsed += bad
        if len(self.samples) < SAMPLE_LIMIT:
            for line in chunk.split("\n"):
                if line and not line.startswith("["):
                    self.samples.append(line[:200])
                    if len(self.samples) >= SAMPLE_LIMIT:
                        break

    def _line(self, msg: str, deco: str, gid: int) -> GcEvent | None:
        """One line with a GC id: its event, if it makes one (a plain method, not a generator:
        this runs once per event line; the rare extra items go to ``self._extra``)."""
        first = msg[0]
        if self._trigger is not None and gid != self._trigger_after:
            self._causes[gid], self._trigger = self._trigger, None
            if len(self._causes) > 4 * _PENDING_LIMIT:  # popped when the cycle is, 16 ids behind
                self._causes.pop(next(iter(self._causes)))
        self._last_gid = gid
        if gid < self._max_gid:
            if gid == 0:
                self.clock.expect_restart = True  # GC ids start again: a new JVM run
            self._max_gid = gid
        elif gid > self._max_gid:
            self._max_gid = gid
        if msg[:2] in ("y:", "Y:", "O:"):
            self.generational = True
        event: GcEvent | None = None
        if "Pause " in msg[:9]:
            event = self._pause(msg, deco, gid)
        elif "Concurrent " in msg[:14]:
            if msg.endswith("ms"):
                event = self._concurrent(msg, deco, gid)
        elif first == "T":
            self._exhausted[gid] = True  # G1 JDK 9-17: "To-space exhausted" before its pause line
            if len(self._exhausted) > _PENDING_LIMIT:
                self._exhausted.pop(next(iter(self._exhausted)))
        elif first in "GM" and "Collection" in msg[:20]:
            event = self._zgc(deco, gid, msg)
        elif first in "PDN" and msg.startswith(("PSYoungGen", "DefNew", "ParNew")):
            gm = _GEN.match(msg)
            if gm is not None:
                if self.collector is None:
                    self.collector = _GEN_COLLECTORS[msg[0]]
                self._gen[gid] = (size_mb(gm["b"], gm["bu"]), size_mb(gm["a"], gm["au"]))
                if len(self._gen) > _PENDING_LIMIT:
                    self._gen.pop(next(iter(self._gen)))
        elif "Capacity: " in msg or "Used: " in msg:
            self._extra.extend(self._zgc_heap(gid, msg))
        if len(self._conc) > _PENDING_LIMIT:
            self._extra.extend(self._flush_cycles())
        return event

    def _pause(self, msg: str, deco: str, gid: int) -> GcEvent | None:
        pm = _PAUSE.match(msg)
        if pm is None:
            return None
        t = self.timer(deco)
        what = pm["what"]
        words = self._words.get(what)
        if words is None:  # a pause name's kind, cause, failure and collector, read once per name
            if len(self._words) > _WORDS_LIMIT:
                self._words.clear()
            words = self._words[what] = (pause_kind(what), *cause_and_failure(what), collector_of_pause(what),
                                         "(Young)" in what or "(Old)" in what,
                                         what.startswith(("Full", "Degenerated")))
        kind, cause, failure, collector, gen_mode, stw_gc = words
        if gen_mode:
            self.generational = True  # Shenandoah generational mode names its cycles
        young = self._gen.pop(gid, _NO_YOUNG) if self._gen else _NO_YOUNG
        if cause is None and stw_gc and self._causes and gid not in self._conc:
            cause = self._causes.pop(gid, None)  # Shenandoah: a stop-the-world GC outside a cycle
        if self._exhausted and self._exhausted.pop(gid, False):
            failure = "to-space exhausted"
        self._n_pauses += 1
        dur = decimal(pm["dur"])
        if t is not None:
            self.clock.started(t - dur / 1000.0)  # stamped at its end
        if self.collector is None:
            self.collector = collector
        event = GcEvent(
            ev.PAUSE, kind, t, dur,
            f"{pm['gen']}: Pause {what}" if pm["gen"] else "Pause " + what,
            cause, gid,
            *transition_mb(pm), young[0], young[1], failure)
        if self.collector not in _EXPLICIT_CYCLES:  # cycles seen as runs of phases: the pause is part
            self._note_phase(gid, t, None)
        return event

    def _concurrent(self, msg: str, deco: str, gid: int) -> GcEvent | None:
        cm = _CONC.match(msg)
        if cm is None:
            return None
        what = cm["what"]
        if ":" in what:  # "Concurrent refinement times: ... 0.00ms": figures, not a phase
            return None
        t = self.timer(deco)
        ms = decimal(cm["dur"])
        if t is not None:
            self.clock.started(t - ms / 1000.0)
        if what.startswith(("Cycle", "Mark Cycle", "Undo Cycle")) and msg[:2] not in ("y:", "Y:", "O:"):
            self._explicit(gid)
            self.collector = self.collector or "G1"
            return GcEvent(ev.CYCLE, "concurrent", t, ms, "Concurrent " + what, None, gid)
        if self.collector not in _OWN_CYCLE_LINES:  # G1 and ZGC log their cycles: no cycle from phases
            self._note_phase(gid, t, ms)
            if cm["a"] is not None:  # Shenandoah: "Concurrent cleanup 15M->11M(64M)", the cycle's heap
                self._conc[gid][4] = transition_mb(cm)
        return GcEvent(ev.PHASE, "concurrent", t, ms, msg[: cm.start("what")] + bare_phase(what), None, gid)

    def _zgc(self, deco: str, gid: int, msg: str) -> GcEvent | None:
        zm = _ZCOLL.match(msg)
        if zm is None:
            return None
        t = self.timer(deco)
        self.collector = "ZGC"
        if zm["what"] != "Garbage":
            self.generational = True
        if zm["b"] is None and zm["dur"] is None:
            self._starts[gid] = t  # the start line of a detailed log
            if len(self._starts) > _PENDING_LIMIT:
                self._starts.pop(next(iter(self._starts)))
            return None
        self._explicit(gid)
        start = self._starts.pop(gid, None)
        committed, before, after, peak = self._tables.take(gid)
        if zm["dur"] is not None:
            dur: float | None = decimal(zm["dur"]) * 1000.0
            if t is not None:
                self.clock.started(t - decimal(zm["dur"]))
        elif start is not None and t is not None:
            dur = (t - start) * 1000.0
        else:
            dur = None
        kind = "concurrent" if zm["what"] == "Garbage" else zm["what"].lower()
        if zm["b"] is not None:
            before, after = decimal(zm["b"]), decimal(zm["a"])
        return GcEvent(ev.CYCLE, kind, t, dur, f"{zm['what']} Collection", zm["cause"], gid,
                       before, after, committed, heap_peak_mb=peak)

    def _zgc_heap(self, gid: int, msg: str) -> Iterator[LogInfo]:
        """A row of ZGC's heap table, or a capacity setting (the first of each kind is kept)."""
        if self._tables.row(gid, msg):
            return
        found = setting(msg.lstrip())
        if found is not None and found[0] not in self._settings_seen:
            self._settings_seen.add(found[0])
            yield LogInfo(*found)

    def _plain(self, deco: str, msg: str) -> Iterator[GcEvent | LogInfo]:
        first = msg[0]
        if first == "U":
            if (msg.startswith("Using ") and self.collector is None) or msg.startswith("Using The Z"):
                for needle, name in _COLLECTORS:
                    if msg.startswith(needle, 6):
                        self.collector = name
                        yield LogInfo("collector", name)
                        break
        elif first == "S":
            sm = _SAFEPOINT_17.match(msg)
            if sm is not None:
                self._n_safepoints += 1
                yield GcEvent(ev.SAFEPOINT, sm["op"], self.timer(deco), int(sm["ns"]) / 1e6, sm["op"])
        elif first == "T":
            if msg.startswith("Trigger"):
                self._trigger, self._trigger_after = trigger_cause(msg), self._last_gid
                return
            sm = _SAFEPOINT_9.match(msg)
            if sm is not None:
                self._n_safepoints += 1
                yield GcEvent(ev.SAFEPOINT, "safepoint", self.timer(deco), decimal(sm["s"]) * 1000.0)
        elif first == "A" or first == "R":
            am = _STALL.match(msg)
            if am is not None:  # ZGC: an allocating thread, or one that met an object being moved
                yield GcEvent(ev.STALL, am["what"].lower(), self.timer(deco), decimal(am["dur"]),
                              f"{am['what']} Stall", am["who"])
        elif first == "V":
            yield LogInfo("jvm_version", msg[len("Version: "):].split(" ")[0])
        elif first == "H":
            key, _, value = msg.partition(": ")
            size = re.match(r"(\d+(?:[.,]\d+)?)([BKMGT])", value.strip())
            if size is not None:
                name = {"Heap Min Capacity": "heap_min_mb", "Heap Initial Capacity": "heap_initial_mb",
                        "Heap Max Capacity": "heap_max_mb"}.get(key, "region_mb")
                yield LogInfo(name, decimal(size[1]) * SIZE_MB[size[2]])
        elif first == "M" or first == "I":
            if "Generational" in msg:
                self.generational = True
            elif " Capacity: " in msg:
                yield from self._zgc_heap(-1, msg)
        elif first.isspace() or first.isdigit():
            pm = _PACING.match(msg)
            if pm is not None:
                yield GcEvent(ev.PACING, "pacing", self.timer(deco), float(pm["ms"]), "Allocation pacing")

    def _note_phase(self, gid: int, t: float | None, conc_ms: float | None) -> None:
        entry = self._conc.setdefault(gid, [t, 0.0, False, False, None])
        if conc_ms is not None:
            entry[1] = float(entry[1] or 0.0) + conc_ms
            entry[3] = True

    def _explicit(self, gid: int) -> None:
        self._conc.setdefault(gid, [None, 0.0, True, False, None])[2] = True

    def _flush_cycles(self, all_: bool = False) -> Iterator[GcEvent]:
        """Emit implicit cycles (runs of concurrent phases) once their GC id is old."""
        while self._conc and (all_ or len(self._conc) > _PENDING_LIMIT):
            gid = next(iter(self._conc))
            first_t, conc_ms, explicit, has_conc, heap = self._conc.pop(gid)
            cause = self._causes.pop(gid, None) if self._causes else None
            if has_conc and not explicit and self.collector not in ("G1", "ZGC"):
                yield GcEvent(ev.CYCLE, "concurrent", first_t, conc_ms, "Concurrent phases",
                              cause, gid, *(heap or (None, None, None)))
