"""The failure budget: an object with named limits, reported in the output."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class FailureBudget:
    """Stops a cell after ``max_consecutive`` failures in a row, and the experiment after
    ``max_total`` failures overall (None: no overall limit). Warm-ups count too: a JVM that
    cannot start fails its warm-up the same way."""

    max_consecutive: int = 5
    max_total: int | None = None
    consecutive: Counter[int] = field(default_factory=Counter)
    total: int = 0
    stopped_cells: set[int] = field(default_factory=set)

    def record(self, cell_index: int, ok: bool) -> str | None:
        """Count one outcome; return why a limit was just reached, else None."""
        if ok:
            self.consecutive[cell_index] = 0
            return None
        self.consecutive[cell_index] += 1
        self.total += 1
        if self.consecutive[cell_index] >= self.max_consecutive and cell_index not in self.stopped_cells:
            self.stopped_cells.add(cell_index)
            return f"{self.max_consecutive} consecutive failures: no more invocations of this cell"
        return None

    def cell_stopped(self, cell_index: int) -> bool:
        return cell_index in self.stopped_cells

    @property
    def exhausted(self) -> bool:
        return self.max_total is not None and self.total >= self.max_total
