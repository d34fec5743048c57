"""Running one load phase: its client processes (each in its own process group, or tracked as
a process tree under the psutil executor; argv only), bounded by the phase's duration plus a
timeout, each measured alone: wait4 on POSIX, psutil samples on Windows.

The client's resource use is kept apart from the server's: it is recorded as ``client.*``.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from jvmlab.server.control import GroupControl, ProcessControl
from jvmlab.spec.server import PORT_PLACEHOLDER, Phase

SUMMARY_PLACEHOLDER = "{summary}"  # k6 --summary-export target, one file per client


@dataclass(frozen=True)
class ClientRun:
    """One client process of a phase, as it ended."""

    argv: tuple[str, ...]
    exit_code: int | None  # None: killed by a signal or by jvmlab at its timeout
    reason: str | None  # why it failed, None when it exited 0
    output_path: Path
    summary_path: Path
    cpu_s: float
    max_rss_bytes: int
    wall_s: float

    @property
    def ok(self) -> bool:
        return self.reason is None

    def tail(self, n_bytes: int = 2000) -> str:
        try:
            data = self.output_path.read_bytes()
        except OSError:
            return ""
        return data[-n_bytes:].decode(errors="replace")


def phase_argv(phase: Phase, client_base: list[str], port: int, url_path: str) -> list[str]:
    """The argv of one client of ``phase``: the built-in generator with the phase's duration or
    count, or the phase's own command with ``{port}``, ``{duration_s}``, ``{count}`` filled in."""
    if phase.builtin:
        bound = (["--duration-s", f"{phase.duration:g}"] if phase.duration is not None
                 else ["--requests", str(phase.count)])
        return [*client_base, "--url", f"http://127.0.0.1:{port}{url_path}", *bound, *phase.args]
    values = {PORT_PLACEHOLDER: str(port), "{duration_s}": f"{phase.duration or 0:g}",
              "{count}": str(phase.count or 0)}
    out = []
    for part in [*(phase.command or []), *phase.args]:
        for key, value in values.items():
            part = part.replace(key, value)
        out.append(part)
    return out


def run_phase(phase: Phase, argvs: list[list[str]], folder: Path, timeout_s: float,
              env: dict[str, str], control: ProcessControl | None = None, cwd: Path | None = None) -> list[ClientRun]:
    """Start every client of the phase at once, wait for all (each bounded by ``timeout_s``).

    The clients run in ``cwd`` (the phase's folder, resolved from the spec at plan time; none:
    jvmlab's own), and a relative program (``./bench.sh``) is looked up there."""
    control = control or GroupControl()
    folder.mkdir(parents=True, exist_ok=True)
    started: list[tuple[list[str], subprocess.Popen[bytes] | None, Path, Path, float]] = []
    for i, argv in enumerate(argvs):
        out_path = folder / f"{phase.name}-client{i}.txt"
        summary = folder / f"{phase.name}-client{i}-summary.json"
        argv = [a.replace(SUMMARY_PLACEHOLDER, str(summary)) for a in argv]
        if cwd is not None and argv and "/" in argv[0] and not Path(argv[0]).is_absolute():
            argv = [str(cwd / argv[0]), *argv[1:]]
        with out_path.open("wb") as out:
            try:
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                        close_fds=True, env=env, cwd=cwd, **control.spawn_kwargs())
            except OSError as err:
                out.write(f"cannot start {argv[0]}: {err}\n".encode())
                started.append((argv, None, out_path, summary, time.perf_counter()))
                continue
        started.append((argv, proc, out_path, summary, time.perf_counter()))
    deadline = time.monotonic() + timeout_s
    return [_wait(argv, proc, out_path, summary, t0, deadline, control)
            for argv, proc, out_path, summary, t0 in started]


@dataclass(frozen=True)
class _Ended:
    code: int | None  # None: killed by a signal
    signal: int | None
    cpu_s: float
    max_rss_bytes: int
    timed_out: bool


def _wait(argv: list[str], proc: subprocess.Popen[bytes] | None, out_path: Path, summary: Path,
          t0: float, deadline: float, control: ProcessControl) -> ClientRun:
    if proc is None:
        return ClientRun(tuple(argv), None, f"cannot start {argv[0]}", out_path, summary, 0.0, 0, 0.0)
    ended = _wait_wait4(proc, deadline, control) if hasattr(os, "wait4") else _wait_psutil(proc, deadline, control)
    control.kill_all(proc.pid)  # anything it left behind
    wall = time.perf_counter() - t0
    if ended.timed_out:
        reason: str | None = f"client {argv[0]} did not finish within its timeout; killed"
    elif ended.code is None:
        reason = f"client {argv[0]} killed by signal {ended.signal}"
    elif ended.code != 0:
        reason = f"client {argv[0]} exited with code {ended.code}"
    else:
        reason = None
    return ClientRun(tuple(argv), ended.code, reason, out_path, summary, ended.cpu_s, ended.max_rss_bytes, wall)


def _wait_wait4(proc: subprocess.Popen[bytes], deadline: float, control: ProcessControl) -> _Ended:
    """POSIX: the client's exact rusage from wait4 (its own CPU and peak RSS, never the server's)."""
    timed_out = False
    status, rusage = 0, None
    for _ in range(1_000_000):  # bounded: ends at the deadline at the latest
        pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        if time.monotonic() >= deadline:
            timed_out = True
            control.kill_all(proc.pid)
            _, status, rusage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.02)
    proc.returncode = 0  # reaped by wait4
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    cpu = (rusage.ru_utime + rusage.ru_stime) if rusage else 0.0
    return _Ended(code, sig, cpu, rusage.ru_maxrss * 1024 if rusage else 0, timed_out)


def _wait_psutil(proc: subprocess.Popen[bytes], deadline: float, control: ProcessControl) -> _Ended:
    """Windows: sampled through psutil while it runs (CPU, peak working set), bounded by the deadline."""
    import psutil

    cpu, rss, timed_out = 0.0, 0, False
    handle = psutil.Process(proc.pid)
    for _ in range(10_000_000):  # bounded: ends at the deadline at the latest
        try:
            with handle.oneshot():
                times, memory = handle.cpu_times(), handle.memory_info()
            cpu = times.user + times.system
            rss = max(rss, int(getattr(memory, "peak_wset", memory.rss)))
        except psutil.Error:
            pass
        if proc.poll() is not None:
            break
        if time.monotonic() >= deadline:
            timed_out = True
            control.kill_all(proc.pid)
            proc.wait(10)
            break
        time.sleep(0.05)
    return _Ended(proc.returncode, None, cpu, rss, timed_out)
