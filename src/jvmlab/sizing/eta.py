"""How far a minimum-heap search has come, and about how long the rest will take.

A clean search of one cell probes both bounds, bisects down to one step and repeats each end
until it has ``repeats`` answers: ``2 + ceil(log2(range / step)) + 2 x (repeats - 1)`` probes
(a flaky end adds more; the estimate then grows with what was seen). The time left is the
probes expected in every cell, less those done, at the wall-clock rate so far (so probes
run side by side on a cluster's nodes are counted as they go).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from jvmlab.sizing.minheap import MinHeapSettings


def expected_probes(settings: MinHeapSettings) -> int:
    """Probes a search with no flaky size makes (at most ``max_probes``)."""
    span = max(settings.upper_bytes - settings.lower_bytes, settings.step_bytes)
    bisect = math.ceil(math.log2(span / settings.step_bytes)) if span > settings.step_bytes else 0
    return min(settings.max_probes, 2 + bisect + 2 * (settings.repeats - 1))


@dataclass
class ProbeEta:
    """Counts probes per cell as they finish; ``line`` says where the search is."""

    settings: MinHeapSettings
    cells: int
    started_s: float
    done: dict[int, int] = field(default_factory=dict)

    def record(self, cell_index: int) -> None:
        self.done[cell_index] = self.done.get(cell_index, 0) + 1

    def expected(self, cell_index: int) -> int:
        """This cell's expected probes: the clean count, or more once it has gone past it."""
        seen = self.done.get(cell_index, 0)
        base = expected_probes(self.settings)
        return base if seen < base else min(self.settings.max_probes, seen + self.settings.repeats)

    def remaining(self) -> int:
        known = sum(max(self.expected(c) - n, 0) for c, n in self.done.items())
        unstarted = max(self.cells - len(self.done), 0) * expected_probes(self.settings)
        return known + unstarted

    def line(self, cell_index: int, now_s: float) -> str:
        """"probe 4 of ~11 in this cell; ~1:20 left (about 23 probes)"."""
        total = sum(self.done.values())
        left = self.remaining()
        rate = (now_s - self.started_s) / total if total else None
        eta = "" if rate is None or left == 0 else f"; ~{_clock(left * rate)} left (about {left} probes)"
        return f"probe {self.done.get(cell_index, 0)} of ~{self.expected(cell_index)} in this cell{eta}"


def _clock(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
