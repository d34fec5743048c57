"""Turn the timestamps a log prints into one increasing uptime axis, run by run.

Concatenated logs (ten copies of one file, or logs of several JVM runs appended to one
file) restart their uptime. A jump back by more than a second below the latest in-order
stamp is a new JVM run: it continues the axis after the previous run, and the log's span
is the sum of each run's own span, so ten copies of one log have ten times its span and
the same throughput. Stamps that are out of order within one run (JDK 8 prints a
concurrent phase's end stamp in the middle of a collection record that started earlier)
are read with ``peek``, which never starts a run.

A run's span ends at the end of its last event and starts where GCToolKit starts it
(``AbstractJavaVirtualMachine.getEstimatedJVMStartTime``): at the JVM's start (uptime 0)
when the stamps are uptimes and the run's first event starts within
``FRAGMENT_THRESHOLD_S`` of it, otherwise (wall-clock-only stamps, or a fragment such as a
rotated file that begins hours into the run) at the first event's start, as GCViewer
does (``GCModel.getRunningTime``). So a pause is never outside the span that counts it.
"""

from __future__ import annotations

RESTART_BACKWARDS_S = 1.0
# GCToolKit's LOG_FRAGMENT_THRESHOLD_SECONDS: a log whose first event is later than this
# after the JVM's start is a fragment, its span starts at that event.
FRAGMENT_THRESHOLD_S = 60.0

FROM_JVM_START = "jvm_start"
FROM_FIRST_EVENT = "first_event"


class MonotonicClock:
    """Maps raw uptimes (or wall-clock seconds) to a continuing axis in seconds."""

    __slots__ = ("_bases", "_done_s", "_run_first", "_run_offset", "expect_restart", "first", "last",
                 "last_raw", "offset", "runs", "uptime", "wall_base")

    def __init__(self) -> None:
        self.offset = 0.0
        self.last_raw: float | None = None
        self.first: float | None = None
        self.last: float | None = None
        self.runs = 0
        self._done_s = 0.0  # summed spans of the finished runs
        self._run_first: float | None = None  # earliest event start of the current run (axis)
        self._run_offset = 0.0  # where the current run's uptime 0 lies on the axis
        self._bases: list[str] = []  # span basis of each finished run
        # True when the stamps are uptimes (seconds since the JVM started), set by the parser.
        self.uptime = False
        # Set by a parser that saw the log's own restart sign (GC ids starting again at 0):
        # if the very next stamp goes back at all, it starts a new run, however short the runs.
        self.expect_restart = False
        self.wall_base: float | None = None  # the first wall-clock stamp of a log without uptimes

    def __call__(self, raw: float) -> float:
        last_raw = self.last_raw
        if raw == last_raw:  # the stamp of the line before (common): nothing to move
            self.expect_restart = False
            return raw + self.offset
        if last_raw is not None and (raw < last_raw - RESTART_BACKWARDS_S or (self.expect_restart and raw < last_raw)):
            self._new_run(last_raw)
            self.last_raw = raw
        elif last_raw is None or raw > last_raw:
            self.last_raw = raw
        self.expect_restart = False  # the hint is about this stamp only
        t = raw + self.offset
        self._see(t)
        return t

    def wall(self, seconds: float | None) -> float | None:
        """A wall-clock stamp (epoch seconds) on the axis, counted from the log's first; None for None."""
        if seconds is None:
            return None
        if self.wall_base is None:
            self.wall_base = seconds
        return self(seconds - self.wall_base)

    def peek(self, raw: float) -> float:
        """Map a stamp that may be out of order (never taken as a restart), extending the run."""
        t = raw + self.offset
        self._see(t)
        return t

    def extend(self, t: float) -> None:
        """The current run lasted at least until ``t`` (legacy stamps are pause starts)."""
        if self.last is not None and t > self.last:
            self.last = t

    def started(self, t: float) -> None:
        """An event stamped at its end (unified logs) began at ``t``: the run began no later."""
        if self._run_first is not None and t < self._run_first:
            self._run_first = t
            if self.first is not None and t < self.first:
                self.first = t

    def _see(self, t: float) -> None:
        if self.first is None or t < self.first:
            self.first = t
            self.runs = self.runs or 1
        if self._run_first is None or t < self._run_first:
            self._run_first = t
        if self.last is None or t > self.last:
            self.last = t

    def _run_start(self) -> tuple[float, str]:
        """Where the current run's span starts on the axis, and why (see the module doc)."""
        assert self._run_first is not None
        if self.uptime and self._run_first - self._run_offset < FRAGMENT_THRESHOLD_S:
            return min(self._run_offset, self._run_first), FROM_JVM_START
        return self._run_first, FROM_FIRST_EVENT

    def _new_run(self, last_raw: float) -> None:
        if self._run_first is not None and self.last is not None:
            start, basis = self._run_start()
            self._done_s += self.last - start
            self._bases.append(basis)
        self.offset += last_raw
        self._run_offset = self.offset
        self.runs += 1
        self._run_first = None

    @property
    def span_s(self) -> float | None:
        """Sum over JVM runs of each run's span (gaps between runs excluded)."""
        if self.first is None or self.last is None:
            return None
        if self._run_first is None:
            return self._done_s
        start, _ = self._run_start()
        return self._done_s + self.last - start

    @property
    def span_from(self) -> str | None:
        """``jvm_start``, ``first_event``, or ``mixed`` when runs differ; None without a span."""
        if self.first is None or self.last is None:
            return None
        bases = set(self._bases)
        if self._run_first is not None:
            bases.add(self._run_start()[1])
        return bases.pop() if len(bases) == 1 else "mixed"
