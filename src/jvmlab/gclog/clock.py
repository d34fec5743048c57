"""Turn the timestamps a log prints into one increasing uptime axis, run by run.

Concatenated logs (ten copies of one file, or logs of several JVM runs appended to one
file) restart their uptime. A jump back by more than a second below the latest in-order
stamp is a new JVM run: it continues the axis after the previous run, and the log's span
is the sum of each run's own span (first to last event of that run), so ten copies of one
log have ten times its span and the same throughput. Stamps that are out of order within
one run (JDK 8 prints a concurrent phase's end stamp in the middle of a collection record
that started earlier) are read with ``peek``, which never starts a run.
"""

from __future__ import annotations

RESTART_BACKWARDS_S = 1.0


class MonotonicClock:
    """Maps raw uptimes (or wall-clock seconds) to a continuing axis in seconds."""

    __slots__ = ("_done_s", "_run_first", "expect_restart", "first", "last", "last_raw", "offset", "runs")

    def __init__(self) -> None:
        self.offset = 0.0
        self.last_raw: float | None = None
        self.first: float | None = None
        self.last: float | None = None
        self.runs = 0
        self._done_s = 0.0  # summed spans of the finished runs
        self._run_first: float | None = None
        # Set by a parser that saw the log's own restart sign (GC ids starting again at 0):
        # if the very next stamp goes back at all, it starts a new run, however short the runs.
        self.expect_restart = False

    def __call__(self, raw: float) -> float:
        last_raw = self.last_raw
        if last_raw is not None and (raw < last_raw - RESTART_BACKWARDS_S or (self.expect_restart and raw < last_raw)):
            self._new_run(last_raw)
            self.last_raw = raw
        elif last_raw is None or raw > last_raw:
            self.last_raw = raw
        self.expect_restart = False  # the hint is about this stamp only
        t = raw + self.offset
        self._see(t)
        return t

    def peek(self, raw: float) -> float:
        """Map a stamp that may be out of order (never taken as a restart), extending the run."""
        t = raw + self.offset
        self._see(t)
        return t

    def extend(self, t: float) -> None:
        """The current run lasted at least until ``t`` (legacy stamps are pause starts)."""
        if self.last is not None and t > self.last:
            self.last = t

    def _see(self, t: float) -> None:
        if self.first is None or t < self.first:
            self.first = t
            self.runs = self.runs or 1
        if self._run_first is None or t < self._run_first:
            self._run_first = t
        if self.last is None or t > self.last:
            self.last = t

    def _new_run(self, last_raw: float) -> None:
        if self._run_first is not None and self.last is not None:
            self._done_s += self.last - self._run_first
        self.offset += last_raw
        self.runs += 1
        self._run_first = None

    @property
    def span_s(self) -> float | None:
        """Sum over JVM runs of first-to-last event time (gaps between runs excluded)."""
        if self.first is None or self.last is None:
            return None
        current = self.last - self._run_first if self._run_first is not None else 0.0
        return self._done_s + current
