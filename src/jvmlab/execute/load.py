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


def _busy_s() -> float | None:
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()[1:]
    except OSError:
        return None
    values = [int(v) for v in fields]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return (sum(values[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _own_cpu_s() -> float:
    """CPU of jvmlab itself plus every child it has reaped (our invocations)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@dataclass
class LoadWatch:
    """Start it at a block's start; ``other_share`` at its end."""

    started: float = 0.0
    busy0: float | None = None
    self0: float = 0.0

    def start(self) -> None:
        self.started = time.monotonic()
        self.busy0 = _busy_s()
        self.self0 = _own_cpu_s()

    def other_share(self) -> float | None:
        """Share of the machine's CPU (0..1) used by other processes since start()."""
        busy1 = _busy_s()
        elapsed = time.monotonic() - self.started
        if self.busy0 is None or busy1 is None or elapsed < 0.5:
            return None
        own = _own_cpu_s() - self.self0
        other = max(0.0, (busy1 - self.busy0) - own)
        return other / (elapsed * (os.cpu_count() or 1))
