"""Is the machine busy with something else? CPU used by other processes during a block.

/proc/stat gives all CPU time spent on the machine; subtracting the CPU our invocations and
jvmlab itself used leaves what other processes took. More than a quarter of the machine is
a hazard: timings of that block compete with someone else.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from jvmlab.collect.cpustat import machine_cpu_s
from jvmlab.model.hazards import MachineLoad

BUSY_SHARE = 0.25


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

    def machine_load(self, block: int | None, run_delay_s: float | None = None,
                     node: str | None = None) -> MachineLoad:
        """These shares as the typed numbers a busy-machine hazard stores."""
        return MachineLoad(block, self.other, self.steal, run_delay_s, node)


@dataclass
class LoadWatch:
    """Start it at a block's start; ``shares`` at its end."""

    started: float = 0.0
    cpu0: tuple[float, float] | None = None
    self0: float = 0.0

    def start(self) -> None:
        self.started = time.monotonic()
        self.cpu0 = machine_cpu_s()
        self.self0 = _own_cpu_s()

    def shares(self) -> BlockShares:
        """Other processes' and steal's shares of the machine's CPU since start()."""
        cpu1 = machine_cpu_s()
        elapsed = time.monotonic() - self.started
        if self.cpu0 is None or cpu1 is None or elapsed < 0.5:
            return BlockShares(None, None)
        capacity = elapsed * (os.cpu_count() or 1)
        own = _own_cpu_s() - self.self0
        other = max(0.0, (cpu1[0] - self.cpu0[0]) - own)
        return BlockShares(other / capacity, max(0.0, cpu1[1] - self.cpu0[1]) / capacity)



def busy_text(shares: BlockShares, where: str) -> str:
    """The words of a busy block, for people: "other processes used 40% of the CPU during
    block 3 (steal 5%)". Its numbers are stored beside them (:meth:`machine_load`)."""
    steal = f" (steal {shares.steal:.0%})" if shares.steal is not None and shares.steal >= 0.005 else ""
    return f"other processes used {shares.other or 0.0:.0%} of the CPU during {where}{steal}"
