"""Observer effect of the jfr collector: the same workload with JFR off and with JFR variants,
interleaved in one run, compared in pairs, with a 95 % interval on the throughput ratio.

    .venv/bin/python bench/jfr_overhead.py [--jdk HOME] [--rounds 8] [--seconds 15]
        [--threads 2] [--skip-s 3] [--arms default,jdk-default,no-extras-old,memory,profile]

The workload is the built-in ``chunkgen`` (allocation-heavy, multi-threaded). Throughput is
its steady-state rate: chunks per second from its per-second progress lines after
``--skip-s`` seconds (JFR's own warm-up, its classes and their JIT, is not in it), and the
whole-run ``chunks_per_s`` is printed too. Neither counts the JVM's start or the dump at exit.

Pairing: every round runs "off" and every arm once, in an order rotated per round, so each
arm has an "off" run of the same round next to it; the figure per arm is the geometric mean
of the per-round ratios arm/off with a Student-t 95 % interval over rounds (the rounds'
log ratios are the sample). A target "at most 2 % lower" is met when the interval's low end
is above 0.98, missed when its high end is below 0.98, undecided otherwise.

Arms (what each adds to the JVM's command line):

- ``default``: the collector as jvmlab runs it (``settings=default`` plus safepoint and
  deoptimization events), read afterwards (the read time and the recording size printed);
- ``jdk-default``: the JDK's ``default.jfc`` alone, none of our extra events;
- ``no-old``: ``default`` without ``jdk.OldObjectSample`` (the leak profiler's sampling on
  the allocation slow path, on in ``default.jfc``);
- ``no-alloc``: ``default`` without ``jdk.ObjectAllocationSample``;
- ``memory``: ``default`` with ``disk=false`` (kept in memory, written once at exit);
- ``depth16``: ``default`` with ``-XX:FlightRecorderOptions:stackdepth=16`` (64 stock);
- ``profile``: the collector with ``settings=profile``.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from scipy.stats import t as student_t

from chunkgen_rate import chunks_per_s
from jvmlab.collect.base import NullProbe
from jvmlab.collect.jfr import RECORDING, JfrCollector, recording_args
from jvmlab.execute.local import LocalExecutor
from jvmlab.jdk.identify import identify
from jvmlab.model.collected import Collected
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import InvocationPlan, ProcessResult
from jvmlab.workloads.builtin import prepare_builtin

FLAGS = ["-Xms512m", "-Xmx512m", "-XX:+UseG1GC"]
TARGET = 0.98


def _plain(feature: int, path: Path, extra: str = "", options: tuple[str, ...] = ()) -> list[str]:
    (arg,) = recording_args(feature, "default", path)
    return [*options, arg + extra]


# arm -> (jvm args builder or None for the collector itself, settings of the collector)
ARMS: dict[str, Callable[[int, Path], list[str]] | None] = {
    "default": None,
    "profile": None,
    "jdk-default": lambda f, p: [f"-XX:StartFlightRecording:filename={p.resolve()},settings=default,"
                                 "dumponexit=true"],
    "no-old": lambda f, p: _plain(f, p, ",jdk.OldObjectSample#enabled=false"),
    "no-alloc": lambda f, p: _plain(f, p, ",jdk.ObjectAllocationSample#enabled=false"),
    "memory": lambda f, p: _plain(f, p, ",disk=false"),
    "depth16": lambda f, p: _plain(f, p, options=("-XX:FlightRecorderOptions:stackdepth=16",)),
}


_TICK_S = 1 / os.sysconf("SC_CLK_TCK")
GROUPS = (("jfr", ("JFR ",)), ("workers", ("chunkgen-",)), ("gc", ("G1 ", "GC Thread")),
          ("jit", ("C1 Compi", "C2 Compi")))


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
        cpu = _cpu_s(task / "stat", stat)
        group = next((g for g, prefixes in GROUPS if name.startswith(prefixes)), "other")
        out[group] = out.get(group, 0.0) + cpu
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
    """At each progress line of chunkgen, the CPU time of the JVM's threads by group: so the
    steady state's CPU per chunk and JFR's own threads' share can be told apart (CPU time is
    far less disturbed by other load on the machine than throughput is)."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.snapshots: list[tuple[int, dict[str, float]]] = []
        self.last_line_s = float("nan")  # when main printed its last line: the rest is exit (JFR's dump)
        self.groups_ms_s: dict[str, float] = {}  # CPU ms per s of each thread group in the steady span

    def on_start(self, pid: int) -> None:
        self.pid = pid

    def on_line(self, stream: str, t_s: float, line: str) -> None:
        if stream == "stdout":
            self.last_line_s = t_s
        if self.pid is not None and stream == "stdout" and line.startswith("progress "):
            self.snapshots.append((int(line.split()[1]), thread_cpu_s(self.pid)))  # off the JVM's CPU

    def steady(self, skip_s: int) -> tuple[float, float, float]:
        """(CPU ms per chunk, JFR threads' share of the CPU, JFR threads' CPU ms per second) between
        second ``skip_s`` and the last but one."""
        # up to the last but one full second: workers stop at the deadline, and a thread's time
        # is gone from /proc/<pid>/task once it has ended
        (n0, c0), (n1, c1) = self.snapshots[skip_s - 1], self.snapshots[-3]
        spent = {g: c1.get(g, 0.0) - c0.get(g, 0.0) for g in c1}
        total = spent["all"]
        seconds = len(self.snapshots) - 2 - skip_s
        self.groups_ms_s = {g: 1000 * spent.get(g, 0.0) / seconds for g in ("workers", "jit", "gc", "jfr", "other")
                            } if seconds > 0 else {}
        return (1000 * total / (n1 - n0) if n1 > n0 else float("nan"),
                spent.get("jfr", 0.0) / total if total > 0 else float("nan"),
                1000 * spent.get("jfr", 0.0) / seconds if seconds > 0 else float("nan"))


def steady_rate(result: ProcessResult, skip_s: int) -> float:
    """Chunks per second between the progress lines of second ``skip_s`` and the last full second
    but one (the span :meth:`CpuProbe.steady` measures CPU over)."""
    counts = [int(line.split()[1]) for line in (result.stdout_path.read_text() if result.stdout_path else "")
              .splitlines() if line.startswith("progress ")]
    per_second = counts[:-2]  # the last line is printed after the workers joined, not on a second
    if len(per_second) <= skip_s + 1:
        sys.exit(f"chunkgen printed {len(per_second)} progress lines: run longer than --skip-s + 2 s")
    return (per_second[-1] - per_second[skip_s - 1]) / (len(per_second) - skip_s)


def run_once(java: str, tail: list[str], folder: Path, jdk, arm: str | None,  # type: ignore[no-untyped-def]
             skip_s: int) -> dict[str, float]:
    """Steady and whole-run chunks/s, invocation wall s, read s and recording bytes of one run."""
    folder.mkdir(parents=True, exist_ok=True)
    ctx = ProbeContext(jdk=jdk, cell_name="bench", flags=tuple(FLAGS), artifacts_dir=folder)
    build = ARMS.get(arm) if arm else None
    probes = [JfrCollector(arm).probe(ctx)] if arm in ("default", "profile") else []
    extra = build(jdk.feature, folder / RECORDING) if build else []
    argv = [java, *FLAGS, *extra, *(a for p in probes for a in p.jvm_args()), *tail]
    plan = InvocationPlan(argv=tuple(argv), env={"PATH": "/usr/bin:/bin"}, cwd=folder, timeout_s=900,
                          artifacts_dir=folder)
    cpu = CpuProbe()
    result = LocalExecutor().run(plan, [*probes, cpu])
    size = (folder / RECORDING).stat().st_size if (folder / RECORDING).is_file() else 0
    t0 = time.perf_counter()
    collected = Collected()
    for probe in probes:
        collected.merge(probe.finish(result))
    read_s = time.perf_counter() - t0
    if result.status != "ok":
        sys.exit(f"run failed: {result.reason}")
    if probes and "error" in collected.documents.get("jfr", {}):
        sys.exit(f"jfr unusable: {collected.documents['jfr']['error']}")
    wall = result.measures.wall_s if result.measures else float("nan")
    cpu_ms, jfr_share, jfr_ms_s = cpu.steady(skip_s)
    return {"steady": steady_rate(result, skip_s), "whole": chunks_per_s(result), "wall": wall,
            "read": read_s, "size": float(size), "cpu_ms": cpu_ms, "jfr_share": jfr_share, "jfr_ms_s": jfr_ms_s,
            "exit_s": wall - cpu.last_line_s, **{f"ms_s_{g}": v for g, v in cpu.groups_ms_s.items()}}


def ratio_ci(on: list[float], off: list[float]) -> tuple[float, float, float]:
    """Geometric mean of the paired ratios on/off and its Student-t 95 % interval."""
    logs = [math.log(a / b) for a, b in zip(on, off, strict=True)]
    mean = statistics.mean(logs)
    if len(logs) < 2:
        return math.exp(mean), float("nan"), float("nan")
    half = student_t.ppf(0.975, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def verdict(low: float, high: float) -> str:
    if math.isnan(low):
        return "undecided (one round)"
    if low >= TARGET:
        return "meets <= 2 %"
    return "misses 2 %" if high < TARGET else "undecided"


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--skip-s", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--arms", default="default,jdk-default,no-old,memory,profile")
    args = parser.parse_args()
    arms: list[str | None] = [None, *args.arms.split(",")]
    unknown = [a for a in arms[1:] if a not in ARMS]
    if unknown:
        sys.exit(f"unknown arms {unknown}: choose from {', '.join(ARMS)}")
    jdk = identify(args.jdk)
    built = prepare_builtin("chunkgen", jdk)
    tail = ["-cp", str(built.classpath), built.main_class, "--threads", str(args.threads),
            "--seconds", str(args.seconds), "--retain-mb", "64", "--chunk-kb", "64"]
    runs: dict[str | None, list[dict[str, float]]] = {a: [] for a in arms}
    loads: list[str] = []
    with tempfile.TemporaryDirectory(prefix="jvmlab-jfr-overhead-") as tmp:
        run_once(str(jdk.java), tail, Path(tmp) / "warm", jdk, None, args.skip_s)  # warm the page cache
        for rnd in range(args.rounds):
            order = arms[rnd % len(arms):] + arms[:rnd % len(arms)]  # rotate: no arm always first
            loads.append(_load())
            for arm in order:
                got = run_once(str(jdk.java), tail, Path(tmp) / f"r{rnd}-{arm}", jdk, arm, args.skip_s)
                runs[arm].append(got)
                print(f"round {rnd + 1} {arm or 'off':12}: steady {got['steady']:8.1f} chunks/s, whole run "
                      f"{got['whole']:8.1f}, wall {got['wall']:.2f} s, CPU {got['cpu_ms']:.2f} ms/chunk, JFR "
                      f"threads {100 * got['jfr_share']:.2f}% of CPU ({got['jfr_ms_s']:.1f} ms/s)"
                      + (f", recording {got['size'] / 1024:.0f} KiB read in {got['read']:.2f} s"
                         if got["size"] else ""), flush=True)
    report(args, jdk, arms, runs, loads)


def report(args, jdk, arms, runs, loads) -> None:  # type: ignore[no-untyped-def]
    print(f"\nJDK {jdk.version}, chunkgen {args.threads} threads x {args.seconds:g} s (steady state after "
          f"{args.skip_s} s), {args.rounds} rounds, arms interleaved in rotated order; load average at "
          f"round start {', '.join(loads)}")
    off = [r["steady"] for r in runs[None]]
    print(f"{'off':12}: steady {statistics.mean(off):8.1f} chunks/s (runs {min(off):.1f}..{max(off):.1f})")
    for arm in arms[1:]:
        on = [r["steady"] for r in runs[arm]]
        ratio, low, high = ratio_ci(on, off)
        whole, wlow, whigh = ratio_ci([r["whole"] for r in runs[arm]], [r["whole"] for r in runs[None]])
        wall = statistics.mean(r["wall"] for r in runs[arm]) - statistics.mean(r["wall"] for r in runs[None])
        read = [r["read"] for r in runs[arm] if r["size"]]
        # CPU per chunk: off/on is the throughput ratio at equal CPU (what a saturated machine sees)
        cpu, clow, chigh = ratio_ci([r["cpu_ms"] for r in runs[None]], [r["cpu_ms"] for r in runs[arm]])
        jfr = statistics.mean(r["jfr_share"] for r in runs[arm])
        jfr_ms_s = statistics.mean(r["jfr_ms_s"] for r in runs[arm])
        exit_s = statistics.mean(r["exit_s"] for r in runs[arm]) - statistics.mean(r["exit_s"] for r in runs[None])
        groups = ", ".join(f"{g} {statistics.mean(r[f'ms_s_{g}'] for r in runs[arm]):.0f}"
                           f" (off {statistics.mean(r[f'ms_s_{g}'] for r in runs[None]):.0f})"
                           for g in ("workers", "jit", "gc", "jfr", "other"))
        print(f"{arm:12}: CPU ms per s in the steady span by threads: {groups}")
        print(f"{arm:12}: steady {statistics.mean(on):8.1f} chunks/s; ratio on/off {ratio:.4f} "
              f"[95% {low:.4f} .. {high:.4f}] {verdict(low, high)}; whole run {whole:.4f} "
              f"[{wlow:.4f} .. {whigh:.4f}]; CPU per chunk off/on {cpu:.4f} [95% {clow:.4f} .. {chigh:.4f}] "
              f"{verdict(clow, chigh)}; JFR threads {100 * jfr:.2f}% of CPU ({jfr_ms_s:.1f} ms CPU per s); "
              f"wall {wall:+.2f} s per invocation, "
              f"of which {exit_s:+.2f} s after main's last line (the dump at exit)"
              + (f"; read {statistics.mean(read):.2f} s for "
                 f"{statistics.mean(r['size'] for r in runs[arm]) / 1024:.0f} KiB" if read and any(read) else ""))


if __name__ == "__main__":
    main()
