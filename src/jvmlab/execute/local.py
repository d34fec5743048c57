"""The local executor: one fresh process per invocation, measured from the child alone.

Each command is forked by the launch helper (:mod:`jvmlab.execute.launcher`), a tiny static
program jvmlab posix_spawns; the helper reads the clock next to fork and wait and reaps the
child with wait4, so the wall time, CPU times and peak RSS are the child's own: not jvmlab's
fork cost, not Python's thread scheduling, not Python's 110 MB high-water RSS (which a child
forked or vforked from jvmlab carries in ``ru_maxrss`` across exec).

Guarantees: the child leads its own process group (a timeout kills everything it started),
in jvmlab's session (a new session would also mean a new scheduler autogroup: a different
CPU share on a busy machine than hyperfine's or a shell's children get); when jvmlab dies,
even by SIGKILL, the helper's parent-death signal makes it kill the
child's group, and the child's own parent-death SIGKILL covers a helper killed outright; both
are set in C between fork and exec, never by a Python callback. Any exception in jvmlab while
the child runs, Ctrl-C included, kills the child's group before propagating.

Without a C compiler (the helper cannot be built) the child is started by ``subprocess``
without a fork callback, behind ``setpriv --pdeathsig KILL`` when util-linux has it; its peak
RSS is then not measurable (None), since it would carry jvmlab's own.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from jvmlab.execute import launcher
from jvmlab.execute.output import ClockOrigin, ReadyWatch, StreamReader, judged, start_readers
from jvmlab.execute.reason import failure_reason
from jvmlab.model.probe import Probe
from jvmlab.model.process import InvocationPlan, ProcessMeasures, ProcessResult, Status
from jvmlab.server.control import kill_group


class LocalExecutor:
    """Runs invocations on this machine. ``run(plan, probes) -> ProcessResult``.

    ``use_helper=False`` forces the fallback path (no launch helper); by default the helper is
    used whenever it can be built.
    """

    name = "local"

    def __init__(self, use_helper: bool = True) -> None:
        self.use_helper = use_helper

    def run(self, plan: InvocationPlan, probes: Sequence[Probe] = ()) -> ProcessResult:
        plan.artifacts_dir.mkdir(parents=True, exist_ok=True)
        helper = launcher.launcher_path() if self.use_helper else None
        if helper is None:
            return _run_fallback(plan, probes)
        return _Launch(plan, probes, helper).run()


class _Launch:
    """One invocation through the launch helper.

    While the child runs, jvmlab sleeps in waitpid on the helper: the reader threads are
    started before the spawn and wake only for output; the helper itself enforces the timeout.
    Only when a probe or the ready marker needs the child's pid or start time (collectors on)
    does jvmlab read the helper's start report as it comes.
    """

    def __init__(self, plan: InvocationPlan, probes: Sequence[Probe], helper: Path) -> None:
        self.plan, self.probes, self.helper = plan, probes, helper
        self.stdout_path = plan.artifacts_dir / "stdout.txt"
        self.stderr_path = plan.artifacts_dir / "stderr.txt"
        self.ready = ReadyWatch(plan.ready_regex) if plan.ready_regex else None
        self.origin = ClockOrigin()
        self.started: launcher.Started | None = None

    def run(self) -> ProcessResult:
        plan = self.plan
        started_at = time.time()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        rep_r, rep_w = os.pipe()
        out_w, err_w, rep_w = (launcher.high_fd(fd) for fd in (out_w, err_w, rep_w))
        # before the spawn: no thread starts while the child runs
        readers = start_readers(plan, (os.fdopen(out_r, "rb"), os.fdopen(err_r, "rb")),
                                (self.stdout_path, self.stderr_path), self.origin, self.probes, self.ready)
        try:
            helper_pid = launcher.spawn(self.helper, plan.argv, plan.env, plan.cwd, plan.timeout_s,
                                        out_w, err_w, rep_w)
        except OSError as err:
            helper_pid = None
            reason = f"cannot start the launch helper {self.helper}: {err.strerror or err}"
        finally:
            for fd in (out_w, err_w, rep_w):
                os.close(fd)
        with os.fdopen(rep_r, "rb") as report:
            reports = self._watch(report, helper_pid) if helper_pid is not None else []
        self.origin.set(self.started.t_start if self.started else time.perf_counter())
        for reader in readers:
            reader.join(timeout=10)
        for probe in self.probes:
            probe.on_exit()
        if helper_pid is None:
            return _start_failed(plan, reason, started_at)
        return self._outcome(reports, readers, started_at)

    def _watch(self, report: BinaryIO, helper_pid: int) -> list[launcher.Started | launcher.Ended | int]:
        """Wait for the helper to exit (starting the probes first, if any); its reports."""
        reports: list[launcher.Started | launcher.Ended | int] = []
        try:
            if self.probes or self.ready is not None:
                first = report.readline()
                if first:
                    reports.append(self._note(launcher.parse_report(first.decode())))
                    if self.started is not None:
                        for probe in self.probes:
                            probe.on_start(self.started.pid)
            _reap(helper_pid)
        except BaseException:
            _stop(helper_pid, self.started)
            raise
        reports.extend(self._note(launcher.parse_report(line.decode())) for line in report.read().splitlines())
        return reports

    def _note(self, got: launcher.Started | launcher.Ended | int) -> launcher.Started | launcher.Ended | int:
        if isinstance(got, launcher.Started):
            self.started = got
            self.origin.set(got.t_start)
        return got

    def _outcome(self, reports: list[launcher.Started | launcher.Ended | int], readers: list[StreamReader],
                 started_at: float) -> ProcessResult:
        plan = self.plan
        failed = next((r for r in reports if isinstance(r, int)), None)
        ended = next((r for r in reports if isinstance(r, launcher.Ended)), None)
        if failed is not None:
            return _start_failed(plan, f"cannot start {plan.argv[0]}: {os.strerror(failed)}", started_at)
        if self.started is None:
            return _start_failed(plan, "the launch helper ended without starting the command", started_at)
        if ended is None:
            kill_group(self.started.pid)
            return ProcessResult(Status.SIGNALED, "the launch helper was killed while the command ran; "
                                 "its process group was killed", None, None, None, self.started.pid, started_at,
                                 self.stdout_path, self.stderr_path, readers[0].tail, readers[1].tail)
        measures = ProcessMeasures(
            wall_s=ended.t_end - self.started.t_start, user_s=ended.user_s, sys_s=ended.sys_s,
            max_rss_bytes=ended.max_rss_bytes, minor_faults=ended.minor_faults,
            major_faults=ended.major_faults, vol_ctx_switches=ended.vol_ctx_switches,
            invol_ctx_switches=ended.invol_ctx_switches,
            ready_s=self.ready.ready_s if self.ready else None,
        )
        status, reason, code, sig = _classify(ended.wait_status, ended.timed_out, plan.timeout_s,
                                              readers[1].tail, readers[0].tail)
        return judged(self.ready, ProcessResult(
            status=status, reason=reason, exit_code=code, signal=sig, measures=measures,
            pid=self.started.pid, started_at=started_at, stdout_path=self.stdout_path,
            stderr_path=self.stderr_path, stdout_tail=readers[0].tail, stderr_tail=readers[1].tail,
            output_truncated=any(r.dropped for r in readers),
        ))


def _stop(helper_pid: int, started: launcher.Started | None) -> None:
    """jvmlab is leaving (exception, Ctrl-C): the helper kills the child's group and exits."""
    try:
        os.kill(helper_pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    if started is not None:
        kill_group(started.pid)
    _reap(helper_pid)


def _start_failed(plan: InvocationPlan, reason: str, started_at: float) -> ProcessResult:
    return ProcessResult(Status.START_FAILED, reason, None, None, None, None, started_at)


def _run_fallback(plan: InvocationPlan, probes: Sequence[Probe]) -> ProcessResult:
    """Without the helper: subprocess with no fork callback (vfork), setpriv for the parent-death kill."""
    stdout_path = plan.artifacts_dir / "stdout.txt"
    stderr_path = plan.artifacts_dir / "stderr.txt"
    started_at = time.time()
    ready = ReadyWatch(plan.ready_regex) if plan.ready_regex else None
    setpriv = shutil.which("setpriv")
    argv = [setpriv, "--pdeathsig", "KILL", "--", *plan.argv] if setpriv else list(plan.argv)
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(argv, cwd=plan.cwd, env=plan.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, process_group=0)
    except OSError as err:
        return _start_failed(plan, f"cannot start {plan.argv[0]}: {err.strerror or err}", started_at)
    if proc.stdout is None or proc.stderr is None:  # cannot be: both were asked for as pipes
        raise RuntimeError("subprocess.Popen returned no pipes")
    readers = start_readers(plan, (proc.stdout, proc.stderr), (stdout_path, stderr_path), t0, probes, ready)
    timed_out = threading.Event()

    def on_timeout() -> None:
        timed_out.set()
        kill_group(proc.pid)

    timer = threading.Timer(plan.timeout_s, on_timeout)
    timer.daemon = True
    timer.start()
    try:
        for probe in probes:
            probe.on_start(proc.pid)
        _, wait_status, rusage = os.wait4(proc.pid, 0)
        wall_s = time.perf_counter() - t0
    except BaseException:
        kill_group(proc.pid)
        _reap(proc.pid)
        raise
    finally:
        timer.cancel()
        proc.returncode = 0  # reaped by wait4; keep Popen from waiting again
    kill_group(proc.pid)
    for reader in readers:
        reader.join(timeout=10)
    for probe in probes:
        probe.on_exit()
    measures = ProcessMeasures(
        wall_s=wall_s, user_s=rusage.ru_utime, sys_s=rusage.ru_stime,
        max_rss_bytes=None,  # would carry jvmlab's own high-water RSS (inherited across exec)
        minor_faults=rusage.ru_minflt, major_faults=rusage.ru_majflt, vol_ctx_switches=rusage.ru_nvcsw,
        invol_ctx_switches=rusage.ru_nivcsw, ready_s=ready.ready_s if ready else None,
    )
    status, reason, code, sig = _classify(wait_status, timed_out.is_set(), plan.timeout_s,
                                          readers[1].tail, readers[0].tail)
    return judged(ready, ProcessResult(status, reason, code, sig, measures, proc.pid, started_at, stdout_path,
                                       stderr_path, readers[0].tail, readers[1].tail,
                                       any(r.dropped for r in readers),
                                       extra={"launcher": "subprocess (no C compiler for the launch helper)"}))


def _classify(wait_status: int, timed_out: bool, timeout_s: float, stderr_tail: str,
              stdout_tail: str) -> tuple[Status, str | None, int | None, int | None]:
    if os.WIFSIGNALED(wait_status):
        sig = os.WTERMSIG(wait_status)
        if timed_out:
            return Status.TIMEOUT, f"timed out after {timeout_s:g} s; process group killed", None, sig
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        origin = " (not sent by jvmlab: the kernel's OOM killer or another process)" if sig == signal.SIGKILL else ""
        return Status.SIGNALED, f"killed by {name}{origin}{_why(stderr_tail, stdout_tail)}", None, sig
    code = os.WEXITSTATUS(wait_status)
    if code != 0:
        return Status.FAILED, f"exit code {code}{_why(stderr_tail, stdout_tail)}", code, None
    return Status.OK, None, 0, None


def _why(stderr_tail: str, stdout_tail: str) -> str:
    """The most telling line of the output, to make a failure's reason readable."""
    line = failure_reason(stderr_tail, stdout_tail)
    return f": {line}" if line else ""


def _reap(pid: int) -> None:
    while True:
        try:
            os.waitpid(pid, 0)
            return
        except ChildProcessError:
            return
        except InterruptedError:
            continue
