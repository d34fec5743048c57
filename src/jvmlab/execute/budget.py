"""The one budget of a session: an object with named limits, reported in the output.

Invocations (measured, all cells together), wall time (since the session started, or summed
invocation wall time: the tuner's, which replays the same on resume), trials (the tuner) and
failures (in a row per cell, and overall). Every driver asks the same object.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Budget:
    """Named limits; None: no limit of that kind.

    Failures: a cell stops after ``max_consecutive`` failures in a row, the experiment after
    ``max_failures`` failures overall. Warm-ups count too: a JVM that cannot start fails its
    warm-up the same way."""

    max_consecutive: int = 5
    max_failures: int | None = None
    invocations: int | None = None
    wall_s: float | None = None
    trials: int | None = None
    started: float = field(default_factory=time.monotonic)
    consecutive: Counter[int] = field(default_factory=Counter)
    failures: int = 0
    stopped_cells: set[int] = field(default_factory=set)
    told: bool = False  # the failure limit was said
    # spent, for a driver that counts its own (the tuner: replayed invocations count, and wall
    # time is their summed wall time, so a resume replays the same decisions)
    used_invocations: int = 0
    used_wall_s: float = 0.0

    def charge(self, wall_s: float = 0.0) -> None:
        """One invocation spent (measured or replayed), ``wall_s`` of its wall time."""
        self.used_invocations += 1
        self.used_wall_s += wall_s

    def record(self, cell_index: int, ok: bool) -> str | None:
        """Count one outcome; return why a limit was just reached, else None."""
        if ok:
            self.consecutive[cell_index] = 0
            return None
        self.consecutive[cell_index] += 1
        self.failures += 1
        if self.consecutive[cell_index] >= self.max_consecutive and cell_index not in self.stopped_cells:
            self.stopped_cells.add(cell_index)
            return f"{self.max_consecutive} consecutive failures: no more invocations of this cell"
        return None

    def cell_stopped(self, cell_index: int) -> bool:
        return cell_index in self.stopped_cells

    @property
    def failures_exhausted(self) -> bool:
        return self.max_failures is not None and self.failures >= self.max_failures

    def spent(self, invocations: int, trials: int = 0, wall_s: float | None = None) -> bool:
        """Whether a limit is reached: ``invocations`` measured (in flight included), ``trials``
        done, ``wall_s`` spent (default: the time since the session started)."""
        if self.invocations is not None and invocations >= self.invocations:
            return True
        if self.trials is not None and trials >= self.trials:
            return True
        spent_s = time.monotonic() - self.started if wall_s is None else wall_s
        return self.wall_s is not None and spent_s >= self.wall_s
