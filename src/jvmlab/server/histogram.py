"""Log-bucketed latency histograms (HdrHistogram-style, about 3% precision), the same
bucketing as ``JvmlabLoad.java``: mergeable across connections, clients and invocations.

Values are microseconds. Below 64 each value has its own bucket; above, each power of two is
split in 32 sub-buckets. A percentile is reported as its bucket's upper bound (never below
the true value), like HdrHistogram's ``highestEquivalentValue``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

SUB = 32
SUB_BITS = 5


def bucket_of(us: int) -> int:
    """The bucket index of a value (mirror of JvmlabLoad.bucket)."""
    if us < 2 * SUB:
        return max(0, us)
    e = us.bit_length() - 1 - SUB_BITS
    return 2 * SUB + (e - 1) * SUB + ((us >> e) - SUB)


def bucket_bounds(index: int) -> tuple[int, int]:
    """[low, high) of a bucket, in microseconds."""
    if index < 2 * SUB:
        return index, index + 1
    e = (index - 2 * SUB) // SUB + 1
    m = (index - 2 * SUB) % SUB + SUB
    return m << e, (m + 1) << e


@dataclass
class Histogram:
    """Counts per bucket index."""

    counts: dict[int, int] = field(default_factory=dict)

    @classmethod
    def of_values(cls, values_us: Iterable[int]) -> Histogram:
        hist = cls()
        for value in values_us:
            index = bucket_of(int(value))
            hist.counts[index] = hist.counts.get(index, 0) + 1
        return hist

    @classmethod
    def from_json(cls, data: Mapping[str, int]) -> Histogram:
        return cls({int(k): int(v) for k, v in data.items()})

    def to_json(self) -> dict[str, int]:
        return {str(k): v for k, v in sorted(self.counts.items())}

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def merge(self, other: Histogram) -> Histogram:
        for index, n in other.counts.items():
            self.counts[index] = self.counts.get(index, 0) + n
        return self

    def percentile_us(self, pct: float) -> float | None:
        """The value at or below which ``pct`` percent of samples fall (bucket upper bound)."""
        total = self.total
        if total == 0:
            return None
        rank = max(1, int(-(-pct * total // 100)))  # ceil without floats drifting at 99.9
        seen = 0
        for index in sorted(self.counts):
            seen += self.counts[index]
            if seen >= rank:
                return float(bucket_bounds(index)[1] - 1 if index >= 2 * SUB else index)
        return float(bucket_bounds(max(self.counts))[1])

    def curve(self) -> list[tuple[float, float]]:
        """(percentile, latency us) points for a latency-by-percentile plot (0 .. 99.99...)."""
        total = self.total
        out: list[tuple[float, float]] = []
        seen = 0
        for index in sorted(self.counts):
            seen += self.counts[index]
            low, high = bucket_bounds(index)
            out.append((100.0 * seen / total, float(high - 1 if index >= 2 * SUB else low)))
        return out
