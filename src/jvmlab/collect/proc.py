"""The /proc sampler: memory (RSS, PSS, AnonHugePages) and CPU per thread group over time.

A daemon thread samples the child every ``interval_s`` (default 100 ms) until the child
exits; on long runs the interval stretches to 1 % of the run's age, at most 1 s
(:func:`stretched_interval`), which bounds both the sampler's CPU and the timelines' length.
Each sample costs about one ``pread`` per thread (procfs files are regenerated on
every read at offset 0, so descriptors are opened once and kept) plus one read of the
process's ``stat`` for RSS and its thread count; the task folder is listed again only when
that count differs from the threads known (or once a second). PSS and AnonHugePages come from
``smaps_rollup``, which walks the page tables holding the process's mmap lock (10-14 ms for a
pre-touched 512 MB heap, during which the JVM's allocating threads may stall on a page fault),
so it is read only when it adds something: when the tree's RSS reaches a new high at least
``ROLLUP_RISE`` (2 %) above the RSS at every earlier read, or ``ROLLUP_EVERY_S`` (30 s) after
the last read; never at the first sample, and never more often than keeps its CPU under
``ROLLUP_BUDGET`` (0.5 %) of one core. On a JVM whose heap is touched up front that is a few
reads as RSS climbs, then one every 30 s. The "mem.pss_bytes" and "mem.anon_huge_bytes"
timelines therefore have their own, sparser times, and their peaks are only given when a read
was taken at an RSS within ``NEAR_PEAK`` (90 %) of the sampled RSS peak. See
bench/observer_effect.py.

CPU time is attributed per thread from ``/proc/PID/task/TID/stat`` (its name is in the
same line) and grouped by :func:`jvmlab.collect.threads.thread_group`. The last CPU time
seen of every thread is kept, so threads that exit between samples keep what they used up
to their last sample; what a thread used after its last sample, and everything after the
last sample of the run, is not attributed (at most one interval per thread). Shares are
of the attributed CPU time.

The sampled pid is the one the executor started; its descendants (found through
``/proc/PID/task/*/children``: at every sample for processes of at most 4 threads such as
a launcher shell, once a second for bigger ones) are sampled too, so a ``command`` workload
whose launcher starts the JVM is still measured. Memory is then the sum over the tree.
PSS is the figure to trust when a collector maps the heap several times (ZGC on JDK 17
counts each page up to three times in RSS).

A sampled figure is only given where enough samples stand behind it. The CPU shares need
``MIN_SHARE_SAMPLES`` samples and must account for ``MIN_ATTRIBUTED`` of the child's own CPU
time (wait4's user + sys): on a sub-second JVM the first sample sees a process that has just
exec'd and the last one misses the final interval, so shares would read "app 100 %, GC 0 %"
whatever happened. The sampled memory peaks need ``MIN_MEMORY_SAMPLES`` samples (the first
ones see a JVM before its heap is touched), and the PSS and AnonHugePages peaks a
``smaps_rollup`` read near the RSS peak. Otherwise the metric is absent (None) and
``documents["proc"]["unmeasured"]`` says why, e.g. "fewer than 10 samples (3 in 0.21 s)".
The exact peak RSS of the child is ``max_rss_bytes`` (wait4), not a sample.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

from jvmlab.collect.base import NullProbe
from jvmlab.collect.cpustat import CLK_TCK, machine_cpu_s
from jvmlab.collect.threads import APP, GC, GROUPS, JIT, VM, thread_group
from jvmlab.metrics import OTHER_SHARE, RUN_DELAY, STEAL_SHARE
from jvmlab.model import hazards
from jvmlab.model.collected import Collected, Timeline
from jvmlab.model.documents import ProcDocument
from jvmlab.model.hazards import Hazard
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import ProcessResult

UNSUPPORTED = hazards.COLLECTOR_UNSUPPORTED
_TREE_EVERY_S = 1.0
_MAX_RUN_S = 7 * 24 * 3600  # the sampling loop's bound
_MAX_PROCESSES = 64  # the tree's bound
_SMALL_PROCESS = 4  # threads; children of such processes are looked for at every sample
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
ROLLUP_BUDGET = 0.005  # share of one core that reading smaps_rollup may use
ROLLUP_RISE = 1.02  # smaps_rollup is read again when RSS is this much above the RSS at every earlier read ...
ROLLUP_EVERY_S = 30.0  # ... or this long after the last read
NEAR_PEAK = 0.9  # PSS and AnonHugePages peaks need a read at an RSS at least this share of the RSS peak
_ROLLUP_KEYS = {b"Rss:": "rss", b"Pss:": "pss", b"AnonHugePages:": "anon_huge"}
_CPU_TIMELINES = {JIT: "cpu.jit_s", GC: "cpu.gc_s", APP: "cpu.app_s", VM: "cpu.vm_s"}
_SHARE_METRICS = {JIT: "cpu.jit_share", GC: "cpu.gc_share", APP: "cpu.app_share", VM: "cpu.vm_share"}
STRETCH = 0.01  # after 10 s at 100 ms, the interval grows to 1 % of the run's age ...
MAX_INTERVAL_S = 1.0  # ... up to once a second
MIN_SHARE_SAMPLES = 10  # CPU shares: at least this many samples ...
MIN_ATTRIBUTED = 0.8  # ... attributing at least this share of the child's own CPU time
MIN_MEMORY_SAMPLES = 5  # sampled memory peaks (RSS, PSS, AnonHugePages)
# CPU shares: threads that ended between samples (the JIT starts and stops compiler threads on
# demand) may use at most this share of the process's CPU at the last sample, beyond what the
# per-thread clock ticks lose to rounding (up to one tick of user and one of system per thread).
MAX_UNSEEN = 0.02
UNSEEN_WHY = ("threads that ended between /proc samples used more than 2% of the CPU time (the JIT starts "
              "and stops compiler threads on demand), so the per-group shares would undercount them")
SERIAL_GC_WHY = ("Serial GC collects on the VM Thread, which also runs the JVM's other safepoint operations: "
                 "its GC CPU time is inside cpu.vm_share and cannot be told apart")


def stretched_interval(interval_s: float, t_s: float) -> float:
    """The wait before the next sample: ``interval_s``, stretched on long runs to ``STRETCH``
    of the time elapsed (at most ``MAX_INTERVAL_S``). A 5 s run keeps 100 ms samples; an hour
    long run is sampled once a second: its cost and its timelines' length stay bounded."""
    return max(interval_s, min(MAX_INTERVAL_S, t_s * STRETCH))


def schedstat_supported() -> bool:
    """The kernel keeps per-thread run-queue delays (``/proc/PID/task/TID/schedstat``,
    CONFIG_SCHED_INFO)."""
    return sys.platform.startswith("linux") and os.path.exists("/proc/self/schedstat")


NO_SCHEDSTAT_WHY = "this kernel has no /proc/PID/schedstat (CONFIG_SCHED_INFO off), so no run-queue delay"


def proc_supported() -> bool:
    """True on Linux with ``smaps_rollup`` (kernel 4.14+)."""
    return sys.platform.startswith("linux") and os.path.exists("/proc/self/smaps_rollup")


@dataclass(frozen=True)
class ProcSample:
    """One sample of the whole process tree. Memory in bytes; CPU cumulative seconds per group."""

    t_s: float
    rss_bytes: int
    pss_bytes: int | None  # None: smaps_rollup not read at this sample
    anon_huge_bytes: int | None
    cpu_s: dict[str, float]
    # CPU of the whole tree as the kernel counts it (threads that exited included), and how many
    # threads the sampler has seen: what the per-thread figures miss is process_cpu_s - sum(cpu_s)
    process_cpu_s: float | None = None
    threads_seen: int = 0
    # Run-queue delay (schedstat's second field) summed over every thread seen, each at its last
    # read; None when the kernel has no schedstat.
    run_delay_s: float | None = None


def parse_stat(data: bytes) -> tuple[str, int] | None:
    """(comm, utime + stime in clock ticks) from a ``stat`` line; None when malformed."""
    start, end = data.find(b"("), data.rfind(b")")
    if start < 0 or end < start:
        return None
    fields = data[end + 2:].split(maxsplit=13)
    if len(fields) < 13:
        return None
    return data[start + 1:end].decode("utf-8", "replace"), int(fields[11]) + int(fields[12])


def parse_rollup(data: bytes) -> dict[str, int]:
    """Rss, Pss and AnonHugePages (bytes) from ``smaps_rollup``; missing keys are absent."""
    found: dict[str, int] = {}
    for line in data.split(b"\n"):
        parts = line.split()
        if len(parts) >= 2 and parts[0] in _ROLLUP_KEYS:
            found[_ROLLUP_KEYS[parts[0]]] = int(parts[1]) * 1024
    return found


def _pread(fd: int, size: int) -> bytes:
    return os.pread(fd, size, 0)


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


class _Process:
    """Open descriptors of one process of the tree, and the last CPU seen of its threads."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.rollup_fd: int | None = None
        self.stat_fd: int | None = None
        self.task_fds: dict[int, int] = {}
        self.sched_fds: dict[int, int] = {}
        self.alive = True

    def status(self) -> tuple[int, int, int]:
        """(resident bytes, number of threads, CPU ticks of the whole process) from the
        process's ``stat`` line: kernel counters, cheap whatever the heap size; the CPU ticks
        include threads that have already exited (the kernel folds them into the process).
        (0, 0, 0) when it cannot be read."""
        try:
            if self.stat_fd is None:
                self.stat_fd = os.open(f"/proc/{self.pid}/stat", os.O_RDONLY)
            data = _pread(self.stat_fd, 1024)
            fields = data[data.rfind(b")") + 2:].split(maxsplit=22)
            return int(fields[21]) * _PAGE_BYTES, int(fields[17]), int(fields[11]) + int(fields[12])
        except (OSError, ValueError, IndexError):
            return 0, 0, 0

    def memory(self) -> dict[str, int]:
        """Rss, Pss and AnonHugePages from ``smaps_rollup`` (walks the page tables: costly)."""
        try:
            if self.rollup_fd is None:
                self.rollup_fd = os.open(f"/proc/{self.pid}/smaps_rollup", os.O_RDONLY)
            return parse_rollup(_pread(self.rollup_fd, 8192))
        except OSError:
            return {}

    def tids(self, n_threads: int, relist: bool) -> list[int]:
        """The threads to read. The task folder is listed only when the thread count differs
        from the threads known (or ``relist``): a JVM's threads rarely change once it runs, and
        listing costs as much as a quarter of a sample. A thread that exits is dropped when its
        ``stat`` read fails, so one that replaced it is found at the next sample."""
        if not relist and n_threads == len(self.task_fds) and n_threads > 0:
            return list(self.task_fds)
        try:
            return [int(name) for name in os.listdir(f"/proc/{self.pid}/task")]
        except OSError:
            self.alive = False
            return []

    def read_task(self, tid: int) -> tuple[str, int] | None:
        fd = self.task_fds.get(tid)
        try:
            if fd is None:
                fd = os.open(f"/proc/{self.pid}/task/{tid}/stat", os.O_RDONLY)
                self.task_fds[tid] = fd
            return parse_stat(_pread(fd, 1024))
        except OSError:
            if fd is not None:
                _close(fd)
                self.task_fds.pop(tid, None)
            return None

    def read_delay(self, tid: int) -> int | None:
        """The thread's run-queue delay so far (ns, schedstat's second field); None when it
        cannot be read (the thread ended, or no schedstat)."""
        fd = self.sched_fds.get(tid)
        try:
            if fd is None:
                fd = os.open(f"/proc/{self.pid}/task/{tid}/schedstat", os.O_RDONLY)
                self.sched_fds[tid] = fd
            return int(_pread(fd, 128).split()[1])
        except (OSError, ValueError, IndexError):
            if fd is not None:
                _close(fd)
                self.sched_fds.pop(tid, None)
            return None

    def children(self) -> list[int]:
        kids: list[int] = []
        for tid in list(self.task_fds):
            try:
                with open(f"/proc/{self.pid}/task/{tid}/children", "rb") as f:
                    kids.extend(int(x) for x in f.read().split())
            except (OSError, ValueError):
                continue
        return kids

    def close(self) -> None:
        for fd in (*self.task_fds.values(), *self.sched_fds.values()):
            _close(fd)
        self.task_fds.clear()
        self.sched_fds.clear()
        for own_fd in (self.rollup_fd, self.stat_fd):
            if own_fd is not None:
                _close(own_fd)
        self.rollup_fd = self.stat_fd = None


class TreeSampler:
    """Samples a process and its descendants; keeps every thread's last CPU time."""

    def __init__(self, pid: int) -> None:
        self.processes: dict[int, _Process] = {pid: _Process(pid)}
        self.last_ticks: dict[tuple[int, int], tuple[str, int]] = {}  # (pid, tid) -> (group, ticks)
        self.retired = dict.fromkeys(GROUPS, 0)  # ticks of threads whose tid was reused
        self.last_delay_ns: dict[tuple[int, int], int] = {}  # (pid, tid) -> run-queue delay at its last read
        self.retired_delay_ns = 0  # delay of threads whose tid was reused
        self.schedstat = schedstat_supported()
        self._last_tree: float | None = None
        # No smaps_rollup at the first sample: the process has just started (its PSS is a
        # fraction of what it will be) and the page walk (1-3 ms for a JVM) would compete
        # with its start-up; a JVM of 100-200 ms would pay it and get no PSS figure anyway.
        self._sampled = False
        self._rollup_rss = 0  # the highest tree RSS at a smaps_rollup read so far
        self._last_rollup: float | None = None
        self._budget_until = 0.0  # no read before: the reads' CPU stays under ROLLUP_BUDGET

    def sample(self, t_s: float) -> ProcSample:
        every = self._last_tree is None or t_s - self._last_tree >= _TREE_EVERY_S
        if every:
            self._last_tree = t_s
        self._grow_tree(every)
        live = [proc for proc in list(self.processes.values()) if proc.alive]
        statuses = [proc.status() for proc in live]
        rss = sum(status[0] for status in statuses)
        process_ticks = sum(status[2] for status in statuses)
        rollup = self._rollup_due(t_s, rss)
        rollup_cpu_s = 0.0  # the budget is of CPU: preemption on a busy machine is not cost
        pss, anon_huge = 0, 0
        for proc, (_, n_threads, _) in zip(live, statuses, strict=True):
            if rollup:
                started = time.thread_time()
                mem = proc.memory()
                rollup_cpu_s += time.thread_time() - started
                pss += mem.get("pss", 0)
                anon_huge += mem.get("anon_huge", 0)
            for tid in proc.tids(n_threads, every):
                self._see_task(proc, tid)
        if rollup:
            # Reading smaps_rollup of a big pre-touched heap takes milliseconds: space the
            # reads so they cost at most ROLLUP_BUDGET of one core (only the rollup reads count:
            # the per-thread CPU reads above are paid at every sample anyway).
            self._budget_until = t_s + rollup_cpu_s / ROLLUP_BUDGET
            self._last_rollup = t_s
            self._rollup_rss = max(self._rollup_rss, rss)
        seen = len(self.last_ticks)
        delay_s = (self.retired_delay_ns + sum(self.last_delay_ns.values())) / 1e9 if self.schedstat else None
        return ProcSample(t_s, rss, pss if rollup else None, anon_huge if rollup else None, self.cpu_s(),
                          process_ticks / CLK_TCK if process_ticks else None, seen, delay_s)

    def _rollup_due(self, t_s: float, rss: int) -> bool:
        """Read smaps_rollup now? Not at the first sample nor within the budget's spacing; then
        when RSS stands ``ROLLUP_RISE`` above the RSS at every earlier read (a new high that
        PSS and AnonHugePages may follow), or ``ROLLUP_EVERY_S`` after the last read (THP
        pages come and go at the same RSS). A steady heap is not walked every second: each
        walk holds the mmap lock the JVM's page faults need."""
        if not self._sampled:
            self._sampled = True
            return False
        if rss <= 0 or t_s < self._budget_until:
            return False
        if rss >= ROLLUP_RISE * self._rollup_rss:
            return True
        return self._last_rollup is not None and t_s - self._last_rollup >= ROLLUP_EVERY_S

    def _see_task(self, proc: _Process, tid: int) -> None:
        read = proc.read_task(tid)
        if read is None:
            return
        comm, ticks = read
        key = (proc.pid, tid)
        previous = self.last_ticks.get(key)
        if previous is not None and ticks < previous[1]:  # tid reused by a new thread
            self.retired[previous[0]] += previous[1]
        self.last_ticks[key] = (thread_group(comm), ticks)
        if self.schedstat:
            delay = proc.read_delay(tid)
            if delay is not None:
                before = self.last_delay_ns.get(key)
                if before is not None and delay < before:  # tid reused by a new thread
                    self.retired_delay_ns += before
                self.last_delay_ns[key] = delay

    def _grow_tree(self, all_processes: bool) -> None:
        """Find new children: of small processes (launchers, shells) at every sample, of
        big ones (a JVM has some 20 threads) once a second, to keep samples cheap."""
        for proc in list(self.processes.values()):
            if not proc.alive or (not all_processes and len(proc.task_fds) > _SMALL_PROCESS):
                continue
            for kid in proc.children():
                if kid not in self.processes and len(self.processes) < _MAX_PROCESSES:
                    self.processes[kid] = _Process(kid)

    def cpu_s(self) -> dict[str, float]:
        ticks = dict(self.retired)
        for group, value in self.last_ticks.values():
            ticks[group] += value
        return {group: value / CLK_TCK for group, value in ticks.items()}

    def close(self) -> None:
        for proc in self.processes.values():
            proc.close()


def _self_cpu_s() -> float:
    """jvmlab's own CPU (not its children's): taken out of what other processes used."""
    t = os.times()
    return t.user + t.system


@dataclass
class _MachineWatch:
    """The machine's CPU around one invocation: what others and the hypervisor took while it ran."""

    t0: float = 0.0
    cpu0: tuple[float, float] | None = None
    self0: float = 0.0
    elapsed_s: float | None = None
    cpu1: tuple[float, float] | None = None
    self1: float = 0.0

    def start(self) -> None:
        self.t0, self.cpu0, self.self0 = time.monotonic(), machine_cpu_s(), _self_cpu_s()

    def stop(self) -> None:
        self.elapsed_s, self.cpu1, self.self1 = time.monotonic() - self.t0, machine_cpu_s(), _self_cpu_s()

    def shares(self, child_cpu_s: float | None) -> tuple[float | None, float | None]:
        """(other processes' share, steal share) of all CPUs while the child ran: the machine's
        busy CPU less the child's own (wait4) and jvmlab's; None when not measurable (no
        /proc/stat, the child's CPU unknown, or a run under 0.1 s: /proc/stat counts in ticks)."""
        if self.cpu0 is None or self.cpu1 is None or self.elapsed_s is None or self.elapsed_s < 0.1:
            return None, None
        capacity = self.elapsed_s * (os.cpu_count() or 1)
        steal = max(0.0, self.cpu1[1] - self.cpu0[1]) / capacity
        if child_cpu_s is None:
            return None, steal
        other = (self.cpu1[0] - self.cpu0[0]) - child_cpu_s - (self.self1 - self.self0)
        return min(1.0, max(0.0, other) / capacity), steal


class ProcProbe(NullProbe):
    """Samples one invocation in a background thread between ``on_start`` and ``on_exit``."""

    def __init__(self, interval_s: float, supported: bool = True, gc_on_vm_thread: bool = False) -> None:
        self.interval_s = interval_s
        self.supported = supported
        self.gc_on_vm_thread = gc_on_vm_thread  # Serial GC: see SERIAL_GC_WHY
        self.samples: list[ProcSample] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started_epoch: float | None = None
        # Set: the loop takes no sample until it is cleared (bench/observer_effect.py compares
        # periods with and without sampling inside one JVM).
        self.paused = threading.Event()
        self._machine = _MachineWatch()

    def on_start(self, pid: int) -> None:
        if not self.supported:
            return
        self._machine.start()
        self._started_epoch = time.time()
        self._thread = threading.Thread(target=self._loop, args=(pid,), name="jvmlab-proc", daemon=True)
        self._thread.start()

    def _loop(self, pid: int) -> None:
        sampler = TreeSampler(pid)
        t0 = time.perf_counter()
        try:
            # The first sample comes one interval in, not at once: at time zero the child has
            # barely exec'd (nothing worth reading), and reading /proc then competes with its start.
            if self._stop.wait(self.interval_s):
                return
            for _ in range(int(_MAX_RUN_S / self.interval_s) + 1):
                t_s = time.perf_counter() - t0
                if not self.paused.is_set():
                    self.samples.append(sampler.sample(t_s))
                if self._stop.wait(stretched_interval(self.interval_s, t_s)):
                    break
        finally:
            sampler.close()

    def on_exit(self) -> None:
        self._machine.stop()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def peak_rss_bytes(self) -> int | None:
        return max((s.rss_bytes for s in self.samples), default=None)

    @property
    def peak_anon_huge_bytes(self) -> int | None:
        """None unless a smaps_rollup read was taken near the RSS peak (see :func:`rollup_problem`)."""
        samples = list(self.samples)
        if rollup_problem(samples) is not None:
            return None
        return max((s.anon_huge_bytes for s in samples if s.anon_huge_bytes is not None), default=None)

    def finish(self, result: ProcessResult) -> Collected:
        if not self.supported:
            return Collected(hazards=[Hazard(UNSUPPORTED, "the /proc sampler needs Linux with "
                                             "/proc/PID/smaps_rollup (kernel 4.14 or newer)",
                                             hint="switch it off with `[collect] proc = false`")])
        samples = [s for s in self.samples if s.rss_bytes > 0]  # zero: not yet exec'd or a zombie
        if not samples:
            none = ProcDocument(0, unmeasured=dict.fromkeys(_SAMPLED_METRICS, "no sample of the running process"))
            return Collected(documents={ProcDocument.KIND: none.to_json()})
        shift = (self._started_epoch or result.started_at) - result.started_at
        child_cpu_s = result.measures.cpu_s if result.measures else None
        out = summarize(samples, max(0.0, shift), child_cpu_s=child_cpu_s, interval_s=self.interval_s,
                        gc_on_vm_thread=self.gc_on_vm_thread)
        other, steal = self._machine.shares(child_cpu_s)
        for name, value in ((OTHER_SHARE, other), (STEAL_SHARE, steal)):
            if value is not None:
                out.metrics[name] = value
        return out


_SAMPLED_METRICS = ("mem.peak_rss_bytes", "mem.peak_pss_bytes", "mem.peak_anon_huge_bytes",
                    *_SHARE_METRICS.values(), RUN_DELAY)


def _too_few(count: int, need: int, samples: list[ProcSample]) -> str | None:
    """Why ``count`` samples are not enough (None when they are)."""
    if count >= need:
        return None
    span = samples[-1].t_s - samples[0].t_s if samples else 0.0
    return f"fewer than {need} samples ({count} in {span:.2f} s)"


def summarize(samples: list[ProcSample], shift_s: float = 0.0, child_cpu_s: float | None = None,
              interval_s: float | None = None, gc_on_vm_thread: bool = False) -> Collected:
    """Timelines and metrics from samples (``shift_s`` moves times to the executor's clock).

    Timelines are kept whatever their length (their times say what they cover); metrics only
    where enough samples stand behind them, else ``documents["proc"]["unmeasured"]`` says why.
    """
    times = tuple(round(s.t_s + shift_s, 4) for s in samples)
    out = Collected()
    unmeasured: dict[str, str] = {}
    out.timelines["mem.rss_bytes"] = Timeline(times, tuple(float(s.rss_bytes) for s in samples), "bytes")
    why = _too_few(len(samples), MIN_MEMORY_SAMPLES, samples)
    if why:
        unmeasured["mem.peak_rss_bytes"] = why
    else:
        out.metrics["mem.peak_rss_bytes"] = float(max(s.rss_bytes for s in samples))
    rolled = [(t, s) for t, s in zip(times, samples, strict=False) if s.pss_bytes is not None]
    why_rolled = rollup_problem(samples, why)
    for attr in ("pss_bytes", "anon_huge_bytes"):
        if rolled:
            values = tuple(float(getattr(s, attr)) for _, s in rolled)
            out.timelines[f"mem.{attr}"] = Timeline(tuple(t for t, _ in rolled), values, "bytes")
        if why_rolled:
            unmeasured[f"mem.peak_{attr}"] = why_rolled
        else:
            out.metrics[f"mem.peak_{attr}"] = max(float(getattr(s, attr)) for _, s in rolled)
    for group, name in _CPU_TIMELINES.items():
        out.timelines[name] = Timeline(times, tuple(s.cpu_s[group] for s in samples), "s")
    why = _share_problem(samples, child_cpu_s)
    for group, name in _SHARE_METRICS.items():
        if why:
            unmeasured[name] = why
        elif name == "cpu.gc_share" and gc_on_vm_thread:
            unmeasured[name] = SERIAL_GC_WHY
        else:
            out.metrics[name] = samples[-1].cpu_s[group] / sum(samples[-1].cpu_s.values())
    delay = samples[-1].run_delay_s
    if delay is None:
        unmeasured[RUN_DELAY] = NO_SCHEDSTAT_WHY
    else:  # the last sample's sum, every thread at its last read (its delay after that read is lost)
        out.metrics[RUN_DELAY] = delay
    # Short runs (too few samples) are common and said in the document; these two are not.
    shown = {m: w for m, w in unmeasured.items()
             if m in ("cpu.gc_share", "cpu.jit_share") and (w == SERIAL_GC_WHY or w.startswith(UNSEEN_WHY))}
    if shown:  # a stored warning, so the terminal and the reports say why the column is empty
        out.hazards.append(Hazard(hazards.METRIC_UNMEASURED, _unmeasured_detail(shown),
                                  hint="the GC log's pause times and JFR's compilation events measure these instead"))
    doc = ProcDocument(len(samples), len(rolled), interval_s, unmeasured or None)
    out.documents[ProcDocument.KIND] = doc.to_json()
    return out


def _unmeasured_detail(reasons: dict[str, str]) -> str:
    """One line per distinct reason, without the per-invocation figure (the warnings of an
    experiment are deduplicated on their text)."""
    by_reason: dict[str, list[str]] = {}
    for metric, why in reasons.items():
        by_reason.setdefault(UNSEEN_WHY if why.startswith(UNSEEN_WHY) else why, []).append(metric)
    return "; ".join(f"{' and '.join(sorted(ms))} not measured: {why}" for why, ms in by_reason.items())


def rollup_problem(samples: list[ProcSample], rss_why: str | None = None) -> str | None:
    """Why the PSS and AnonHugePages peaks would not be peaks (None when they are): they come
    from the sparse smaps_rollup reads, so one of them must have been taken at an RSS within
    ``NEAR_PEAK`` of the sampled RSS peak, else the number shown could be far below the true
    peak (a read during start-up, then none as the heap grew). ``rss_why``: why the RSS peak
    itself is not given (then there is no peak to be near)."""
    if rss_why:
        return f"{rss_why}, so no RSS peak for a smaps_rollup read to be near"
    peak = max((s.rss_bytes for s in samples), default=0)
    at_reads = [s.rss_bytes for s in samples if s.pss_bytes is not None]
    if not at_reads or peak <= 0:
        return "no smaps_rollup read"
    if max(at_reads) < NEAR_PEAK * peak:
        return (f"no smaps_rollup read near the RSS peak: the highest RSS at a read was "
                f"{max(at_reads) / peak:.0%} of the sampled peak {peak / (1 << 20):.0f} MiB "
                f"(need {NEAR_PEAK:.0%}; {len(at_reads)} reads)")
    return None


def _share_problem(samples: list[ProcSample], child_cpu_s: float | None) -> str | None:
    """Why the CPU shares would not mean what they say (None when they do)."""
    why = _too_few(len(samples), MIN_SHARE_SAMPLES, samples)
    if why:
        return why
    total = sum(samples[-1].cpu_s.values())
    if total <= 0:
        return "no CPU time attributed to any thread"
    if child_cpu_s is not None and child_cpu_s > 0 and total < MIN_ATTRIBUTED * child_cpu_s:
        return (f"the samples attribute only {total / child_cpu_s:.0%} of the process's "
                f"{child_cpu_s:.2f} s of CPU time (need {MIN_ATTRIBUTED:.0%})")
    if unseen_share(samples[-1]) > MAX_UNSEEN:
        return f"{UNSEEN_WHY} ({unseen_share(samples[-1]):.1%} at the last sample)"
    return None


def unseen_share(sample: ProcSample) -> float:
    """The share of the process's CPU (at ``sample``) used by threads the sampler never read,
    beyond the rounding of per-thread clock ticks; 0 when the process's own figure is unknown."""
    if not sample.process_cpu_s:
        return 0.0
    rounding_s = 2 * sample.threads_seen / CLK_TCK
    missed = sample.process_cpu_s - sum(sample.cpu_s.values()) - rounding_s
    return max(0.0, missed) / sample.process_cpu_s


def serial_gc(ctx: ProbeContext) -> bool:
    """Does the cell run Serial GC (its collections run on the VM Thread)? From the JDK's final
    flags when the cell has them, else from the cell's own flags."""
    final = ctx.final_flags.get("UseSerialGC")
    if final is not None:
        return final == "true"
    chosen = [f for f in ctx.flags if f.startswith("-XX:+Use") and f.endswith("GC")]
    return bool(chosen) and chosen[-1] == "-XX:+UseSerialGC"


class ProcCollector:
    """Makes one :class:`ProcProbe` per invocation and remembers it for the flag-effect probe."""

    name = "proc"

    def __init__(self, interval_ms: int = 100) -> None:
        self.interval_s = interval_ms / 1000.0
        self.supported = proc_supported()
        self._probes: weakref.WeakValueDictionary[Path, ProcProbe] = weakref.WeakValueDictionary()

    def probe(self, ctx: ProbeContext) -> ProcProbe:
        probe = ProcProbe(self.interval_s, self.supported, gc_on_vm_thread=serial_gc(ctx))
        self._probes[ctx.artifacts_dir] = probe
        return probe

    def probe_for(self, ctx: ProbeContext) -> ProcProbe | None:
        """The probe made for the same invocation (same artifacts folder), if any."""
        return self._probes.get(ctx.artifacts_dir)
