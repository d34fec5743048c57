"""Observer effect of the collectors on a long run, decomposed, with an interval that can decide 1 %.

    .venv/bin/python bench/observer_effect.py [--jdk HOME] [--pairs 20] [--seconds 5] [--skip 2]
                                              [--threads N] [--interval-ms 100] [--quick]

Each round runs the built-in ``chunkgen`` (allocation-heavy; G1, fixed pre-touched 512 MB
heap, fixed seed) three ways, in an order that rotates through all six permutations:

* ``off``: no collector, no probe: jvmlab only launches and reaps;
* ``flags``: the JVM gets every collector's flags (GC log with safepoints, ``-Xlog:async``)
  but jvmlab runs no probe: the JVM-side logging cost alone;
* ``on``: every collector of ``build_collectors`` with default settings (GC log, /proc
  sampler, progress, workload metrics, flag effect), as ``jvmlab run`` does.

Per run it reads two figures that have far less run-to-run spread than the whole-run rate:

* the **steady throughput**: chunks between the JVM's own 1-second progress ticks after
  ``--skip`` seconds and the last tick (the ticks are timed by the JVM's clock, so neither
  start-up, JIT warm-up nor jvmlab's thread scheduling is in it);
* the **CPU per chunk**: the child's user + sys (wait4) per chunk, and the same with
  jvmlab's own CPU during the run added (the machine's whole cost of one chunk).

The per-round ratios (on/off, flags/off, on/flags) are paired, so slow drift of the machine
cancels; each is printed as the geometric mean over the rounds with the 95 % t-interval of
the mean of the log ratios. Verdicts:
the collectors cost at most 1 % of steady throughput (PASS: the on/off interval lies above
0.99; FAIL: below; UNDECIDED: it straddles 0.99) and at most 1 % of CPU per chunk (PASS: the
interval lies below 1.01). The decomposition: jvmlab's own CPU per second of child (while it
runs, and the summarising after), the JVM-side logging cost (flags/off) and jvmlab's side
(on/flags).

``--threads`` defaults to the number of CPUs: the workload saturates the machine, so any
CPU jvmlab or the logging takes is throughput lost (the honest worst case; with a spare
core the sampler's CPU would be free). A quiet machine is needed for the verdict; on a
busy one the intervals widen and say so. ``--quick`` (6 rounds x 4 s) checks the bench works.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from scipy import stats

from busy import load_at_start, warn_if_busy
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.execute.local import LocalExecutor
from jvmlab.jdk.identify import identify
from jvmlab.model.collected import Collected
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import InvocationPlan, ProcessResult
from jvmlab.workloads.builtin import BuiltinWorkload, prepare_builtin
from jvmlab.workloads.metric_line import parse_metric_line

FLAGS = ["-Xms512m", "-Xmx512m", "-Xmn256m", "-XX:+UseG1GC", "-XX:+AlwaysPreTouch"]
ARMS = ("off", "flags", "on")
TARGET = 0.01
ORDERS = list(itertools.permutations(ARMS))


@dataclass(frozen=True)
class Run:
    """What one run measured. Rates in chunks/s; CPU in seconds."""

    arm: str
    steady_rate: float
    chunks: float
    child_cpu_s: float
    child_wall_s: float
    jvmlab_run_cpu_s: float  # jvmlab's CPU between the spawn and the reap (sampler, readers)
    jvmlab_finish_cpu_s: float  # after the reap: summarising the GC log, the samples
    samples: int

    @property
    def cpu_per_kchunk_s(self) -> float:
        return 1000 * self.child_cpu_s / self.chunks

    @property
    def total_cpu_per_kchunk_s(self) -> float:
        return 1000 * (self.child_cpu_s + self.jvmlab_run_cpu_s) / self.chunks


def tick_units(stdout: str) -> list[float]:
    """Cumulative chunks at each of the JVM's 1-second ticks (the last line, the total, excluded)."""
    units = [float(line.split()[1]) for line in stdout.splitlines()
             if line.startswith("progress ") and line.endswith(" chunks")]
    return units[:-1]


def steady_rate(ticks: list[float], skip_s: int) -> float:
    """Chunks per second from tick ``skip_s`` to the last tick (ticks are 1 s apart, JVM clock)."""
    if len(ticks) < skip_s + 2:
        sys.exit(f"only {len(ticks)} progress ticks: --seconds must exceed --skip by at least 2")
    return (ticks[-1] - ticks[skip_s - 1]) / (len(ticks) - skip_s)


def _chunks(stdout: str) -> float:
    for line in stdout.splitlines():
        metric = parse_metric_line(line)
        if metric is not None and metric.name == "chunks":
            return metric.value
    sys.exit("chunkgen printed no chunks metric")


class Bench:
    """The workload, the JDK and the settings every run of this bench shares."""

    def __init__(self, jdk: JdkInfo, built: BuiltinWorkload, args: argparse.Namespace, root: Path) -> None:
        self.jdk, self.built, self.args, self.root = jdk, built, args, root
        self.tail = ["-cp", str(built.classpath), built.main_class, "--threads", str(args.threads),
                     "--seconds", str(args.seconds), "--retain-mb", "64", "--chunk-kb", "64"]
        self.count = 0

    def run(self, arm: str) -> Run:
        self.count += 1
        folder = self.root / f"{self.count}-{arm}"
        folder.mkdir(parents=True)
        ctx = ProbeContext(jdk=self.jdk, cell_name="bench", flags=tuple(FLAGS), artifacts_dir=folder)
        collectors = build_collectors(CollectSettings(proc_interval_ms=self.args.interval_ms),
                                      self.built.progress_regex) if arm != "off" else []
        probes = [c.probe(ctx) for c in collectors]
        jvm_args = [a for p in probes for a in p.jvm_args()]
        if arm == "flags":
            probes = []  # the JVM logs as with collectors on; jvmlab watches nothing
        plan = InvocationPlan(argv=(str(self.jdk.java), *FLAGS, *jvm_args, *self.tail),
                              env={"PATH": "/usr/bin:/bin"}, cwd=folder, timeout_s=600, artifacts_dir=folder)
        cpu0 = time.process_time()
        result = LocalExecutor().run(plan, probes)
        cpu1 = time.process_time()
        collected = Collected()
        for probe in probes:
            collected.merge(probe.finish(result))
        cpu2 = time.process_time()
        return _record(arm, result, collected, cpu1 - cpu0, cpu2 - cpu1, self.args.skip)


def _record(arm: str, result: ProcessResult, collected: Collected, run_cpu_s: float, finish_cpu_s: float,
            skip_s: int) -> Run:
    measures = result.measures
    if result.status != "ok" or measures is None or measures.cpu_s is None or result.stdout_path is None:
        sys.exit(f"{arm} run failed: {result.reason}")
    stdout = result.stdout_path.read_text()
    rss = collected.timelines.get("mem.rss_bytes")
    return Run(arm, steady_rate(tick_units(stdout), skip_s), _chunks(stdout), measures.cpu_s,
               measures.wall_s, run_cpu_s, finish_cpu_s, len(rss.t_s) if rss else 0)


def interval(ratios: list[float]) -> tuple[float, float, float]:
    """Geometric mean of the ratios and its 95 % t-interval (on their logs: a ratio and its
    inverse weigh alike, so on/off and off/on give reciprocal answers)."""
    logs = [math.log(r) for r in ratios]
    mean = statistics.mean(logs)
    if len(logs) < 2:
        return math.exp(mean), float("nan"), float("nan")
    half = stats.t.ppf(0.975, len(logs) - 1) * statistics.stdev(logs) / len(logs) ** 0.5
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def _ratios(rounds: list[dict[str, Run]], num: str, den: str, what: str) -> list[float]:
    return [getattr(r[num], what) / getattr(r[den], what) for r in rounds]


def _line(label: str, values: list[float]) -> str:
    mean, lo, hi = interval(values)
    spread = statistics.stdev([math.log(v) for v in values]) if len(values) > 1 else 0.0
    return (f"  {label:44} {mean:.4f}  95% CI {lo:.4f}..{hi:.4f}  "
            f"(sd of the log ratios {spread:.4f}, range {min(values):.4f}..{max(values):.4f})")


def report(rounds: list[dict[str, Run]], args: argparse.Namespace, jdk: JdkInfo) -> None:
    runs = {arm: [r[arm] for r in rounds] for arm in ARMS}
    print(f"\nJDK {jdk.version}, chunkgen {args.threads} threads x {args.seconds} s (steady rate: "
          f"the JVM's ticks from {args.skip} s to {args.seconds} s), "
          f"{' '.join(FLAGS)}, /proc interval {args.interval_ms} ms, {len(rounds)} rounds; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs at the end")
    print(f"\n{'arm':6} {'steady chunks/s':>16} {'sd':>7} {'child CPU s/kchunk':>19} "
          f"{'jvmlab CPU run s':>17} {'after s':>8} {'samples':>8}")
    for arm in ARMS:
        rs = runs[arm]
        rates = [r.steady_rate for r in rs]
        print(f"{arm:6} {statistics.mean(rates):16.1f} {statistics.stdev(rates) if len(rs) > 1 else 0:7.1f} "
              f"{statistics.mean(r.cpu_per_kchunk_s for r in rs):19.4f} "
              f"{statistics.mean(r.jvmlab_run_cpu_s for r in rs):17.4f} "
              f"{statistics.mean(r.jvmlab_finish_cpu_s for r in rs):8.4f} "
              f"{statistics.mean(r.samples for r in rs):8.1f}")
    on = runs["on"]
    per_s = statistics.mean(r.jvmlab_run_cpu_s / r.child_wall_s for r in on)
    after = statistics.mean(r.jvmlab_finish_cpu_s for r in on)
    base = statistics.mean(r.jvmlab_run_cpu_s / r.child_wall_s for r in runs["off"])
    print("\ndecomposition (paired ratios per round: geometric mean and 95% t-interval)")
    print(f"  jvmlab's own CPU while the child runs: {1000 * per_s:.2f} ms per second of child with every "
          f"collector on ({per_s / (os.cpu_count() or 1):.3%} of the machine), {1000 * base:.2f} ms with none; "
          f"after the reap (summaries) {after:.3f} s per run")
    print(_line("JVM-side logging, throughput flags/off", _ratios(rounds, "flags", "off", "steady_rate")))
    print(_line("JVM-side logging, child CPU/chunk flags/off", _ratios(rounds, "flags", "off", "cpu_per_kchunk_s")))
    print(_line("jvmlab side, throughput on/flags", _ratios(rounds, "on", "flags", "steady_rate")))
    print(_line("jvmlab side, child CPU/chunk on/flags", _ratios(rounds, "on", "flags", "cpu_per_kchunk_s")))
    print(_line("end to end, throughput on/off", _ratios(rounds, "on", "off", "steady_rate")))
    print(_line("end to end, child CPU/chunk on/off", _ratios(rounds, "on", "off", "cpu_per_kchunk_s")))
    cpu = _ratios(rounds, "on", "off", "total_cpu_per_kchunk_s")
    print(_line("end to end, CPU/chunk (child+jvmlab) on/off", cpu))
    _verdicts(_ratios(rounds, "on", "off", "steady_rate"), cpu)


def _verdicts(throughput: list[float], cpu: list[float]) -> None:
    print("\ntargets")
    _, lo, hi = interval(throughput)
    verdict = "PASS" if lo >= 1 - TARGET else ("FAIL" if hi < 1 - TARGET else "UNDECIDED")
    print(f"  {verdict}  steady throughput on/off >= {1 - TARGET:.2f} (95% interval {lo:.4f}..{hi:.4f})")
    _, lo, hi = interval(cpu)
    verdict = "PASS" if hi <= 1 + TARGET else ("FAIL" if lo > 1 + TARGET else "UNDECIDED")
    print(f"  {verdict}  CPU per chunk on/off <= {1 + TARGET:.2f} (95% interval {lo:.4f}..{hi:.4f})")
    print("  (UNDECIDED: the interval straddles the target; more rounds or a quieter machine)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--pairs", type=int, default=None, help="rounds of (off, flags, on); default 20")
    parser.add_argument("--seconds", type=int, default=None, help="length of each run; default 5")
    parser.add_argument("--skip", type=int, default=2, help="seconds left out of the steady rate")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--interval-ms", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="6 rounds x 4 s: checks the bench, decides nothing")
    load = load_at_start()
    args = parser.parse_args()
    args.pairs = args.pairs or (6 if args.quick else 20)
    args.seconds = args.seconds or (4 if args.quick else 5)
    if args.pairs < 2 or args.seconds < args.skip + 2:
        sys.exit("need --pairs >= 2 and --seconds >= --skip + 2")
    jdk = identify(args.jdk)
    built = prepare_builtin("chunkgen", jdk)
    rounds: list[dict[str, Run]] = []
    with tempfile.TemporaryDirectory(prefix="jvmlab-observer-") as tmp:
        bench = Bench(jdk, built, args, Path(tmp))
        for arm in ARMS:  # warm the page cache, the JIT's files, the CPU frequency; discarded
            bench.run(arm)
        for i in range(args.pairs):
            order = ORDERS[i % len(ORDERS)]
            rounds.append({arm: bench.run(arm) for arm in order})
            got = rounds[-1]
            print(f"round {i + 1:2d} ({'/'.join(order)}): steady chunks/s "
                  + "  ".join(f"{a} {got[a].steady_rate:8.1f}" for a in ARMS)
                  + f"  on/off {got['on'].steady_rate / got['off'].steady_rate:.4f}", flush=True)
    warn_if_busy(load)
    report(rounds, args, jdk)


if __name__ == "__main__":
    main()
