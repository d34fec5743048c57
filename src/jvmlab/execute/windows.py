"""The psutil executor: the same ``run(plan, probes) -> ProcessResult`` on Windows (and anywhere).

Windows has no ``wait4`` and no process groups, so this executor measures through psutil and
the process handle instead:

- wall time from the monotonic clock, as the local executor;
- peak working set, CPU times and page faults: psutil samples the child every ``poll_s`` while
  it runs; on Windows the last word comes from the child's own handle after it exited
  (``GetProcessMemoryInfo``/``GetProcessTimes`` through ctypes: exact peaks and totals);
  on POSIX the child is reaped with ``wait4`` (exact rusage, as the local executor);
- the process tree (every descendant psutil saw, plus those alive at the end) is killed on
  timeout or on any exception in jvmlab, Ctrl-C included.

The mapping from psutil's records to :class:`ProcessMeasures` is pure
(:func:`measures_from_psutil`) and tested on recorded psutil outputs. Windows counts soft and
hard page faults together (``PageFaultCount``): that total is reported as ``minor_faults`` and
``major_faults`` stays None; context switches are not split by Windows and stay None.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import psutil

from jvmlab.execute.output import ReadyWatch, judged, start_readers
from jvmlab.execute.reason import failure_reason
from jvmlab.model.probe import Probe
from jvmlab.model.process import InvocationPlan, ProcessMeasures, ProcessResult, Status
from jvmlab.server.control import kill_tree

if TYPE_CHECKING:
    import resource  # POSIX only: the type of os.wait4's rusage

    from jvmlab.execute.protocols import Executor

POLL_S = 0.05
DESCENDANTS_EVERY = 5  # list the process tree every 5th sample (0.25 s)
WINDOWS_FAULT_NOTE = "Windows PageFaultCount: soft and hard faults together, reported as minor_faults"


@dataclass
class Samples:
    """What the sampler saw of the child: the last psutil records and every descendant's pid."""

    memory: dict[str, float] = field(default_factory=dict)
    times: dict[str, float] = field(default_factory=dict)
    max_rss_bytes: int | None = None
    descendants: set[int] = field(default_factory=set)
    counters: bool = True  # False on POSIX, where wait4 gives exact figures at the end
    taken: int = 0

    def take(self, proc: psutil.Process) -> None:
        """One sample; descendants every DESCENDANTS_EVERY samples (listing them scans every process)."""
        if self.counters:
            with proc.oneshot():
                memory = proc.memory_info()._asdict()
                times = proc.cpu_times()._asdict()
            self.memory, self.times = memory, times
            rss = int(memory.get("rss", 0))
            self.max_rss_bytes = rss if self.max_rss_bytes is None else max(self.max_rss_bytes, rss)
        if self.taken % DESCENDANTS_EVERY == 0:
            self.descendants.update(child.pid for child in proc.children(recursive=True))
        self.taken += 1


def measures_from_psutil(memory: Mapping[str, float], times: Mapping[str, float], wall_s: float,
                         sampled_max_rss: int | None = None, ready_s: float | None = None) -> ProcessMeasures:
    """ProcessMeasures from psutil's ``memory_info()`` and ``cpu_times()`` fields (as dicts).

    Windows (``peak_wset``, ``num_page_faults``): the OS's own peak and fault count. macOS
    (``pfaults``, ``pageins``): faults and page-ins. Elsewhere: the largest sampled RSS (a lower
    bound of the true peak) and no fault counts.
    """
    peak = memory.get("peak_wset")
    if peak is None:
        peak = sampled_max_rss
    minor = memory.get("num_page_faults", memory.get("pfaults"))
    major = memory.get("pageins")
    return ProcessMeasures(
        wall_s=wall_s,
        user_s=_float(times.get("user")), sys_s=_float(times.get("system")),
        max_rss_bytes=None if peak is None else int(peak),
        minor_faults=None if minor is None else int(minor),
        major_faults=None if major is None else int(major),
        vol_ctx_switches=None, invol_ctx_switches=None, ready_s=ready_s,
    )


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


class PsutilExecutor:
    """Runs invocations on this machine through psutil. ``run(plan, probes) -> ProcessResult``."""

    name = "psutil"
    tree_control = True  # server runs stop it by process tree (server/control.py)

    def __init__(self, poll_s: float = POLL_S) -> None:
        self.poll_s = poll_s

    def run(self, plan: InvocationPlan, probes: Sequence[Probe] = ()) -> ProcessResult:
        plan.artifacts_dir.mkdir(parents=True, exist_ok=True)
        stdout_path = plan.artifacts_dir / "stdout.txt"
        stderr_path = plan.artifacts_dir / "stderr.txt"
        started_at = time.time()
        ready = ReadyWatch(plan.ready_regex) if plan.ready_regex else None
        t0 = time.perf_counter()
        try:
            proc = subprocess.Popen(list(plan.argv), cwd=plan.cwd, env=plan.env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, close_fds=True,
                                    **_new_group_kwargs())
        except OSError as err:
            return ProcessResult(Status.START_FAILED, f"cannot start {plan.argv[0]}: {err.strerror or err}",
                                 None, None, None, None, started_at)
        if proc.stdout is None or proc.stderr is None:  # cannot be: both were asked for as pipes
            raise RuntimeError("subprocess.Popen returned no pipes")
        readers = start_readers(plan, (proc.stdout, proc.stderr), (stdout_path, stderr_path), t0, probes, ready)
        samples = Samples(counters=os.name == "nt")
        timed_out = threading.Event()
        stop = threading.Event()

        def on_timeout() -> None:
            timed_out.set()
            kill_tree(proc.pid, samples.descendants.copy())

        # The main thread blocks on the child's exit (no polling delay in wall_s); a thread samples.
        sampler = threading.Thread(target=self._sample, args=(proc.pid, samples, stop), daemon=True,
                                   name="jvmlab-psutil-sampler")
        timer = threading.Timer(plan.timeout_s, on_timeout)
        timer.daemon = True
        sampler.start()
        timer.start()
        try:
            for probe in probes:
                probe.on_start(proc.pid)
            code, rusage = _wait(proc)
            wall_s = time.perf_counter() - t0
        except BaseException:
            kill_tree(proc.pid, samples.descendants.copy())
            proc.wait()
            raise
        finally:
            timer.cancel()
            stop.set()
            sampler.join(timeout=5)
        kill_tree(proc.pid, samples.descendants.copy())  # anything the workload left behind
        for reader in readers:
            reader.join(timeout=10)
        for probe in probes:
            probe.on_exit()
        measures = _final_measures(proc, samples, rusage, wall_s, ready.ready_s if ready else None)
        status, reason, exit_code = _classify(code, timed_out.is_set(), plan.timeout_s, readers[1].tail)
        extra: dict[str, object] = {"executor": self.name}
        if sys.platform == "win32":
            extra["fault_counting"] = WINDOWS_FAULT_NOTE
        return judged(ready, ProcessResult(
            status=status, reason=reason, exit_code=exit_code, signal=None, measures=measures, pid=proc.pid,
            started_at=started_at, stdout_path=stdout_path, stderr_path=stderr_path, stdout_tail=readers[0].tail,
            stderr_tail=readers[1].tail, output_truncated=any(r.dropped for r in readers), extra=extra))

    def _sample(self, pid: int, samples: Samples, stop: threading.Event) -> None:
        """Sample the child every ``poll_s`` until told to stop or the child is gone."""
        handle = _psutil_process(pid)
        while handle is not None:
            try:
                samples.take(handle)
            except psutil.Error:  # exited (or a zombie on POSIX): the final figures come from wait
                return
            if stop.wait(self.poll_s):
                return


def _wait(proc: subprocess.Popen[bytes]) -> tuple[int, resource.struct_rusage | None]:
    """Block until the child exits: (exit code, rusage). Windows keeps the handle for the counters;
    POSIX reaps with wait4 for the child's exact rusage."""
    if os.name == "nt":
        return proc.wait(), None
    _, status, rusage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; keep Popen from waiting again
    return proc.returncode, rusage


def _psutil_process(pid: int) -> psutil.Process | None:
    try:
        return psutil.Process(pid)
    except psutil.NoSuchProcess:
        return None


def _new_group_kwargs() -> dict[str, Any]:
    """A new process group (Windows) or session (POSIX) so a console Ctrl-C reaches jvmlab only."""
    if os.name == "nt":
        return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    return {"start_new_session": True}


def _final_measures(proc: subprocess.Popen[bytes], samples: Samples, rusage: resource.struct_rusage | None,
                    wall_s: float, ready_s: float | None) -> ProcessMeasures:
    if rusage is not None:  # POSIX: exact, from wait4
        return ProcessMeasures(
            wall_s=wall_s, user_s=rusage.ru_utime, sys_s=rusage.ru_stime,
            max_rss_bytes=rusage.ru_maxrss * (1 if sys.platform == "darwin" else 1024),
            minor_faults=rusage.ru_minflt, major_faults=rusage.ru_majflt,
            vol_ctx_switches=rusage.ru_nvcsw, invol_ctx_switches=rusage.ru_nivcsw,
            ready_s=ready_s)
    memory, times = dict(samples.memory), dict(samples.times)
    if os.name == "nt":
        from jvmlab.execute.winhandle import final_counters

        exact = final_counters(proc)
        if exact is not None:
            memory, times = exact
    return measures_from_psutil(memory, times, wall_s, samples.max_rss_bytes, ready_s)


def _classify(code: int, timed_out: bool, timeout_s: float, stderr_tail: str) -> tuple[Status, str | None, int | None]:
    if timed_out:
        return Status.TIMEOUT, f"timed out after {timeout_s:g} s; process tree killed", None
    if code < 0:
        return Status.SIGNALED, f"killed by signal {-code} (not sent by jvmlab)", None
    if code != 0:
        line = failure_reason(stderr_tail)
        return Status.FAILED, f"exit code {code}" + (f": {line}" if line else ""), code
    return Status.OK, None, 0


def default_executor() -> Executor:
    """The executor for this platform: wait4-based locally on POSIX, psutil on Windows."""
    if os.name == "nt":
        return PsutilExecutor()
    from jvmlab.execute.local import LocalExecutor

    return LocalExecutor()
