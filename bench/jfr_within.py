"""``bench/jfr_overhead.py --within PERIOD_S``: the cost of a recording's events measured inside
one JVM, which switches the events of its running recording on and off every PERIOD_S seconds
(``bench/java/JfrToggle.java``; "off" is the same recording with every event disabled, not a
stopped one: stopping and restarting a recording costs JIT and JFR-thread work that, on a
starved machine, leaked into the "off" periods and made "on" look 11 % faster).

Why: between separate JVMs, the rate of the same workload differs by a few percent from run
to run (JIT decisions, heap layout), more than the 2 % to be decided; comparing each "on"
period with the "off" periods just before and after it in the same JVM cancels that and
any slow drift of the machine. Each JVM gives one figure (the mean over its interior periods of
the signed second difference of the log rates: an "on" period against the "off" periods on both
sides, and an "off" period against the "on" periods on both sides); the JVMs are the sample of
the interval.

What it leaves out: the fixed cost of JFR having started at all and of a recording running
with no events (both are there in the "off" periods too); the between-JVM arm ``bare``
measures that. Inside one JVM ``bare`` is a null control: on and off are the same. The recording is
made with the JDK's Recording API with the same settings (``default``/``profile`` or a derived
``.jfc``, plus jvmlab's extra events) as ``-XX:StartFlightRecording`` would use.
"""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from jfr_arms import Arm
from jfr_cpu import SHOWN, CpuProbe
from jvmlab.collect.jfr import EXTRA_EVENTS
from jvmlab.execute.local import LocalExecutor
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.process import InvocationPlan

TOGGLE_SOURCE = Path(__file__).resolve().parent / "java" / "JfrToggle.java"
SETTLE_S = 1.0  # a second interval counts for a period only if its state is this old when it starts


def toggler_classes(jdk: JdkInfo, folder: Path) -> Path:
    """JfrToggle compiled by the JDK under test into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(jdk.home / "bin" / "javac"), "-d", str(folder), str(TOGGLE_SOURCE)], check=True,
                   capture_output=True, timeout=300)
    return folder.resolve()


def toggle_argv(jdk: JdkInfo, arm: Arm, folder: Path, toggler: Path, period_s: float,
                classpath: str, main: list[str]) -> list[str]:
    """java ... JfrToggle PERIOD_MS SETTINGS EXTRAS DISK MAIN ARGS for ``arm``."""
    settings = arm.settings_argument(jdk.home, folder)
    extras = ";".join(e[:-2] + " ms" if e.endswith("ms") else e for e in EXTRA_EVENTS) \
        if arm.extras and jdk.feature >= 17 else "-"
    disk = "false" if "disk=false" in arm.recording else "true"
    return [*arm.options, "-cp", f"{toggler}:{classpath}", "JfrToggle", str(round(1000 * period_s)), settings,
            extras, disk, *main]


def run_within(jdk: JdkInfo, flags: list[str], argv_tail: list[str], folder: Path, skip_s: int,
               settle_s: float = SETTLE_S) -> dict[str, float]:
    """One toggling JVM: its log ratios on/off of the rate and of the CPU per chunk."""
    folder.mkdir(parents=True, exist_ok=True)
    plan = InvocationPlan(argv=(str(jdk.java), *flags, *argv_tail), env={"PATH": "/usr/bin:/bin"}, cwd=folder,
                          timeout_s=900, artifacts_dir=folder)
    cpu = CpuProbe()
    result = LocalExecutor().run(plan, [cpu])
    if result.status != "ok":
        sys.exit(f"run failed: {result.reason}")
    return within_effect(cpu, skip_s, settle_s)


@dataclass
class Period:
    """The settled seconds of one period between two switches."""

    on: bool
    chunks: int = 0
    seconds: int = 0
    cpu_s: dict[str, float] = field(default_factory=dict)  # by thread group, and "all"

    def rate(self) -> float:
        return self.chunks / self.seconds

    def cpu_per_chunk(self) -> float:
        return self.cpu_s.get("all", 0.0) / self.chunks


def within_effect(cpu: CpuProbe, skip_s: int, settle_s: float = SETTLE_S) -> dict[str, float]:
    """Per period with a period of the other state on both sides, the signed second difference
    ``s * (log(x) - mean(log(neighbours)))`` of the chunk rate and of the CPU per chunk over the
    periods' settled seconds (``s`` = +1 for an "on" period, -1 for an "off" one: both estimate
    log(on / off), and a linear drift cancels in each); their means over the run. Using the
    "off" periods as centres too doubles the comparisons a JVM gives (earlier only the "on"
    periods were centres: 3 per 36-s JVM with 4-s periods).
    Also the CPU ms per second of each thread group in all settled on and off seconds
    (``on_ms_s_<group>``, ``off_ms_s_<group>``): work of a switch that leaks past the settling
    time shows there (JIT, JFR's threads, other)."""
    periods = _periods(cpu, skip_s, settle_s)
    rate_effects, cpu_effects = [], []
    for j, p in periods.items():
        before, after = periods.get(j - 1), periods.get(j + 1)
        if before is None or after is None or min(p.chunks, before.chunks, after.chunks) <= 0:
            continue
        if before.on == p.on or after.on == p.on:
            continue
        sign = 1.0 if p.on else -1.0
        rate_effects.append(sign * (math.log(p.rate()) - (math.log(before.rate()) + math.log(after.rate())) / 2))
        cpu_effects.append(sign * (math.log(p.cpu_per_chunk()) - (math.log(before.cpu_per_chunk())
                                                                  + math.log(after.cpu_per_chunk())) / 2))
    nan = float("nan")
    out = {"rate": sum(rate_effects) / len(rate_effects) if rate_effects else nan,
           "cpu": sum(cpu_effects) / len(cpu_effects) if cpu_effects else nan, "periods": float(len(rate_effects))}
    for state in (True, False):
        chosen = [p for p in periods.values() if p.on == state]
        seconds = sum(p.seconds for p in chosen)
        for group in SHOWN:
            spent = sum(p.cpu_s.get(group, 0.0) for p in chosen)
            out[f"{'on' if state else 'off'}_ms_s_{group}"] = 1000 * spent / seconds if seconds else nan
    return out


def _periods(cpu: CpuProbe, skip_s: int, settle_s: float = SETTLE_S) -> dict[int, Period]:
    """Toggle index -> its period's settled one-second intervals (a second counts when no switch
    happened from ``settle_s`` before it began to its end), from second ``skip_s`` to the last
    full second but one."""
    out: dict[int, Period] = {}
    for k in range(skip_s, len(cpu.snapshots) - 2):
        start, end = cpu.times_s[k - 1], cpu.times_s[k]
        before = [j for j, (t, _) in enumerate(cpu.toggles) if t <= start - settle_s]
        if not before or any(start - settle_s < t <= end for t, _ in cpu.toggles):
            continue
        (n0, c0), (n1, c1) = cpu.snapshots[k - 1], cpu.snapshots[k]
        period = out.setdefault(before[-1], Period(on=cpu.toggles[before[-1]][1]))
        period.chunks += n1 - n0
        period.seconds += 1
        for group in c1:
            period.cpu_s[group] = period.cpu_s.get(group, 0.0) + c1[group] - c0.get(group, 0.0)
    return out
