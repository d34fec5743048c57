"""Is the machine busy with something else? CPU used by other processes during a block.

/proc/stat gives all CPU time spent on the machine; subtracting the CPU our invocations and
jvmlab itself used leaves what other processes took. More than a quarter of the machine is
a hazard: timings of that block compete with someone else.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

BUSY_SHARE = 0.25


def _cpu_s() -> tuple[float, float] | None:
    """(busy, steal) CPU seconds of the whole machine since boot, from /proc/stat's first line.
    Busy excludes idle, iowait and steal: steal is time the hypervisor gave to another guest."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()[1:]
    except OSError:
        return None
    values = [int(v) for v in fields]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    steal = values[7] if len(values) > 7 else 0
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(values[:8]) - idle - steal) / tick, steal / tick


def _own_cpu_s() -> float:
    """CPU of jvmlab itself plus every child it has reaped (our invocations)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@dataclass(frozen=True)
class BlockShares:
    """What took the machine during a block, as shares of all its CPUs (0..1): other
    processes (everything busy that was not jvmlab or its invocations) and steal (time a
    hypervisor ran other guests). None when /proc/stat could not say."""

    other: float | None
    steal: float | None

    @property
    def taken(self) -> float:
        return (self.other or 0.0) + (self.steal or 0.0)

    @property
    def busy(self) -> bool:
        return self.taken > BUSY_SHARE


@dataclass
class LoadWatch:
    """Start it at a block's start; ``shares`` at its end."""

    started: float = 0.0
    cpu0: tuple[float, float] | None = None
    self0: float = 0.0

    def start(self) -> None:
        self.started = time.monotonic()
        self.cpu0 = _cpu_s()
        self.self0 = _own_cpu_s()

    def shares(self) -> BlockShares:
        """Other processes' and steal's shares of the machine's CPU since start()."""
        cpu1 = _cpu_s()
        elapsed = time.monotonic() - self.started
        if self.cpu0 is None or cpu1 is None or elapsed < 0.5:
            return BlockShares(None, None)
        capacity = elapsed * (os.cpu_count() or 1)
        own = _own_cpu_s() - self.self0
        other = max(0.0, (cpu1[0] - self.cpu0[0]) - own)
        return BlockShares(other / capacity, max(0.0, cpu1[1] - self.cpu0[1]) / capacity)



def busy_text(shares: BlockShares, where: str) -> str:
    """The stored words of a busy block, which ``results/load.py`` reads back:
    "other processes used 40% of the CPU during block 3 (steal 5%)"."""
    steal = f" (steal {shares.steal:.0%})" if shares.steal is not None and shares.steal >= 0.005 else ""
    return f"other processes used {shares.other or 0.0:.0%} of the CPU during {where}{steal}"
