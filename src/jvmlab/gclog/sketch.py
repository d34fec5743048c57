"""Bounded-memory percentiles for pause durations.

Exact up to ``EXACT_CAP`` values (kept in a compact ``array('d')``, 8 bytes each, so at
most 800 kB); past the cap every value moves into a fixed log-spaced histogram whose bins
grow by ``RATIO`` (1 %), so any reported percentile is within 0.5 % (relative) of a value
that lies at that rank. Memory is then constant (a few thousand counters) whatever the log
size. Count, total, min and max stay exact in both modes.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence

EXACT_CAP = 100_000
RATIO = 1.01
_LOG_RATIO = math.log(RATIO)
_MIN_MS = 1e-6  # values below are clamped into bin 0 (1 ns)
_BINS = int(math.log(1e8 / _MIN_MS) / _LOG_RATIO) + 2


class PauseSketch:
    """Collects durations (ms); ``quantile(q)`` answers exactly or within 0.5 % relative."""

    def __init__(self, exact_cap: int = EXACT_CAP) -> None:
        self._cap = exact_cap
        self._exact: array[float] | None = array("d")
        self._bins: array[int] | None = None
        self.count = 0
        self.total = 0.0
        self.max = -math.inf
        self.min = math.inf

    def add(self, value_ms: float) -> None:
        self.count += 1
        self.total += value_ms
        if value_ms > self.max:
            self.max = value_ms
        if value_ms < self.min:
            self.min = value_ms
        if self._exact is not None:
            self._exact.append(value_ms)
            if len(self._exact) > self._cap:
                self._to_histogram()
        else:
            self._bin_add(value_ms)

    def add_many(self, values_ms: Sequence[float]) -> None:
        """``add`` of each value in turn (the same sums in the same order)."""
        total, hi, lo = self.total, self.max, self.min
        for v in values_ms:
            total += v
            if v > hi:
                hi = v
            if v < lo:
                lo = v
        self.count += len(values_ms)
        self.total, self.max, self.min = total, hi, lo
        exact = self._exact
        if exact is not None:
            room = self._cap + 1 - len(exact)  # the value that overflows the cap moves all into bins
            exact.extend(values_ms[:room])
            if len(exact) > self._cap:
                self._to_histogram()
                for v in values_ms[room:]:
                    self._bin_add(v)
        else:
            for v in values_ms:
                self._bin_add(v)

    @property
    def exact(self) -> bool:
        return self._exact is not None

    def _to_histogram(self) -> None:
        values, self._exact = self._exact, None
        self._bins = array("q", bytes(8 * _BINS))
        for v in values or ():
            self._bin_add(v)

    def _bin_add(self, value_ms: float) -> None:
        assert self._bins is not None
        idx = 0 if value_ms <= _MIN_MS else min(_BINS - 1, int(math.log(value_ms / _MIN_MS) / _LOG_RATIO) + 1)
        self._bins[idx] += 1

    def quantile(self, q: float) -> float | None:
        """Nearest-rank quantile (q in [0, 1]); None when empty."""
        if self.count == 0:
            return None
        rank = max(1, math.ceil(q * self.count))
        if self._exact is not None:
            return sorted(self._exact)[rank - 1]
        assert self._bins is not None
        seen = 0
        for idx, n in enumerate(self._bins):
            seen += n
            if seen >= rank:
                if idx == 0:
                    return max(self.min, 0.0)
                # Geometric middle of the bin, clamped to the exact extremes.
                mid = _MIN_MS * RATIO ** (idx - 0.5)
                return float(min(max(mid, self.min), self.max))
        return self.max

    def count_above(self, limit_ms: float) -> int:
        """How many values exceed ``limit_ms`` (exact; past EXACT_CAP within one bin's width)."""
        if self._exact is not None:
            return sum(1 for v in self._exact if v > limit_ms)
        assert self._bins is not None
        if limit_ms < _MIN_MS:
            return self.count - self._bins[0]
        first = min(_BINS - 1, int(math.log(limit_ms / _MIN_MS) / _LOG_RATIO) + 1)
        return sum(self._bins[first + 1:]) + (self._bins[first] if self.min > limit_ms else 0)

    def quantiles(self, qs: tuple[float, ...]) -> list[float | None]:
        """Several quantiles with one sort."""
        if self._exact is not None and self.count:
            ordered = sorted(self._exact)
            return [ordered[max(1, math.ceil(q * self.count)) - 1] for q in qs]
        return [self.quantile(q) for q in qs]
