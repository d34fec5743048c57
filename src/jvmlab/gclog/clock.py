"""Turn the timestamps a log prints into one increasing uptime axis.

Concatenated logs (ten copies of one file, or logs of several JVM runs appended to one
file) restart their uptime; a jump backwards by more than a second is treated as a new
run that continues after the previous one, so spans and rates stay meaningful.
"""

from __future__ import annotations

RESTART_BACKWARDS_S = 1.0


class MonotonicClock:
    """Maps raw uptimes (or wall-clock seconds) to a continuing axis in seconds."""

    __slots__ = ("offset", "last_raw", "first", "last")

    def __init__(self) -> None:
        self.offset = 0.0
        self.last_raw: float | None = None
        self.first: float | None = None
        self.last: float | None = None

    def __call__(self, raw: float) -> float:
        last_raw = self.last_raw
        if last_raw is not None and raw < last_raw - RESTART_BACKWARDS_S:
            self.offset += last_raw
        self.last_raw = raw
        t = raw + self.offset
        if self.first is None:
            self.first = t
        if self.last is None or t > self.last:
            self.last = t
        return t

    @property
    def span_s(self) -> float | None:
        if self.first is None or self.last is None:
            return None
        return self.last - self.first
