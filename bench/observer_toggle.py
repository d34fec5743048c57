"""jvmlab's /proc sampler and the JVM's GC log switched off and on inside one JVM, and the
analysis that compares them.

Why: between separate JVMs the steady rate of the same workload differs by 8-13 % (sd of the
log ratios, quiet machine), far more than the 1 % to be decided. Inside one JVM the sampler is
paused and resumed in periods of ``period_ticks`` of the workload's 1-second progress ticks,
switched as each tick line arrives, so the periods are the JVM's own seconds; the GC log output
is switched at the same ticks by the JVM itself (``bench/java/LogToggle.java``, the ``VM.log``
diagnostic command). Each period is
compared with the periods just before and after it: the signed second difference of the log
rates, ``s * (x[i] - (x[i-1] + x[i+1]) / 2)`` with ``s`` = +1 for a period with the sampler on
and -1 for one with it off, estimates log(rate on / rate off) and cancels any linear drift
(warm-up, a slow change of the machine's load) exactly. The mean over a JVM's interior periods
is that JVM's figure; the JVMs are the sample of the interval (the periods of one JVM are not
independent of each other, the JVMs are).

Pure functions apart from :class:`SamplerToggle`; tests in tests/collect/test_observer_toggle.py.
"""

from __future__ import annotations

import math
import re
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from scipy import stats

from jvmlab.collect.base import NullProbe
from jvmlab.collect.proc import ProcProbe

LOG_TOGGLE_SOURCE = Path(__file__).resolve().parent / "java" / "LogToggle.java"
_GC_OUTPUT = re.compile(r'^-Xlog:(?P<selection>[^:]+):file="(?P<file>[^"]+)":')


def gc_log_output(jvm_args: list[str]) -> tuple[str, str]:
    """(selection, file) of the GC log output among a probe's JVM args (``-Xlog:SEL:file="F":...``),
    as ``VM.log`` names them: the file as given, ``%p`` unexpanded."""
    found = [m for m in map(_GC_OUTPUT.match, jvm_args) if m]
    if len(found) != 1:
        raise ValueError(f"expected one -Xlog file output in {jvm_args!r}, found {len(found)}")
    return found[0]["selection"], found[0]["file"]


def compile_log_toggle(javac: Path, folder: Path) -> Path:
    """bench/java/LogToggle.java compiled by ``javac`` into ``folder``; the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(javac), "-d", str(folder), str(LOG_TOGGLE_SOURCE)], check=True, capture_output=True,
                   timeout=300)
    return folder.resolve()


def log_toggle_argv(schedule: Schedule, jvm_args: list[str], toggler: Path, classpath: str, main: str,
                    main_args: list[str]) -> list[str]:
    """The JVM's arguments after the flags: the GC log output switched inside the JVM on ``schedule``."""
    selection, file = gc_log_output(jvm_args)
    return ["-cp", f"{toggler}:{classpath}", "LogToggle", str(schedule.first_tick), str(schedule.period_ticks),
            str(schedule.first_on).lower(), file, selection, main, *main_args]


def log_switches(stderr: str) -> list[tuple[bool, int]]:
    """(on, tick) of each switch LogToggle made, from its stderr lines ("log-toggle on 3")."""
    out = []
    for line in stderr.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "log-toggle" and parts[1] in ("on", "off") and parts[2].isdigit():
            out.append((parts[1] == "on", int(parts[2])))
    return out


def is_tick(line: str) -> bool:
    """A chunkgen progress line ("progress N chunks")."""
    return line.startswith("progress ") and line.endswith(" chunks")


@dataclass(frozen=True)
class Schedule:
    """Periods of ``period_ticks`` ticks from tick ``first_tick``; the first has the sampler on
    when ``first_on``, then they alternate. Before ``first_tick`` the sampler runs as usual."""

    first_tick: int
    period_ticks: int
    first_on: bool

    def state(self, index: int) -> bool:
        """Sampler on in period ``index``?"""
        return self.first_on != (index % 2 == 1)

    def periods(self, n_ticks: int) -> list[tuple[int, int]]:
        """(start tick, end tick) of every full period within ticks 1..n_ticks."""
        starts = range(self.first_tick, n_ticks - self.period_ticks + 1, self.period_ticks)
        return [(a, a + self.period_ticks) for a in starts]

    def switch_at(self, tick: int) -> bool | None:
        """The sampler's state from tick ``tick`` on, or None when no period starts there."""
        offset = tick - self.first_tick
        if offset < 0 or offset % self.period_ticks:
            return None
        return self.state(offset // self.period_ticks)


@dataclass
class SamplerToggle(NullProbe):
    """Pauses and resumes a :class:`ProcProbe` at the period boundaries as tick lines arrive;
    notes jvmlab's CPU (all its threads) and the wall clock at each tick."""

    proc: ProcProbe
    schedule: Schedule
    ticks: list[tuple[float, float]] = field(default_factory=list)  # (perf_counter s, process_time s)

    def on_line(self, stream: str, t_s: float, line: str) -> None:
        if stream != "stdout" or not is_tick(line):
            return
        self.ticks.append((time.perf_counter(), time.process_time()))
        state = self.schedule.switch_at(len(self.ticks))
        if state is True:
            self.proc.paused.clear()
        elif state is False:
            self.proc.paused.set()

    def jvmlab_cpu_ms_per_s(self, n_ticks: int) -> dict[bool, float]:
        """jvmlab's CPU ms per wall second in the periods with the sampler on (True) and off."""
        spent = {True: 0.0, False: 0.0}
        wall = {True: 0.0, False: 0.0}
        for index, (a, b) in enumerate(self.schedule.periods(min(n_ticks, len(self.ticks)))):
            on = self.schedule.state(index)
            wall[on] += self.ticks[b - 1][0] - self.ticks[a - 1][0]
            spent[on] += self.ticks[b - 1][1] - self.ticks[a - 1][1]
        return {on: 1000 * spent[on] / wall[on] if wall[on] > 0 else math.nan for on in (True, False)}


def period_rates(units: list[float], schedule: Schedule) -> list[tuple[bool, float]]:
    """(sampler on, chunks per tick) of each full period; ``units[k - 1]`` is the cumulative
    count at tick k."""
    return [(schedule.state(i), (units[b - 1] - units[a - 1]) / (b - a))
            for i, (a, b) in enumerate(schedule.periods(len(units)))]


def within_effect(periods: list[tuple[bool, float]]) -> float:
    """One JVM's log(rate with the sampler on / rate with it off): the mean over its interior
    periods of the signed second difference of the log rates (see the module's docstring)."""
    logs = [math.log(rate) for _, rate in periods]
    if len(logs) < 3:
        raise ValueError(f"need 3 periods or more, got {len(logs)}")
    if any(periods[i][0] == periods[i + 1][0] for i in range(len(periods) - 1)):
        raise ValueError("the periods must alternate")
    diffs = [(1 if periods[i][0] else -1) * (logs[i] - (logs[i - 1] + logs[i + 1]) / 2)
             for i in range(1, len(logs) - 1)]
    return statistics.mean(diffs)


def between_effect(on_run: list[tuple[bool, float]], off_run: list[tuple[bool, float]]) -> float:
    """log(rate of the "on" JVM in its periods with the sampler on / rate of the "off" JVM (no
    collector) in the same periods): every collector's cost, GC log flags included, as one JVM
    against another."""
    chosen = [i for i, (on, _) in enumerate(on_run) if on and i < len(off_run)]
    if not chosen:
        raise ValueError("no period with the sampler on")
    return statistics.mean(math.log(on_run[i][1]) - math.log(off_run[i][1]) for i in chosen)


def interval(logs: list[float]) -> tuple[float, float, float]:
    """exp of the mean of ``logs`` and of its 95 % t-interval (Student; the JVMs are the sample)."""
    mean = statistics.mean(logs)
    if len(logs) < 2:
        return math.exp(mean), math.nan, math.nan
    half = stats.t.ppf(0.975, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def verdict(lo: float, hi: float, floor: float) -> str:
    """PASS: the whole interval of a ratio lies at or above ``floor``; FAIL: below; else UNDECIDED."""
    if lo >= floor:
        return "PASS"
    if hi < floor:
        return "FAIL"
    return "UNDECIDED"


def rounds_needed(logs: list[float], floor: float, most: int = 100_000) -> int | None:
    """Rounds for the 95 % interval to clear ``floor`` (either side) if the mean and spread stay
    as measured; None when the mean sits on the floor or more than ``most`` would be needed."""
    if len(logs) < 2:
        return None
    gap = abs(statistics.mean(logs) - math.log(floor))
    sd = statistics.stdev(logs)
    if gap <= 0:
        return None
    if sd == 0:
        return 2
    guess = max(2, math.ceil((1.96 * sd / gap) ** 2))
    if guess > most:
        return None
    for n in range(max(2, guess - 1), most + 1):
        if stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n) < gap:
            return n
    return None
