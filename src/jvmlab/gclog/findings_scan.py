"""The facts findings are made of: one fold over a log's typed events, one over its raw lines.

Events (the parser's records, never re-parsed here) give causes, failures, kinds, durations
and heap figures with their uptimes. A few facts the event records do not carry are read
from the raw text with compiled regexes, each match bounded: the CPU times of pauses
(``[Times: user=.. sys=.., real=..]``, ``User=..s Sys=..s Real=..s``), safepoint lines with
their time to reach the safepoint, the GC worker counts and the GC-time-limit message.
Example lines for a finding are looked up afterwards, only for the findings that fired,
and at most :data:`EXAMPLES` per finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jvmlab.gclog import events as ev
from jvmlab.gclog.analyze import iter_events
from jvmlab.gclog.events import GcEvent
from jvmlab.gclog.reader import iter_chunks

EXAMPLES = 2
LINE_CHARS = 300
MAX_EVENTS = 5_000_000  # a bound on the events folded per log (far above any real log's count)

_NUM = r"\d+(?:[.,]\d+)?"
_TIMES_LEGACY = re.compile(rf"\[Times: user=(?P<u>{_NUM}) sys=(?P<s>{_NUM}), real=(?P<r>{_NUM}) secs\]")
_TIMES_UNIFIED = re.compile(rf"User=(?P<u>{_NUM})s Sys=(?P<s>{_NUM})s Real=(?P<r>{_NUM})s")
_SAFEPOINT = re.compile(r'Safepoint "(?P<op>[^"]*)"[^\n]*?Reaching safepoint: (?P<reach>\d+) ns'
                        r'[^\n]*?Total: (?P<total>\d+) ns')
_STOPPED = re.compile(rf"threads were stopped: (?P<s>{_NUM}) seconds(?:, Stopping threads took: (?P<reach>{_NUM}))?")
_WORKERS = re.compile(r"Using (?P<n>\d+) workers of (?P<m>\d+)")
_TIME_LIMIT = re.compile(r"GC time (?:limit exceeded|would exceed GCTimeLimit)|GC overhead limit exceeded")

# Safepoint operations that are a collector's own (their time is GC pause time).
_GC_OPS = re.compile(r"G1|GC|Z[A-Z]|Shenandoah|CMS|Parallel|Serial|Collect|Heap", re.ASCII)


def _f(text: str) -> float:
    return float(text.replace(",", "."))


@dataclass
class Tally:
    """Count, total and worst time, first and last uptime of one kind of event."""

    count: int = 0
    total_ms: float = 0.0
    worst_ms: float | None = None
    first_t_s: float | None = None
    last_t_s: float | None = None
    timed: bool = False  # at least one event had a duration

    def add(self, t_s: float | None, ms: float | None) -> None:
        self.count += 1
        if ms is not None:
            self.timed = True
            self.total_ms += ms
            self.worst_ms = ms if self.worst_ms is None else max(self.worst_ms, ms)
        if t_s is not None:
            self.first_t_s = t_s if self.first_t_s is None else min(self.first_t_s, t_s)
            self.last_t_s = t_s if self.last_t_s is None else max(self.last_t_s, t_s)


@dataclass
class EventFacts:
    """What the event fold found: tallies keyed by what happened, and heap after full GCs."""

    by_cause: dict[str, Tally] = field(default_factory=dict)
    served_by: dict[str, dict[str, int]] = field(default_factory=dict)  # cause -> pause/cycle name -> count
    by_failure: dict[str, Tally] = field(default_factory=dict)
    full: Tally = field(default_factory=Tally)  # full collections whose cause is not a request
    full_causes: dict[str, int] = field(default_factory=dict)
    degenerated: Tally = field(default_factory=Tally)
    stalls: Tally = field(default_factory=Tally)
    young: Tally = field(default_factory=Tally)
    full_after: list[tuple[float | None, float, float | None]] = field(default_factory=list)  # t, after, committed
    events: int = 0


# Causes that are a request from outside the collector (not a fallback), by the log's words.
REQUESTED = ("System.gc()", "Heap Inspection Initiated GC", "Heap Dump Initiated GC", "Diagnostic Command",
             "JvmtiEnv ForceGarbageCollection", "WhiteBox Initiated Young GC", "WhiteBox Initiated Full GC")
# Causes that name Metaspace (a collection for class metadata, not for the heap).
METASPACE = ("Metadata GC Threshold", "Last ditch collection", "Metadata GC Clear Soft References")
HUMONGOUS = ("G1 Humongous Allocation",)
GC_LOCKER = ("GCLocker Initiated GC", "GC Locker", "GCLocker")
# The causes a rule reads: only these are tallied (a log's causes may carry figures, e.g.
# Shenandoah's "Old has overgrown, ... 1004M", so counting every distinct one is unbounded).
WATCHED = frozenset(REQUESTED + METASPACE + HUMONGOUS + GC_LOCKER)
_MAX_FULL_AFTER = 10_000


def fold_events(events: Iterable[GcEvent]) -> EventFacts:
    """Fold one log's events into :class:`EventFacts` (bounded by MAX_EVENTS)."""
    facts = EventFacts()
    for e in events:
        facts.events += 1
        if facts.events > MAX_EVENTS:
            break
        typ = e.type
        if typ == ev.PAUSE or typ == ev.CYCLE:
            _collection(facts, e)
        elif typ == ev.STALL:
            facts.stalls.add(e.t_s, e.duration_ms)
    return facts


def canonical_cause(cause: str | None) -> str | None:
    """The cause as the rules name it: Shenandoah words a request ``Explicit GC request
    (System.gc())`` (its ``Trigger:`` line), the others ``System.gc()``."""
    if cause and "System.gc()" in cause:
        return "System.gc()"
    return cause


def _collection(facts: EventFacts, e: GcEvent) -> None:
    cause = canonical_cause(e.cause)
    starts = e.type == ev.CYCLE or e.kind in (ev.YOUNG, ev.MIXED, ev.FULL, ev.INITIAL_MARK, ev.DEGENERATED)
    if cause and starts and cause in WATCHED:
        facts.by_cause.setdefault(cause, Tally()).add(e.t_s, e.duration_ms)
        served = facts.served_by.setdefault(cause, {})
        if len(served) < 20:
            name = e.name or e.kind
            if e.cause and name.endswith(f"({e.cause})"):
                name = name[: -len(e.cause) - 2].rstrip()
            served[name] = served.get(name, 0) + 1
    if e.failure:
        facts.by_failure.setdefault(e.failure, Tally()).add(e.t_s, e.duration_ms)
    if e.type != ev.PAUSE:
        return
    if e.kind == ev.YOUNG:
        facts.young.add(e.t_s, e.duration_ms)
    elif e.kind == ev.DEGENERATED:
        facts.degenerated.add(e.t_s, e.duration_ms)
    elif e.kind == ev.FULL:
        if cause not in REQUESTED and cause not in METASPACE:  # those are findings of their own
            facts.full.add(e.t_s, e.duration_ms)
            key = cause or "(no cause logged)"
            if len(facts.full_causes) < 20 or key in facts.full_causes:
                facts.full_causes[key] = facts.full_causes.get(key, 0) + 1
        if e.heap_after_mb is not None and len(facts.full_after) < _MAX_FULL_AFTER:
            facts.full_after.append((e.t_s, e.heap_after_mb, e.heap_committed_mb))


@dataclass
class CpuFacts:
    """The CPU times of stop-the-world collections, where the log prints them."""

    pauses: int = 0  # pauses with CPU times
    starved: Tally = field(default_factory=Tally)  # real far above user+sys
    sys_over_user: Tally = field(default_factory=Tally)
    inverted: Tally = field(default_factory=Tally)  # user+sys below real (parallel collectors)
    worst_line: str | None = None
    worst_ratio: float | None = None  # the lowest (user+sys)/real seen among long-enough pauses


@dataclass
class SafepointFacts:
    """Safepoints, where the log has them: count and total, time to reach, non-GC operations."""

    count: int = 0
    total_ms: float = 0.0
    reach: Tally = field(default_factory=Tally)
    non_gc: Tally = field(default_factory=Tally)
    non_gc_ops: dict[str, int] = field(default_factory=dict)
    reach_known: bool = False
    ops_known: bool = False
    worst_line: str | None = None
    worst_reach_ms: float = 0.0


@dataclass
class LineFacts:
    cpu: CpuFacts = field(default_factory=CpuFacts)
    safepoints: SafepointFacts = field(default_factory=SafepointFacts)
    workers: int | None = None  # most parallel workers a collection used ("Using N workers of M")
    workers_max: int | None = None
    time_limit: Tally = field(default_factory=Tally)
    time_limit_line: str | None = None


@dataclass(frozen=True)
class CpuRule:
    """The thresholds the CPU-time fold applies (named and explained in findings_rules)."""

    min_real_s: float
    starved_factor: float
    parallel: bool


def line_of(chunk: str, at: int) -> str:
    """The whole line of ``chunk`` around offset ``at`` (cut to LINE_CHARS)."""
    start = chunk.rfind("\n", 0, at) + 1
    end = chunk.find("\n", at)
    return chunk[start:end if end >= 0 else len(chunk)][:LINE_CHARS]


_UNIFIED_UPTIME = re.compile(r"\[(\d+[.,]\d+)s\]")
_LEGACY_UPTIME = re.compile(r"(?:^|\s)(\d+[.,]\d+): \[")


def _uptime(line: str) -> float | None:
    """The JVM uptime a line is stamped with (unified ``[12.345s]``, JDK 8 ``12.345: [``), else None."""
    m = _UNIFIED_UPTIME.search(line) or _LEGACY_UPTIME.search(line)
    return _f(m.group(1)) if m else None


def scan_lines(paths: Sequence[Path], rule: CpuRule) -> LineFacts:
    """One pass over the raw text for the facts the events do not carry."""
    facts = LineFacts()
    for path in paths:
        for chunk in iter_chunks(path):
            if "real=" in chunk or "Real=" in chunk:
                _cpu(facts.cpu, chunk, rule)
            if "Safepoint \"" in chunk or "threads were stopped" in chunk:
                _safepoints(facts.safepoints, chunk)
            if "workers of" in chunk:
                pairs = _WORKERS.findall(chunk)  # (used, of) per collection phase: keep the largest
                if pairs:
                    facts.workers = max(facts.workers or 0, max(int(n) for n, _ in pairs))
                    facts.workers_max = max(facts.workers_max or 0, max(int(m) for _, m in pairs))
            if "GC time" in chunk or "overhead limit" in chunk:
                for m in _TIME_LIMIT.finditer(chunk):
                    line = line_of(chunk, m.start())
                    facts.time_limit.add(_uptime(line), None)
                    facts.time_limit_line = facts.time_limit_line or line
    return facts


def _cpu(cpu: CpuFacts, chunk: str, rule: CpuRule) -> None:
    for rx in (_TIMES_LEGACY, _TIMES_UNIFIED):
        for m in rx.finditer(chunk):
            user, sys_, real = _f(m["u"]), _f(m["s"]), _f(m["r"])
            if rx is _TIMES_LEGACY:
                line = line_of(chunk, m.start())
                if "CMS-concurrent" in line or "concurrent-" in line:  # a concurrent phase runs beside the app
                    continue
            else:
                line = ""
            cpu.pauses += 1
            if real < rule.min_real_s:
                continue
            used = user + sys_
            t = None
            if used * rule.starved_factor < real:
                line = line or line_of(chunk, m.start())
                t = _uptime(line)
                cpu.starved.add(t, real * 1000.0)
            if sys_ > user:
                line = line or line_of(chunk, m.start())
                cpu.sys_over_user.add(_uptime(line) if t is None else t, real * 1000.0)
            if rule.parallel and used < real:
                line = line or line_of(chunk, m.start())
                cpu.inverted.add(_uptime(line) if t is None else t, real * 1000.0)
            ratio = used / real
            if cpu.worst_ratio is None or ratio < cpu.worst_ratio:
                cpu.worst_ratio = ratio
                cpu.worst_line = line or line_of(chunk, m.start())


def _safepoints(sp: SafepointFacts, chunk: str) -> None:
    for m in _SAFEPOINT.finditer(chunk):
        sp.reach_known = sp.ops_known = True
        total_ms, reach_ms = int(m["total"]) / 1e6, int(m["reach"]) / 1e6
        sp.count += 1
        sp.total_ms += total_ms
        line = line_of(chunk, m.start())
        t = _uptime(line)
        sp.reach.add(t, reach_ms)
        if reach_ms > sp.worst_reach_ms:
            sp.worst_reach_ms, sp.worst_line = reach_ms, line
        op = m["op"]
        if not _GC_OPS.search(op):
            sp.non_gc.add(t, total_ms)
            if len(sp.non_gc_ops) < 50 or op in sp.non_gc_ops:
                sp.non_gc_ops[op] = sp.non_gc_ops.get(op, 0) + 1
    if sp.ops_known:
        return
    for m in _STOPPED.finditer(chunk):
        sp.count += 1
        sp.total_ms += _f(m["s"]) * 1000.0
        if m["reach"] is not None:
            sp.reach_known = True
            reach_ms = _f(m["reach"]) * 1000.0
            line = line_of(chunk, m.start())
            sp.reach.add(_uptime(line), reach_ms)
            if reach_ms > sp.worst_reach_ms:
                sp.worst_reach_ms, sp.worst_line = reach_ms, line


def find_examples(paths: Sequence[Path], wanted: dict[str, re.Pattern[str]]) -> dict[str, list[str]]:
    """Up to EXAMPLES lines per key whose pattern matches; stops reading once all are found."""
    found: dict[str, list[str]] = {k: [] for k in wanted}
    if not wanted:
        return found
    for chunk in _chunks(paths):
        for key, rx in wanted.items():
            have = found[key]
            if len(have) >= EXAMPLES:
                continue
            for m in rx.finditer(chunk):
                line = line_of(chunk, m.start()).rstrip()
                if line not in have:
                    have.append(line)
                if len(have) >= EXAMPLES:
                    break
        if all(len(v) >= EXAMPLES for v in found.values()):
            break
    return found


def _chunks(paths: Sequence[Path]) -> Iterator[str]:
    for path in paths:
        yield from iter_chunks(path)


def log_events(paths: Sequence[Path]) -> Iterator[GcEvent]:
    """The events of a log's files in order (a rotated set: file after file)."""
    for path in paths:
        yield from iter_events(path)
