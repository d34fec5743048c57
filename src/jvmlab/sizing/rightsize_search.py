"""Which container size to measure next: cheapest first, monotonicity used, then the proof.

A pure strategy over the outcomes measured so far (no I/O), so a search replays from its
stored outcomes and resumes where it stopped.

* **The largest size first.** If it does not meet the goal, no size does (monotonicity,
  below): the search ends there with one line, after one size instead of all of them.
* **Cost.** A size costs ``cpu_weight x CPUs + memory_weight x GiB``. The defaults, 9 per
  CPU and 1 per GiB, are the ratio of a vCPU-hour to a GB-hour in common container pricing
  (AWS Fargate lists about 0.0405 and 0.0044 USD); ``--cpu-weight``/``--memory-weight``
  set others. Sizes are measured in ascending cost (ties: less memory first).
* **Monotonicity** (said in every table): more CPU or memory never makes the goal's metric
  worse. So a size that *misses* (or dies for a reason other than memory: never ready,
  timed out) implies a miss for every size with no more CPU and no more memory, and a size
  whose JVM *dies for memory* (OOM-killed by the limit, ``OutOfMemoryError``) implies that
  death at every smaller memory, at any CPU count; such sizes are not run. A size that
  meets implies every larger one meets (they cost more: never needed).
* **Proof.** The cheapest size that meets is chosen only after its next smaller neighbour
  in each dimension (less CPU at its memory, less memory at its CPUs) was *measured*, not
  implied, and did not meet. A neighbour that meets after all (monotonicity did not hold)
  becomes the candidate and is proven in turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

GIB = float(1 << 30)
CPU_WEIGHT = 9.0
MEMORY_WEIGHT = 1.0


class SizeVerdict(StrEnum):
    MEETS = "meets"
    MISSES = "misses"
    FAILS = "fails"
    UNDECIDED = "undecided"


@dataclass(frozen=True, order=True)
class Size:
    cpus: float
    memory_bytes: int

    @property
    def label(self) -> str:
        mib = self.memory_bytes / (1 << 20)
        memory = f"{mib / 1024:g}g" if mib >= 1024 and mib % 1024 == 0 else f"{mib:g}m"
        return f"{self.cpus:g} CPU / {memory}"


@dataclass(frozen=True)
class Weights:
    cpu: float = CPU_WEIGHT  # per CPU
    memory_gib: float = MEMORY_WEIGHT  # per GiB

    def cost(self, size: Size) -> float:
        return self.cpu * size.cpus + self.memory_gib * size.memory_bytes / GIB


@dataclass(frozen=True)
class Outcome:
    """What a measured size gave; ``memory_death``: its JVM died for memory."""

    verdict: SizeVerdict
    memory_death: bool = False


@dataclass(frozen=True)
class Implied:
    """An outcome not measured but implied by a measured size (monotonicity)."""

    verdict: SizeVerdict
    by: Size


@dataclass(frozen=True)
class Grid:
    cpus: tuple[float, ...]
    memory_bytes: tuple[int, ...]
    weights: Weights = field(default_factory=Weights)

    @staticmethod
    def of(cpus: Sequence[float], memory_bytes: Sequence[int], weights: Weights | None = None) -> Grid:
        return Grid(tuple(sorted(set(cpus))), tuple(sorted(set(memory_bytes))), weights or Weights())

    def sizes(self) -> list[Size]:
        """Every size, cheapest first (ties: less memory, then fewer CPUs)."""
        every = [Size(c, m) for c in self.cpus for m in self.memory_bytes]
        return sorted(every, key=lambda s: (self.weights.cost(s), s.memory_bytes, s.cpus))

    def largest(self) -> Size:
        return Size(self.cpus[-1], self.memory_bytes[-1])

    def smaller_neighbours(self, size: Size) -> list[tuple[str, Size | None]]:
        """The next smaller size in each dimension (None: the grid's smallest already)."""
        ci, mi = self.cpus.index(size.cpus), self.memory_bytes.index(size.memory_bytes)
        return [("cpus", Size(self.cpus[ci - 1], size.memory_bytes) if ci > 0 else None),
                ("memory", Size(size.cpus, self.memory_bytes[mi - 1]) if mi > 0 else None)]


def implied(size: Size, measured: Mapping[Size, Outcome]) -> Implied | None:
    """The outcome monotonicity gives ``size`` from the measured ones (None: nothing)."""
    for other, outcome in sorted(measured.items()):
        if other == size:
            continue
        below_both = size.cpus <= other.cpus and size.memory_bytes <= other.memory_bytes
        if outcome.verdict is SizeVerdict.FAILS and outcome.memory_death and size.memory_bytes <= other.memory_bytes:
            return Implied(SizeVerdict.FAILS, other)
        if below_both and (outcome.verdict is SizeVerdict.MISSES
                           or (outcome.verdict is SizeVerdict.FAILS and not outcome.memory_death)):
            return Implied(SizeVerdict.MISSES if outcome.verdict is SizeVerdict.MISSES else SizeVerdict.FAILS, other)
        if outcome.verdict is SizeVerdict.MEETS and size.cpus >= other.cpus and size.memory_bytes >= other.memory_bytes:
            return Implied(SizeVerdict.MEETS, other)
    return None


@dataclass(frozen=True)
class Step:
    size: Size
    phase: str  # "largest" (can any size meet?), "search" (cheapest first) or "proof" (a neighbour)


def cheapest_meeting(grid: Grid, measured: Mapping[Size, Outcome]) -> tuple[Size | None, Size | None]:
    """(the cheapest measured size that meets with everything cheaper decided, the first
    cheaper size still to measure); either may be None."""
    for size in grid.sizes():
        outcome = measured.get(size)
        if outcome is not None:
            if outcome.verdict is SizeVerdict.MEETS:
                return size, None
            continue
        if implied(size, measured) is None:
            return None, size
    return None, None


def next_step(grid: Grid, measured: Mapping[Size, Outcome]) -> Step | None:
    """The size to measure next, or None when the search is over."""
    largest = grid.largest()
    if largest not in measured:
        return Step(largest, "largest")
    if measured[largest].verdict is not SizeVerdict.MEETS:
        return None  # monotonicity: no smaller size can do better
    best, todo = cheapest_meeting(grid, measured)
    if todo is not None:
        return Step(todo, "search")
    if best is None:
        return None
    for _, neighbour in grid.smaller_neighbours(best):
        if neighbour is not None and neighbour not in measured:
            return Step(neighbour, "proof")
    return None
