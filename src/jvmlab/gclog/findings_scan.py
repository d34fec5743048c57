"""The facts findings are made of, read from the text the parser reads, in its one pass.

A few facts the event records do not carry are read from the raw text with compiled
regexes, each match bounded, chunk by chunk as the parser is fed (:func:`scan_text`): the
CPU times of pauses (``[Times: user=.. sys=.., real=..]``, ``User=..s Sys=..s Real=..s``),
safepoint lines with their time to reach the safepoint, the GC worker counts, the GC-time-
limit message, and the header facts some findings compare with (physical memory, the pause
goal, compressed oops, large pages, an OutOfMemoryError printed into the log). The events
are folded by :mod:`jvmlab.gclog.findings_fold`; nothing here opens a file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jvmlab.gclog.decorators import decimal, size_mb

EXAMPLES = 2
LINE_CHARS = 300
CPU_MIN_REAL_S = 0.05  # CPU times are printed in 10-ms steps: shorter pauses give no usable ratio
CPU_STARVED_FACTOR = 2.0  # real more than twice user+sys: the GC threads ran under half the pause

_NUM = r"\d+(?:[.,]\d+)?"
_TIMES_LEGACY = re.compile(rf"\[Times: user=(?P<u>{_NUM}) sys=(?P<s>{_NUM}), real=(?P<r>{_NUM}) secs\]")
_TIMES_UNIFIED = re.compile(rf"User=(?P<u>{_NUM})s Sys=(?P<s>{_NUM})s Real=(?P<r>{_NUM})s")
_SAFEPOINT = re.compile(r'Safepoint "(?P<op>[^"]*)"[^\n]*?Reaching safepoint: (?P<reach>\d+) ns'
                        r'[^\n]*?Total: (?P<total>\d+) ns')
_STOPPED = re.compile(rf"threads were stopped: (?P<s>{_NUM}) seconds(?:, Stopping threads took: (?P<reach>{_NUM}))?")
_WORKERS = re.compile(r"Using (?P<n>\d+) workers of (?P<m>\d+)")
# JDK 8 Parallel: "GC time is exceeding GCTimeLimit of 98%", "GC time would exceed GCTimeLimit of 98%"
_TIME_LIMIT = re.compile(r"GC time (?:is exceeding|would exceed|limit exceeded)(?: GCTimeLimit)?|"
                         r"GC overhead limit exceeded")
# Header facts: JDK 8 "Memory: 4k page, physical 16318332k(...)", JDK 17+ "[gc,init] Memory: 15G"
_PHYSICAL_LEGACY = re.compile(r"Memory: \d+k page, physical (?P<k>\d+)k")
_PHYSICAL_UNIFIED = re.compile(r"\] Memory: (?P<v>\d+(?:\.\d+)?)(?P<u>[KMGT])\b")
_FLAG_VALUE = re.compile(r"-XX:(?P<k>MaxGCPauseMillis|MaxMetaspaceSize|MaxHeapSize)=(?P<v>\d+)")
_PAUSE_GOAL_UNIFIED = re.compile(r"(?:Pause Time Goal|MaxGCPauseMillis)[:=] ?(?P<v>\d+)(?: ?ms)?")
_OOPS_OFF = re.compile(r"-XX:-UseCompressedOops|Compressed Oops: Disabled")
# HotSpot's warnings when -XX:+UseLargePages cannot be honoured (os_linux.cpp)
_LARGE_PAGES = re.compile(r"Failed to reserve (?:shared memory|large pages)|UseLargePages disabled|"
                          r"Failed to (?:reserve|commit)[^\n]{0,80}large pages|"
                          r"[Ll]arge pages? (?:are |is )?(?:not supported|unavailable|failed)")
# The error itself, printed into the log when stdout and the GC log are one file ("...Error: Java
# heap space"; the class's own loading and initialisation lines, -Xlog:class*, are not it)
_OOM = re.compile(r"java\.lang\.OutOfMemoryError:")
_PS_OLD = re.compile(r"\[PSOldGen: ")  # JDK 8 Parallel with -XX:-UseParallelOldGC: old gen collected serially
_WARNING_LINE = re.compile(r"^.*\[(?:warning|error)\s*\].*$", re.MULTILINE)
MAX_WARNINGS = 50

# Safepoint operations that are a collector's own (their time is GC pause time).
_GC_OPS = re.compile(r"G1|GC|Z[A-Z]|Shenandoah|CMS|Parallel|Serial|Collect|Heap", re.ASCII)


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
            if self.worst_ms is None or ms > self.worst_ms:
                self.worst_ms = ms
        if t_s is not None:
            if self.first_t_s is None or t_s < self.first_t_s:
                self.first_t_s = t_s
            if self.last_t_s is None or t_s > self.last_t_s:
                self.last_t_s = t_s

    def merge(self, other: Tally) -> None:
        """Add ``other``'s events to this tally."""
        self.count += other.count
        self.total_ms += other.total_ms
        self.timed = self.timed or other.timed
        if other.worst_ms is not None:
            self.worst_ms = other.worst_ms if self.worst_ms is None else max(self.worst_ms, other.worst_ms)
        for v in (other.first_t_s, other.last_t_s):
            if v is not None:
                self.first_t_s = v if self.first_t_s is None else min(self.first_t_s, v)
                self.last_t_s = v if self.last_t_s is None else max(self.last_t_s, v)


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
    physical_mb: float | None = None  # the machine's memory, from the log's header
    metaspace_max_mb: float | None = None  # -XX:MaxMetaspaceSize, when the header states it
    pause_goal_ms: float | None = None  # -XX:MaxGCPauseMillis, when the header states it
    oops_off_line: str | None = None
    large_pages: Tally = field(default_factory=Tally)
    large_pages_line: str | None = None
    oom: Tally = field(default_factory=Tally)
    oom_line: str | None = None
    serial_old: Tally = field(default_factory=Tally)  # [PSOldGen: ...] records
    serial_old_line: str | None = None
    warnings: list[str] = field(default_factory=list)  # [warning] and [error] lines (MAX_WARNINGS)


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
    return decimal(m.group(1)) if m else None


def _count(tally: Tally, rx: re.Pattern[str], chunk: str, first: str | None) -> str | None:
    """Count the lines of ``chunk`` that ``rx`` finds into ``tally``; ``first`` if set, else the first of them."""
    for m in rx.finditer(chunk):
        line = line_of(chunk, m.start())
        tally.add(_uptime(line), None)
        first = first or line
    return first


def note_workers(facts: LineFacts, used: int, of: int) -> None:
    """The largest "Using <used> workers of <of>" seen so far (also from the compiled folder)."""
    facts.workers = max(facts.workers or 0, used)
    facts.workers_max = max(facts.workers_max or 0, of)


def scan_text(facts: LineFacts, chunk: str, header: bool = True) -> None:
    """Fold one chunk of the text the parser reads into ``facts`` (no file is opened here);
    ``header``: the chunk may hold start-up lines (the first chunks of a file)."""
    if "real=" in chunk or "Real=" in chunk:
        _cpu(facts.cpu, chunk)
    if "Safepoint \"" in chunk or "threads were stopped" in chunk:
        _safepoints(facts.safepoints, chunk)
    if "workers of" in chunk:
        pairs = _WORKERS.findall(chunk)  # (used, of) per collection phase: keep the largest
        if pairs:
            note_workers(facts, max(int(n) for n, _ in pairs), max(int(m) for _, m in pairs))
    if "GC time" in chunk or "overhead limit" in chunk:
        facts.time_limit_line = _count(facts.time_limit, _TIME_LIMIT, chunk, facts.time_limit_line)
    if "PSOldGen: " in chunk:
        facts.serial_old_line = _count(facts.serial_old, _PS_OLD, chunk, facts.serial_old_line)
    if ("[warning" in chunk or "[error" in chunk) and len(facts.warnings) < MAX_WARNINGS:
        facts.warnings.extend(m.group(0) for m in _WARNING_LINE.finditer(chunk))
        del facts.warnings[MAX_WARNINGS:]
    if "OutOfMemoryError" in chunk:
        facts.oom_line = _count(facts.oom, _OOM, chunk, facts.oom_line)
    if header:
        _header(facts, chunk)


def _header(facts: LineFacts, chunk: str) -> None:
    """Facts a JVM prints at start-up: memory, flags, compressed oops, large pages."""
    if "emory" in chunk:
        _memory(facts, chunk)
    if "arge page" in chunk or "argePages" in chunk:
        facts.large_pages_line = _count(facts.large_pages, _LARGE_PAGES, chunk, facts.large_pages_line)
    if "MaxGCPauseMillis" in chunk or "Pause Time Goal" in chunk or "MaxMetaspaceSize" in chunk:
        for m in _FLAG_VALUE.finditer(chunk):
            if m["k"] == "MaxGCPauseMillis" and facts.pause_goal_ms is None:
                facts.pause_goal_ms = float(m["v"])
            elif m["k"] == "MaxMetaspaceSize" and facts.metaspace_max_mb is None:
                facts.metaspace_max_mb = int(m["v"]) / (1 << 20)
        gm = _PAUSE_GOAL_UNIFIED.search(chunk)
        if gm is not None and facts.pause_goal_ms is None:
            facts.pause_goal_ms = float(gm["v"])
    if facts.oops_off_line is None and ("CompressedOops" in chunk or "Compressed Oops" in chunk):
        om = _OOPS_OFF.search(chunk)
        if om is not None:
            facts.oops_off_line = line_of(chunk, om.start())


def _memory(facts: LineFacts, chunk: str) -> None:
    if facts.physical_mb is not None:
        return
    m = _PHYSICAL_LEGACY.search(chunk)
    if m is not None:
        facts.physical_mb = int(m["k"]) / 1024
        return
    u = _PHYSICAL_UNIFIED.search(chunk)
    if u is not None:
        facts.physical_mb = size_mb(u["v"], u["u"])


def _cpu(cpu: CpuFacts, chunk: str) -> None:
    for rx in (_TIMES_LEGACY, _TIMES_UNIFIED):
        for m in rx.finditer(chunk):
            real = decimal(m["r"])
            if rx is _TIMES_LEGACY:
                line = line_of(chunk, m.start())
                if "CMS-concurrent" in line or "concurrent-" in line:  # a concurrent phase runs beside the app
                    continue
            elif chunk[max(0, m.start() - 2): m.start()] not in (") ", "] "):
                continue  # a gc,cpu line's message starts with it ("GC(1) User=0.59s ..."); Serial's
                # ergonomics line has the same words inside ("GC(1) Adaptive Heap Sizing: ... 100. User=...")
            else:
                line = ""
            cpu.pauses += 1
            if real < CPU_MIN_REAL_S:
                continue
            user, sys_ = decimal(m["u"]), decimal(m["s"])
            used = user + sys_
            t = None
            for hit, tally in ((used * CPU_STARVED_FACTOR < real, cpu.starved), (sys_ > user, cpu.sys_over_user),
                               (used < real, cpu.inverted)):
                if hit:
                    line = line or line_of(chunk, m.start())
                    t = _uptime(line) if t is None else t
                    tally.add(t, real * 1000.0)
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
        sp.total_ms += decimal(m["s"]) * 1000.0
        if m["reach"] is not None:
            sp.reach_known = True
            reach_ms = decimal(m["reach"]) * 1000.0
            line = line_of(chunk, m.start())
            sp.reach.add(_uptime(line), reach_ms)
            if reach_ms > sp.worst_reach_ms:
                sp.worst_reach_ms, sp.worst_line = reach_ms, line
