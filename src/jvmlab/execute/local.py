"""The local executor: one fresh process per invocation, measured with wait4.

The child gets its own process group (so a timeout kills everything it started) and a
parent-death signal (so a killed jvmlab leaves no JVM running). Any exception in jvmlab
while the child runs, Ctrl-C included, kills the child's group before propagating.
"""

from __future__ import annotations

import ctypes
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Sequence

from jvmlab.collect.base import Probe
from jvmlab.execute.output import ReadyWatch, StreamReader
from jvmlab.execute.records import InvocationPlan, ProcessMeasures, ProcessResult, Status

_PR_SET_PDEATHSIG = 1
_REASON_LINE = re.compile(r"(Exception in thread|Error:|Error occurred|OutOfMemoryError|"
                          r"Could not|Unrecognized|Invalid|fatal error|SIGSEGV|Caused by)")


def _load_prctl() -> object | None:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


# Looked up once in the parent: between fork and exec the child only calls it (no dlopen,
# no allocation that could wait on a lock another thread held at fork time).
_PRCTL = _load_prctl()


def _child_setup() -> None:  # pragma: no cover - runs in the child between fork and exec
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # type: ignore[operator]


class LocalExecutor:
    """Runs invocations on this machine. ``run(plan, probes) -> ProcessResult``."""

    name = "local"

    def run(self, plan: InvocationPlan, probes: Sequence[Probe] = ()) -> ProcessResult:
        plan.artifacts_dir.mkdir(parents=True, exist_ok=True)
        stdout_path = plan.artifacts_dir / "stdout.txt"
        stderr_path = plan.artifacts_dir / "stderr.txt"
        started_at = time.time()
        ready = ReadyWatch(plan.ready_regex) if plan.ready_regex else None
        callbacks = [p.on_line for p in probes]
        t0 = time.perf_counter()
        try:
            proc = subprocess.Popen(
                list(plan.argv), cwd=plan.cwd, env=plan.env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                preexec_fn=_child_setup, close_fds=True,
            )
        except OSError as err:
            return ProcessResult(Status.START_FAILED, f"cannot start {plan.argv[0]}: {err.strerror or err}",
                                 None, None, None, None, started_at)
        readers = [
            StreamReader("stdout", proc.stdout, stdout_path, plan.output_cap_bytes, plan.tail_bytes,  # type: ignore[arg-type]
                         t0, callbacks, ready),
            StreamReader("stderr", proc.stderr, stderr_path, plan.output_cap_bytes, plan.tail_bytes,  # type: ignore[arg-type]
                         t0, callbacks, ready),
        ]
        for reader in readers:
            reader.start()
        timed_out = threading.Event()

        def on_timeout() -> None:
            timed_out.set()
            _kill_group(proc.pid)

        timer = threading.Timer(plan.timeout_s, on_timeout)
        timer.daemon = True
        timer.start()
        try:
            for probe in probes:
                probe.on_start(proc.pid)
            _, wait_status, rusage = os.wait4(proc.pid, 0)
            wall_s = time.perf_counter() - t0
        except BaseException:
            _kill_group(proc.pid)
            _reap(proc)
            raise
        finally:
            timer.cancel()
            proc.returncode = 0  # reaped by wait4; keep Popen from waiting again
        _kill_group(proc.pid)  # anything the workload left behind in its group
        for reader in readers:
            reader.join(timeout=10)
        for probe in probes:
            probe.on_exit()
        measures = ProcessMeasures(
            wall_s=wall_s, user_s=rusage.ru_utime, sys_s=rusage.ru_stime,
            max_rss_bytes=rusage.ru_maxrss * 1024, minor_faults=rusage.ru_minflt,
            major_faults=rusage.ru_majflt, vol_ctx_switches=rusage.ru_nvcsw,
            invol_ctx_switches=rusage.ru_nivcsw, ready_s=ready.ready_s if ready else None,
        )
        status, reason, code, sig = _classify(wait_status, timed_out.is_set(), plan.timeout_s,
                                              readers[1].tail, readers[0].tail)
        return ProcessResult(
            status=status, reason=reason, exit_code=code, signal=sig, measures=measures,
            pid=proc.pid, started_at=started_at, stdout_path=stdout_path, stderr_path=stderr_path,
            stdout_tail=readers[0].tail, stderr_tail=readers[1].tail,
            output_truncated=any(r.dropped for r in readers),
        )


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
    for text in (stderr_tail, stdout_tail):
        for line in text.splitlines():
            if _REASON_LINE.search(line):
                return f": {line.strip()[:300]}"
    last = [line for line in stderr_tail.splitlines() if line.strip()]
    return f": {last[-1].strip()[:300]}" if last else ""


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.waitpid(proc.pid, 0)
    except ChildProcessError:
        pass
