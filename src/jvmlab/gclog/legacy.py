"""JDK 6-8 ``-XX:+PrintGCDetails`` logs (G1, CMS/ParNew, Parallel, Serial).

Legacy lines nest (``[GC ... [ParNew: ...] ..., 0.0106 secs]``), spill over several lines
(tenuring distribution, G1 ergonomics) and get concurrent-phase output interleaved in the
middle. The parser cuts concurrent phases out first, then keeps one pending collection
until its closing ``, N secs]`` arrives; G1 heap figures that follow on a detail line are
attached before the event is emitted.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterable, Iterator

from jvmlab.gclog import events as ev
from jvmlab.gclog import legacy_record as rec
from jvmlab.gclog.clock import MonotonicClock
from jvmlab.gclog.decorators import decimal, iso_seconds, transition_mb
from jvmlab.gclog.events import GcEvent, LogInfo
from jvmlab.gclog.state import ParserState
from jvmlab.gclog.triggers import trigger_cause

_PENDING_MAX_LINES = 200
# Lines that continue a young collection's text after its "[ParNew" (tenuring distribution,
# then the ": before->after(size), secs]" tail).
_RESUME = (":", "Desired survivor", "- age")

_STAMP = r"(?:(?P<date>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[.,]\d+[+-]\d{4}): ?)?(?:(?P<up>\d+[.,]\d+): ?)?(?:#\d+: )?"
# "GC" may be glued to the stamp of its first nested record: "[GC2014-03-04T13:59:49.153+0100: 2.573: [ParNew"
# or "[Full GC0.855: [SoftReference, ...".
_START = re.compile(_STAMP + r"\[(?P<what>Full GC|GC)(?P<rest>[ (\-\[:]|$|(?=\d+[.,]\d+: |\d{4}-\d\d-\d\dT))")
_CONC_PHASE = re.compile(
    r"(?:\d{4}-\d\d-\d\dT[\d:.,]+[+-]\d{4}: ?)?(?P<up>\d+[.,]\d+)?:? ?(?:#\d+: )?"
    r"\[(?P<who>CMS-concurrent-|GC concurrent-)(?P<phase>[a-z\-]+?)(?P<start>-start)?"
    r"(?::? (?P<cpu>\d+[.,]\d+)/(?P<wall>\d+[.,]\d+) secs|, (?P<secs>\d+[.,]\d+)(?: secs?)?)?\]"
    r"(?: ?\[Times: [^\]]*\])?")
# JDK 8 Shenandoah: "2.469: [Pause Init Mark (process weakrefs), 3.341 ms]",
# "[Concurrent cleanup 1613M->1361M(1636M), 0.092 ms]"; their ", start]" lines carry no time.
_SHEN_PHASE = re.compile(_STAMP + r"\[(?P<kind>Pause|Concurrent) (?P<what>[^,\]]*?)"
                         r"(?: (?P<b>\d+)(?P<bu>[BKMG])->(?P<a>\d+)(?P<au>[BKMG])\((?P<c>\d+)(?P<cu>[BKMG])\))?"
                         r", (?P<ms>\d+(?:[.,]\d+)?) ms\]")
_SHEN_PACING = re.compile(r"^[ \t]*(?P<ms>\d+) of +\d+ ms ")
_SHEN_START = re.compile(_STAMP + r"\[(?:Pause|Concurrent) [^\]]*, start\]")
_G1_HEAP = re.compile(r"Heap: (?P<b>[\d.,]+)(?P<bu>[BKMG])\([^)]*\)->(?P<a>[\d.,]+)(?P<au>[BKMG])"
                      r"\((?P<c>[\d.,]+)(?P<cu>[BKMG])\)")
_STOPPED = re.compile(_STAMP + r"Total time for which application threads were stopped: (?P<s>\d+[.,]\d+) seconds")
_VM = re.compile(r"^(?:OpenJDK|Java HotSpot\(TM\)).* VM \([^)]*\) for \S+ JRE \((?P<v>[^)]*)\)")
_FLAG = re.compile(r"-XX:(?P<k>InitialHeapSize|MaxHeapSize)=(?P<v>\d+)")
_COLLECTOR_FLAGS = (("UseG1GC", "G1"), ("UseConcMarkSweepGC", "CMS"), ("UseParallelOldGC", "Parallel"),
                    ("UseParallelGC", "Parallel"), ("UseSerialGC", "Serial"), ("UseShenandoahGC", "Shenandoah"))


class LegacyParser(ParserState):
    """Streaming parser for the JDK 6-8 format; same interface as the unified parser."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = MonotonicClock()
        self._pending: list[str] | None = None
        self._pending_t: float | None = None
        # A record whose text another complete record interrupted (its lines, its start):
        # it resumes at its tail (": 1234K->56K(789K), 1.82 secs] ...").
        self._interrupted: tuple[list[str], float | None] | None = None
        self._interrupted_by = 0  # records started since the interruption
        self._held: dict[str, object] | None = None
        self._cycle: list[float | None] | None = None  # [t, summed ms]
        self._trigger: str | None = None  # JDK 8 Shenandoah: why the next cycle starts
        self._cycle_cause: str | None = None

    def parse(self, lines: Iterable[str]) -> Iterator[GcEvent | LogInfo]:
        for line in lines:
            try:
                yield from self._line(line)
            except ValueError:  # a damaged number: count the line, keep going
                self._pending = None
                self.not_understood(line)
        yield from self._release()
        self._abandon_interrupted()
        if self._cycle is not None:
            yield self._cycle_event()

    def _abandon_interrupted(self) -> None:
        """An interrupted record whose tail never came: its lines were not understood."""
        if self._interrupted is not None:
            lines, _ = self._interrupted
            self._interrupted = None
            self.not_understood(lines[0].rstrip(), len(lines))

    def _time(self, date: str | None, up: str | None) -> float | None:
        if up is not None:
            self.clock.uptime = True
            return self.clock(decimal(up))
        return None if date is None else self.clock.wall(iso_seconds(date))

    def _line(self, line: str) -> Iterator[GcEvent | LogInfo]:
        if line.startswith("Trigger"):
            self._trigger = trigger_cause(line)
            if self._trigger is not None:
                return
        if " ms]" in line and ("[Pause " in line or "[Concurrent " in line):
            phase = _SHEN_PHASE.search(line)
            if phase is not None:
                yield from self._shenandoah(phase)
                return
        if line.rstrip().endswith(", start]") and _SHEN_START.search(line):
            return
        if line.rstrip().endswith("<total>") and " ms (" in line:
            pacing = _SHEN_PACING.match(line)
            if pacing is not None:  # Shenandoah's pacing report: the total delay so far
                self.collector = self.collector or "Shenandoah"
                yield GcEvent(ev.PACING, "pacing", self.clock.last, float(pacing["ms"]), "Allocation pacing")
                return
        if "concurrent-" in line:
            if self._pending is None:
                head = _START.match(line)
                if head is not None:  # clock the record's start first: it may begin a new JVM run
                    self._time(head["date"], head["up"])
            line = yield from self._concurrent(line)
        if self._pending is not None:
            yield from self._continue(line)
            return
        if self._interrupted is not None and line.lstrip().startswith(_RESUME):
            yield from self._release()  # the interrupting record is complete
            (self._pending, self._pending_t), self._interrupted = self._interrupted, None
            yield from self._continue(line)
            return
        start = _START.search(line)
        if start is not None and (start.start() == 0 or line[: start.start()].strip()) \
                and not line.startswith("Worker", start.end("what") + 1):
            yield from self._release()
            if self._interrupted is not None:  # the interrupting record starts here; one more ends the wait
                self._interrupted_by += 1
                if self._interrupted_by > 1:
                    self._abandon_interrupted()
            self._pending_t = self._time(start["date"], start["up"])
            self._pending = [line[start.start("what") - 1:]]
            yield from self._continue("", first=True)
            return
        if "Heap: " in line and self._held is not None:
            hm = _G1_HEAP.search(line)
            if hm is not None:
                self._held.update(zip(rec.HEAP_KEYS, transition_mb(hm), strict=True))
            return
        if "Total time for which" in line:
            sm = _STOPPED.search(line)
            if sm is not None:
                yield GcEvent(ev.SAFEPOINT, "safepoint", self._time(sm["date"], sm["up"]), decimal(sm["s"]) * 1000.0)
                return
        if line.startswith(("OpenJDK", "Java HotSpot")):
            vm = _VM.match(line)
            if vm is not None:
                yield LogInfo("jvm_version", vm["v"])
            return
        if line.startswith("CommandLine flags:"):
            yield from self._flags(line)
            return
        self._understood_or_count(line)

    def _understood_or_count(self, line: str) -> None:
        stripped = line.strip()
        if stripped.startswith(":") and "secs]" in stripped:
            self.not_understood(line)  # the tail of a record whose start we never saw
            return
        if (not stripped or line[0] in " \t{}[-:,(" or stripped.startswith(
                ("Desired survivor", "Heap", "Memory:", "Application time", "- age", "par new",
                 "concurrent", "PSYoungGen", "ParOldGen", "PSOldGen", "PSPermGen", "Metaspace",
                 "class space", "eden", "from", "to", "object space", "tenured", "def new",
                 "the space", "garbage-first", "region size", "compacting", "CMS:", "Statistics",
                 "Max", "Before GC", "After GC", "Total Free", "Tree", "Number", "Av.", "Dictionary",
                 "Free", "#", "Java HotSpot", "OpenJDK", "CommandLine", "Total time",
                 # JDK 8 Shenandoah's informational lines
                 "Regions:", "Humongous object", "Max TLAB", "GC threads", "Heuristics ", "Shenandoah ",
                 "Pacer for", "Initialize Shenandoah", "Reference processing", "Soft Max Heap", "Trigger:",
                 "All times are", "all workers", "Cancelling GC", "Failed to allocate", "Good progress",
                 "Bad progress", "Adaptive CSet", "Collectable Garbage", "Using ", "Allocation pacing"))
                or "Application time:" in line
                or "(lvls, us =" in line or line.endswith(" us")  # Shenandoah's exit statistics
                or (" ms (" in line and "%): " in line)
                or "[G1Ergonomics" in line or "[CMS" in line or "secs]" in line):
            return
        self.not_understood(line)

    def _flags(self, line: str) -> Iterator[LogInfo]:
        for key, name in _COLLECTOR_FLAGS:
            if f"+{key}" in line:
                self.collector = name
                yield LogInfo("collector", name)
                break
        for m in _FLAG.finditer(line):
            key = "heap_initial_mb" if m["k"] == "InitialHeapSize" else "heap_max_mb"
            yield LogInfo(key, int(m["v"]) / (1 << 20))

    def _concurrent(self, line: str) -> Generator[GcEvent, None, str]:
        """Cut concurrent-phase records out of a line; returns what is left of it."""
        out: list[str] = []
        pos = 0
        for m in _CONC_PHASE.finditer(line):
            out.append(line[pos:m.start()])
            pos = m.end()
            phase = m["phase"]
            is_start = m["start"] is not None
            self.collector = self.collector or ("CMS" if m["who"].startswith("CMS") else "G1")
            # Printed inside a record that started earlier: out of order, never a restart.
            t = self.clock.peek(decimal(m["up"])) if m["up"] else None
            if is_start and phase in ("mark", "root-region-scan") and (
                    self._cycle is None or phase == "root-region-scan" or self._cycle_started_by != "root-region-scan"):
                # phase is "mark" or "root-region-scan" here: a mark restarts only a cycle a mark started
                if self._cycle is not None and (phase == "root-region-scan" or self._cycle_started_by == "mark"):
                    yield self._cycle_event()
                if self._cycle is None:
                    self._cycle = [t, 0.0]
                    self._cycle_started_by = phase
            secs = m["wall"] or m["secs"]
            if secs is not None:
                ms = decimal(secs) * 1000.0
                yield GcEvent(ev.PHASE, "concurrent", t, ms, m["who"] + phase)
                if self._cycle is not None:
                    self._cycle[1] = (self._cycle[1] or 0.0) + ms
        if pos == 0:
            return line
        out.append(line[pos:])
        return "".join(out)

    _cycle_started_by = ""

    def _shenandoah(self, m: re.Match[str]) -> Iterator[GcEvent]:
        """One JDK 8 Shenandoah phase: a pause, or a concurrent phase of the current cycle
        (a cycle starts with "Concurrent reset" and runs until the next one)."""
        self.collector = self.collector or "Shenandoah"
        t = self._time(m["date"], m["up"])
        ms = decimal(m["ms"])
        what = m["what"]
        if m["kind"] == "Concurrent":
            if what.startswith("reset") and self._cycle is not None:
                yield self._cycle_event()
            if self._cycle is None:
                self._cycle = [t, 0.0]
                self._cycle_cause, self._trigger = self._trigger, None
            self._cycle[1] = (self._cycle[1] or 0.0) + ms
            yield GcEvent(ev.PHASE, "concurrent", t, ms, "Concurrent " + what.split(" (")[0])
            return
        kind = (ev.INITIAL_MARK if what.startswith("Init Mark") else ev.FULL if what.startswith("Full")
                else ev.DEGENERATED if what.startswith("Degenerated") else ev.OTHER)
        if t is not None:
            self.clock.extend(t)
        yield GcEvent(ev.PAUSE, kind, t, ms, f"Pause {what}", None, None, *transition_mb(m))

    def _cycle_event(self) -> GcEvent:
        t, total = self._cycle or (None, None)
        self._cycle = None
        cause, self._cycle_cause = self._cycle_cause, None
        return GcEvent(ev.CYCLE, "concurrent", t, total, "Concurrent cycle", cause)

    def _continue(self, line: str, first: bool = False) -> Iterator[GcEvent | LogInfo]:
        assert self._pending is not None
        if not first:
            stripped = line.lstrip()
            if _START.match(stripped) and not stripped.startswith("["):
                # A new collection began before the pending one closed: keep the pending one
                # open until its tail comes (JDK 8 prints a record inside another one's text).
                self._abandon_interrupted()
                self._interrupted, self._pending = (self._pending, self._pending_t), None
                self._interrupted_by = 0
                yield from self._line(line)
                return
            self._pending.append(line)
        text = "".join(self._pending)
        body = rec.TIMES.sub("", text) if "[Times:" in text else text
        ends = list(rec.END.finditer(body))
        if not ends or not rec.closed(body, ends[-1].end()):
            if len(self._pending) > _PENDING_MAX_LINES:
                self.unparsed += len(self._pending)
                self._pending = None
            return
        self._pending = None
        dur_ms = decimal(ends[-1]["secs"]) * 1000.0
        self._held = self._event_fields(body[1: ends[-1].end()], dur_ms)
        if self._pending_t is not None:
            # Legacy stamps are pause starts: the log's span runs to the end of the last pause.
            self.clock.extend(self._pending_t + dur_ms / 1000.0)
        if self._held.get("heap_before_mb") is not None or body.startswith("[Full GC"):
            yield from self._release()

    def _event_fields(self, body: str, dur_ms: float) -> dict[str, object]:
        """Event fields of a closed record; ``body`` starts at ``GC`` or ``Full GC``."""
        full = body.startswith("Full GC")
        what = body[len("Full GC"):] if full else body[len("GC"):]
        self.collector = self.collector or rec.collector_hint(body)
        kind = rec.kind_of(body, full)
        if kind == ev.YOUNG and rec.no_arrow(body):
            # -verbose:gc CMS prints initial mark and remark as a bare heap size; they alternate.
            kind = ev.REMARK if self._last_cms_mark == ev.INITIAL_MARK else ev.INITIAL_MARK
        if kind in (ev.INITIAL_MARK, ev.REMARK):
            self._last_cms_mark = kind
        fields: dict[str, object] = dict(
            type=ev.PAUSE, kind=kind, t_s=self._pending_t, duration_ms=dur_ms,
            name=("Full GC" if full else "GC") + rec.name_tail(what), cause=rec.cause_of(body), gc_id=None,
            failure=rec.failure_of(body))
        fields.update(rec.heap_fields(body))
        return fields

    _last_cms_mark = ""

    def _release(self) -> Iterator[GcEvent]:
        if self._held is not None:
            held, self._held = self._held, None
            # held: GcEvent's own field names and values, gathered over several lines (a plain dict)
            yield GcEvent(**held)  # type: ignore[arg-type]
