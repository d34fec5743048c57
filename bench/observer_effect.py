"""Observer effect of the collectors on a long run, with intervals that can decide 1 %.

    .venv/bin/python bench/observer_effect.py [--jdk HOME] [--rounds 20] [--seconds 41] [--skip 1]
                                              [--period 2] [--threads N] [--interval-ms 100] [--between]

Each round runs the built-in ``chunkgen`` (allocation-heavy; G1, fixed pre-touched 512 MB
heap, fixed seed) with every collector of ``build_collectors`` at its default settings (GC log,
/proc sampler, progress, workload metrics, flag effect), as ``jvmlab run`` does. Inside that one
JVM, both collectors that work while the workload runs are switched off and on in periods of
``--period`` of the JVM's 1-second progress ticks from tick ``--skip`` on (which state comes
first alternates every other round):

* the **/proc sampler** in jvmlab, paused and resumed as each tick line arrives
  (bench/observer_toggle.py);
* the **GC log** in the JVM: the workload runs under ``bench/java/LogToggle.java``, which sees the
  same tick lines on their way out and narrows the GC log output's selection to nothing (and back
  to jvmlab's) with the JVM's own ``VM.log`` diagnostic command at the same ticks.

**The figure** (the target's): each period compared with the periods before and after it (the
signed second difference of the log rates: the 8-13 % spread between JVMs and any linear drift
cancel), averaged over the JVM's periods; the JVMs are the sample of a 95 % t-interval.
PASS when the whole interval is at or above 0.99, FAIL when below, else UNDECIDED (with the
rounds that would decide at the mean and spread measured).

What stays on in the "off" periods, so is not in the figure: the flags themselves (``-Xlog:async``
starts an idle writer thread; the log file stays open), jvmlab reading the child's output (the
ticks are needed), and the collectors that work only after the exit (flag effect, workload
metrics: no cost to the workload). ``--between`` adds, per round, a JVM with no collector at all
and prints every collector's cost between JVMs too: that figure carries the spread between JVMs
(8-13 %), so 1 % is decided only with a few hundred rounds; it is there to show that nothing
outside the switched periods costs more than that spread can hide.

Also printed: jvmlab's own CPU ms per second in the sampler's on and off periods, and the
child's CPU.

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
    compile_log_toggle,
    interval,
    is_tick,
    log_switches,
    log_toggle_argv,
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
        self.workload_args = ["--threads", str(args.threads), "--seconds", str(args.seconds), "--retain-mb", "64",
                              "--chunk-kb", "64"]
        self.toggler = compile_log_toggle(jdk.home / "bin" / "javac", root / "toggler")
        self.count = 0

    def run(self, on: bool, first_on: bool) -> Run:
        """One JVM: with every collector, the sampler and the GC log switched on ``first_on``'s
        schedule (``on``), or with none."""
        self.count += 1
        folder = self.root / f"{self.count}-{'on' if on else 'off'}"
        folder.mkdir(parents=True)
        ctx = ProbeContext(jdk=self.jdk, cell_name="bench", flags=tuple(FLAGS), artifacts_dir=folder)
        collectors = build_collectors(CollectSettings(proc_interval_ms=self.args.interval_ms),
                                      self.built.progress_regex) if on else []
        probes: list[Probe] = [c.probe(ctx) for c in collectors]
        schedule = Schedule(self.args.skip, self.args.period, first_on)
        toggle = None
        jvm_args = [a for p in probes for a in p.jvm_args()]
        tail = ["-cp", str(self.built.classpath), self.built.main_class, *self.workload_args]
        if on:
            [proc] = [p for p in probes if isinstance(p, ProcProbe)]
            toggle = SamplerToggle(proc, schedule)
            tail = log_toggle_argv(schedule, jvm_args, self.toggler, str(self.built.classpath),
                                   self.built.main_class, self.workload_args)
        plan = InvocationPlan(argv=(str(self.jdk.java), *FLAGS, *jvm_args, *tail),
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
        periods = schedule.periods(len(units))
        if len(periods) < 3:
            sys.exit(f"only {len(units)} progress ticks: --seconds must leave 3 periods after --skip")
        if on:
            stderr = result.stderr_path.read_text() if result.stderr_path else result.stderr_tail
            switched = log_switches(stderr)
            wanted = [(schedule.state(i), a) for i, (a, _) in enumerate(periods)]
            if switched[:len(wanted)] != wanted:
                sys.exit(f"the GC log was not switched as planned: wanted {wanted}, the JVM said {switched}")
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


def report(rounds: list[tuple[Run | None, Run]], args: argparse.Namespace, jdk: JdkInfo) -> None:
    ons = [r[1] for r in rounds]
    periods = len(ons[0].periods)
    print(f"\nJDK {jdk.version}, chunkgen {args.threads} threads x {args.seconds} s, {' '.join(FLAGS)}; "
          f"{periods} periods of {args.period} ticks from tick {args.skip}; /proc interval {args.interval_ms} ms; "
          f"{len(rounds)} rounds; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs at the end")
    within = [within_effect(on.periods) for on in ons]
    label = "within one JVM: every collector on/off (sampler + GC log)"
    print("\nratios (geometric mean over the rounds, 95% t-interval)")
    _line(label, within)
    pairs = [(off, on) for off, on in rounds if off is not None]
    between = [between_effect(on.periods, off.periods) for off, on in pairs]
    if pairs:
        cpu = [math.log(on.cpu_per_kchunk_s / off.cpu_per_kchunk_s) for off, on in pairs]
        _line("between JVMs: every collector on/off, steady rate", between)
        _line("between JVMs: child CPU per chunk on/off (half on)", cpu)
    mean_ms = {state: statistics.mean(on.jvmlab_ms_per_s[state] for on in ons) for state in (True, False)}
    print(f"\njvmlab's own CPU (all its threads) per second: {mean_ms[True]:.2f} ms with every collector on, "
          f"{mean_ms[False]:.2f} ms with the sampler paused (so the sampler: "
          f"{mean_ms[True] - mean_ms[False]:.2f} ms/s)", end="")
    if pairs:
        off_ms = statistics.mean(1000 * off.jvmlab_cpu_s / off.child_wall_s for off, _ in pairs)
        print(f", {off_ms:.2f} ms with no collector", end="")
    print("\n\ntarget")
    _verdict(label, within)
    if pairs:
        print("information (the spread between JVMs is in this interval; not the target's figure)")
        _verdict("between JVMs: every collector on/off", between)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--rounds", "--pairs", type=int, default=20, help="JVMs with the collectors; default 20")
    parser.add_argument("--seconds", type=int, default=41, help="length of each run; default 41")
    parser.add_argument("--skip", type=int, default=1, help="the tick the first period starts at; default 1")
    parser.add_argument("--period", type=int, default=2, help="ticks (seconds) per period; default 2")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--interval-ms", type=int, default=100)
    parser.add_argument("--between", action="store_true",
                        help="also a JVM with no collector per round, and the between-JVM figures")
    load = load_at_start()
    args = parser.parse_args()
    if args.rounds < 2 or args.skip < 1 or args.period < 1:
        sys.exit("need --rounds >= 2, --skip >= 1 and --period >= 1")
    jdk = identify(args.jdk)
    built = prepare_builtin("chunkgen", jdk)
    rounds: list[tuple[Run | None, Run]] = []
    with tempfile.TemporaryDirectory(prefix="jvmlab-observer-") as tmp:
        bench = Bench(jdk, built, args, Path(tmp))
        if args.between:
            bench.run(False, True)  # warm the page cache, the JIT's files, the CPU frequency; discarded
        bench.run(True, True)
        for i in range(args.rounds):
            first_on = (i // 2) % 2 == 0  # with the run order below: all four combinations every 4 rounds
            off = None
            if not args.between:
                on = bench.run(True, first_on)
            elif i % 2 == 0:
                off = bench.run(False, first_on)
                on = bench.run(True, first_on)
            else:
                on = bench.run(True, first_on)
                off = bench.run(False, first_on)
            rounds.append((off, on))
            line = f"round {i + 1:2d} (first period {'on' if first_on else 'off'}"
            line += f", {'off/on' if i % 2 == 0 else 'on/off'})" if off else ")"
            line += f": within {math.exp(within_effect(on.periods)):.4f}"
            if off:
                line += f"  between {math.exp(between_effect(on.periods, off.periods)):.4f}"
            print(line, flush=True)
    warn_if_busy(load)
    report(rounds, args, jdk)


if __name__ == "__main__":
    main()
