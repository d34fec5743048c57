"""Observer effect of the collectors on a long run, with intervals that can decide 1 %.

    .venv/bin/python bench/observer_effect.py [--jdk HOME] [--pairs 20] [--seconds 11] [--skip 1]
                                              [--period 2] [--threads N] [--interval-ms 100]

Each round runs the built-in ``chunkgen`` (allocation-heavy; G1, fixed pre-touched 512 MB
heap, fixed seed) twice, in alternating order:

* ``off``: no collector, no probe: jvmlab only launches and reaps;
* ``on``: every collector of ``build_collectors`` with default settings (GC log, /proc
  sampler, progress, workload metrics, flag effect), as ``jvmlab run`` does, except that the
  /proc sampler is paused and resumed in periods of ``--period`` of the JVM's 1-second
  progress ticks from tick ``--skip`` on (bench/observer_toggle.py; which state comes first
  alternates every other round).

Two figures per round, each with a 95 % t-interval over the rounds (the JVMs are the sample):

* **within one JVM, the sampler's cost**: each period of the ``on`` JVM compared with the
  periods before and after it (the signed second difference of the log rates: the 8-13 %
  spread between JVMs and any linear drift cancel);
* **between JVMs, every collector's cost**: the ``on`` JVM's rate in its periods with the
  sampler running against the ``off`` JVM's rate in the same periods: the GC log flags and
  the rest of jvmlab's side too, which cannot be switched inside one JVM, with the spread
  between JVMs in its interval.

Also printed: jvmlab's own CPU ms per second (in the sampler's on and off periods, and in the
``off`` runs), the child's CPU per chunk on/off, a verdict for each figure against 1 %
(PASS: the whole interval at or above 0.99; FAIL: below; UNDECIDED: it straddles) and, when
undecided, the rounds that would decide at the mean and spread measured.

``--threads`` defaults to the number of CPUs: the workload saturates the machine, so any
CPU jvmlab or the logging takes is throughput lost (the honest worst case). A quiet machine
is needed for a verdict; on a busy one the intervals widen and say so.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from busy import load_at_start, warn_if_busy
from jvmlab.collect.proc import ProcProbe
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.execute.local import LocalExecutor
from jvmlab.jdk.identify import identify
from jvmlab.model.collected import Collected
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import Probe, ProbeContext
from jvmlab.model.process import InvocationPlan
from jvmlab.workloads.builtin import BuiltinWorkload, prepare_builtin
from jvmlab.workloads.metric_line import parse_metric_line
from observer_toggle import (
    SamplerToggle,
    Schedule,
    between_effect,
    interval,
    is_tick,
    period_rates,
    rounds_needed,
    verdict,
    within_effect,
)

FLAGS = ["-Xms512m", "-Xmx512m", "-Xmn256m", "-XX:+UseG1GC", "-XX:+AlwaysPreTouch"]
FLOOR = 0.99  # the collectors may cost at most 1 % of the steady rate


@dataclass(frozen=True)
class Run:
    """What one run measured: per-period rates (chunks per tick) and CPU in seconds."""

    periods: list[tuple[bool, float]]
    chunks: float
    child_cpu_s: float
    child_wall_s: float
    jvmlab_cpu_s: float  # jvmlab's CPU between the spawn and the reap (all its threads)
    jvmlab_ms_per_s: dict[bool, float]  # on runs: in the sampler's on (True) and off periods

    @property
    def cpu_per_kchunk_s(self) -> float:
        return 1000 * self.child_cpu_s / self.chunks


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

    def run(self, on: bool, first_on: bool) -> Run:
        self.count += 1
        folder = self.root / f"{self.count}-{'on' if on else 'off'}"
        folder.mkdir(parents=True)
        ctx = ProbeContext(jdk=self.jdk, cell_name="bench", flags=tuple(FLAGS), artifacts_dir=folder)
        collectors = build_collectors(CollectSettings(proc_interval_ms=self.args.interval_ms),
                                      self.built.progress_regex) if on else []
        probes: list[Probe] = [c.probe(ctx) for c in collectors]
        schedule = Schedule(self.args.skip, self.args.period, first_on)
        toggle = None
        if on:
            [proc] = [p for p in probes if isinstance(p, ProcProbe)]
            toggle = SamplerToggle(proc, schedule)
        jvm_args = [a for p in probes for a in p.jvm_args()]
        plan = InvocationPlan(argv=(str(self.jdk.java), *FLAGS, *jvm_args, *self.tail),
                              env={"PATH": "/usr/bin:/bin"}, cwd=folder, timeout_s=600, artifacts_dir=folder)
        cpu0 = time.process_time()
        result = LocalExecutor().run(plan, [*probes, toggle] if toggle else probes)
        cpu1 = time.process_time()
        collected = Collected()
        for probe in probes:
            collected.merge(probe.finish(result))
        measures = result.measures
        if result.status != "ok" or measures is None or measures.cpu_s is None or result.stdout_path is None:
            sys.exit(f"{'on' if on else 'off'} run failed: {result.reason}")
        stdout = result.stdout_path.read_text()
        units = [float(line.split()[1]) for line in stdout.splitlines() if is_tick(line)][:-1]  # last: the total
        if len(schedule.periods(len(units))) < 3:
            sys.exit(f"only {len(units)} progress ticks: --seconds must leave 3 periods after --skip")
        per_s = toggle.jvmlab_cpu_ms_per_s(len(units)) if toggle else {}
        return Run(period_rates(units, schedule), _chunks(stdout), measures.cpu_s, measures.wall_s,
                   cpu1 - cpu0, per_s)


def _line(label: str, logs: list[float]) -> tuple[float, float]:
    mean, lo, hi = interval(logs)
    spread = statistics.stdev(logs) if len(logs) > 1 else 0.0
    print(f"  {label:58} {mean:.4f}  95% CI {lo:.4f}..{hi:.4f}  (sd of the per-round logs {spread:.4f})")
    return lo, hi


def _verdict(label: str, logs: list[float]) -> None:
    _, lo, hi = interval(logs)
    said = verdict(lo, hi, FLOOR)
    line = f"  {said:9} {label} >= {FLOOR:.2f} (95% interval {lo:.4f}..{hi:.4f})"
    if said == "UNDECIDED":
        need = rounds_needed(logs, FLOOR)
        line += (f": about {need} rounds would decide at this mean and spread" if need
                 else ": the mean sits on the target; no number of rounds decides at this spread")
    print(line)


def report(rounds: list[tuple[Run, Run]], args: argparse.Namespace, jdk: JdkInfo) -> None:
    offs, ons = [r[0] for r in rounds], [r[1] for r in rounds]
    periods = len(ons[0].periods)
    print(f"\nJDK {jdk.version}, chunkgen {args.threads} threads x {args.seconds} s, {' '.join(FLAGS)}; "
          f"{periods} periods of {args.period} ticks from tick {args.skip}; /proc interval {args.interval_ms} ms; "
          f"{len(rounds)} rounds; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs at the end")
    within = [within_effect(on.periods) for on in ons]
    between = [between_effect(on.periods, off.periods) for off, on in rounds]
    cpu = [math.log(on.cpu_per_kchunk_s / off.cpu_per_kchunk_s) for off, on in rounds]
    print("\nratios (geometric mean over the rounds, 95% t-interval)")
    _line("within one JVM: sampler on/off, steady rate", within)
    _line("between JVMs: every collector on/off, steady rate", between)
    _line("between JVMs: child CPU per chunk on/off (sampler half on)", cpu)
    mean_ms = {state: statistics.mean(on.jvmlab_ms_per_s[state] for on in ons) for state in (True, False)}
    off_ms = statistics.mean(1000 * off.jvmlab_cpu_s / off.child_wall_s for off in offs)
    print(f"\njvmlab's own CPU (all its threads) per second: {mean_ms[True]:.2f} ms with every collector on, "
          f"{mean_ms[False]:.2f} ms with the sampler paused (so the sampler: "
          f"{mean_ms[True] - mean_ms[False]:.2f} ms/s), {off_ms:.2f} ms with no collector")
    print("\ntargets")
    _verdict("within one JVM: sampler on/off", within)
    _verdict("between JVMs: every collector on/off", between)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--pairs", type=int, default=20, help="rounds of (off, on); default 20")
    parser.add_argument("--seconds", type=int, default=11, help="length of each run; default 11")
    parser.add_argument("--skip", type=int, default=1, help="the tick the first period starts at; default 1")
    parser.add_argument("--period", type=int, default=2, help="ticks (seconds) per period; default 2")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--interval-ms", type=int, default=100)
    load = load_at_start()
    args = parser.parse_args()
    if args.pairs < 2 or args.skip < 1 or args.period < 1:
        sys.exit("need --pairs >= 2, --skip >= 1 and --period >= 1")
    jdk = identify(args.jdk)
    built = prepare_builtin("chunkgen", jdk)
    rounds: list[tuple[Run, Run]] = []
    with tempfile.TemporaryDirectory(prefix="jvmlab-observer-") as tmp:
        bench = Bench(jdk, built, args, Path(tmp))
        bench.run(False, True)  # warm the page cache, the JIT's files, the CPU frequency; discarded
        bench.run(True, True)
        for i in range(args.pairs):
            first_on = (i // 2) % 2 == 0  # with the run order below: all four combinations every 4 rounds
            if i % 2 == 0:
                off = bench.run(False, first_on)
                on = bench.run(True, first_on)
            else:
                on = bench.run(True, first_on)
                off = bench.run(False, first_on)
            rounds.append((off, on))
            print(f"round {i + 1:2d} ({'off/on' if i % 2 == 0 else 'on/off'}, sampler first "
                  f"{'on' if first_on else 'off'}): within {math.exp(within_effect(on.periods)):.4f}  "
                  f"between {math.exp(between_effect(on.periods, off.periods)):.4f}", flush=True)
    warn_if_busy(load)
    report(rounds, args, jdk)


if __name__ == "__main__":
    main()
