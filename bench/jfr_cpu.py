"""CPU time of a running JVM by thread group, read from /proc at each of chunkgen's progress lines,
for ``bench/jfr_overhead.py``: the steady state's CPU per chunk (process and worker threads) and
how much JFR's own threads take.

Why CPU as well as throughput: on a machine others use too, the JVM's share of the cores moves
its throughput by far more than 2 %; CPU spent per unit of work moves much less. And the
split by thread group says where a cost sits (the workers' own code paths, GC, JIT, JFR's threads).
"""

from __future__ import annotations

import os
from pathlib import Path

from jvmlab.collect.base import NullProbe

_TICK_S = 1 / os.sysconf("SC_CLK_TCK")
GROUPS = (("jfr", ("JFR ",)), ("workers", ("chunkgen-",)), ("gc", ("G1 ", "GC Thread")),
          ("jit", ("C1 Compi", "C2 Compi")))
SHOWN = ("workers", "jit", "gc", "jfr", "other")


def thread_cpu_s(pid: int) -> dict[str, float]:
    """CPU seconds (user + system) of the process's threads, summed by group of thread names,
    and of the whole process under "all" (which keeps the time of threads that have ended)."""
    out: dict[str, float] = {"all": _cpu_s(Path(f"/proc/{pid}/stat"))}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue  # the thread ended
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        group = next((g for g, prefixes in GROUPS if name.startswith(prefixes)), "other")
        out[group] = out.get(group, 0.0) + _cpu_s(task / "stat", stat)
    return out


def _cpu_s(path: Path, text: str | None = None) -> float:
    """utime + stime of a /proc stat file, in seconds (0 when the process or thread is gone)."""
    try:
        stat = text if text is not None else path.read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) * _TICK_S


class CpuProbe(NullProbe):
    """At each progress line of chunkgen, the CPU time of the JVM's threads by group."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.snapshots: list[tuple[int, dict[str, float]]] = []
        self.times_s: list[float] = []  # when each snapshot's progress line arrived
        self.toggles: list[tuple[float, bool]] = []  # JfrToggle's "jfr-toggle on|off" lines: (when, on)
        self.last_line_s = float("nan")  # when main printed its last line: the rest is exit (JFR's dump)

    def on_start(self, pid: int) -> None:
        self.pid = pid

    def on_line(self, stream: str, t_s: float, line: str) -> None:
        if stream == "stdout":
            self.last_line_s = t_s
        if self.pid is not None and stream == "stdout" and line.startswith("progress "):
            self.snapshots.append((int(line.split()[1]), thread_cpu_s(self.pid)))  # off the JVM's CPU
            self.times_s.append(t_s)
        elif stream == "stdout" and line.startswith("jfr-toggle "):
            self.toggles.append((t_s, line.split()[1] == "on"))

    def steady(self, skip_s: int) -> dict[str, float]:
        """Between second ``skip_s`` and the last but one (workers stop at the deadline, and a
        thread's time is gone from /proc/<pid>/task once it has ended): CPU ms per chunk of the
        process (``cpu_ms``) and of the worker threads (``workers_cpu_ms``), JFR threads' share of
        the process CPU, and CPU ms per second of each thread group (``ms_s_<group>``)."""
        nan = float("nan")
        if len(self.snapshots) < skip_s + 3:
            return {"cpu_ms": nan, "workers_cpu_ms": nan, "jfr_share": nan}
        (n0, c0), (n1, c1) = self.snapshots[skip_s - 1], self.snapshots[-3]
        spent = {g: c1.get(g, 0.0) - c0.get(g, 0.0) for g in c1}
        seconds = len(self.snapshots) - 2 - skip_s
        chunks = n1 - n0
        out = {f"ms_s_{g}": 1000 * spent.get(g, 0.0) / seconds for g in SHOWN}
        out["cpu_ms"] = 1000 * spent["all"] / chunks if chunks > 0 else nan
        out["workers_cpu_ms"] = 1000 * spent.get("workers", 0.0) / chunks if chunks > 0 else nan
        out["jfr_share"] = spent.get("jfr", 0.0) / spent["all"] if spent["all"] > 0 else nan
        return out
