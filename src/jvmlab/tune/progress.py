"""What a tuning run is doing, said at least every few seconds, in every phase.

The engine names its phase (baseline, search, a race, the combined candidate, confirmation)
and how many blocks the phase may take; the session counts invocations as they finish. A
heartbeat thread writes one line from that every ``interval_s`` seconds when nothing else was
written, so a log of a non-TTY stderr (CI, ``2> tune.log``) is never silent for long: the
confirmation of a slow workload used to print nothing for minutes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

HEARTBEAT_S = 8.0  # below the 10 s a reader may wait, with room for a slow write


@dataclass
class TuneProgress:
    """The tuner's current phase; ``session`` is set by the engine once it starts."""

    write: Callable[[str], None] | None = None
    phase: str = "starting"
    detail: str = ""
    session: Any = None  # tune.tuning.Tuning (or a stand-in with its counts)
    blocks_max: int | None = None  # how many blocks this phase may take (None: unknown)
    width: int = 1  # configurations per block
    phase_invocations: int = 0  # the session's count when the phase began
    trials_done: int = 0
    started: float = field(default_factory=time.monotonic)
    last_write: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def set(self, phase: str, detail: str = "", *, blocks_max: int | None = None, width: int = 1,
            say: bool = True) -> None:
        """A new phase; said at once (``say``) so each phase starts with a line."""
        with self.lock:
            self.phase, self.detail, self.blocks_max, self.width = phase, detail, blocks_max, max(1, width)
            self.phase_invocations = self._invocations()
        if say:
            self.emit()

    def limit(self, blocks_max: int) -> None:
        """The phase's block count became known (confirmation: after Stein's first stage)."""
        with self.lock:
            self.blocks_max = blocks_max

    def emit(self) -> None:
        if self.write is not None:
            self.write(self.line())
            self.last_write = time.monotonic()

    def note_written(self) -> None:
        """Someone else wrote a progress line (a trial's outcome): the heartbeat waits again."""
        self.last_write = time.monotonic()

    def _invocations(self) -> int:
        return int(getattr(self.session, "invocations", 0)) if self.session is not None else 0

    def line(self, now: float | None = None) -> str:
        """``racing trial 7 (-XX:+UseParallelGC): block 3 of at most 30; 53 invocations, 2m10s; ETA 40s``."""
        now = time.monotonic() if now is None else now
        with self.lock:
            done = self._invocations()
            in_phase = done - self.phase_invocations
            elapsed = now - self.started
            blocks = in_phase // self.width
            where = f": block {blocks + 1}" + (f" of at most {self.blocks_max}" if self.blocks_max else "")
            head = f"{self.phase}" + (f" ({self.detail})" if self.detail else "") + where
            return f"{head}; {done} invocations, {_clock(elapsed)}; ETA {self._eta(done, elapsed, blocks)}"

    def _eta(self, done: int, elapsed: float, blocks: int) -> str:
        """The phase's remaining blocks at the run's pace; in the search, the budget's share left."""
        if done <= 0 or elapsed <= 0:
            return "?"
        per_invocation = elapsed / done
        phase_left = (max(0, self.blocks_max - blocks) * self.width * per_invocation
                      if self.blocks_max else None)
        budget_left = self._budget_left(elapsed)
        if self.phase.startswith("confirm") and phase_left is not None:
            return _clock(phase_left)
        if budget_left is not None:
            return _clock(budget_left) + " (search; then confirmation)"
        return _clock(phase_left) if phase_left is not None else "?"

    def _budget_left(self, elapsed: float) -> float | None:
        session = self.session
        if session is None:
            return None
        share = session.spent_share(self.trials_done)
        return max(0.0, elapsed / share - elapsed) if share > 0 else None


def _clock(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Heartbeat:
    """A daemon thread writing ``progress.line()`` when ``interval_s`` passed without a line."""

    def __init__(self, progress: TuneProgress, interval_s: float = HEARTBEAT_S, tick_s: float = 1.0) -> None:
        self.progress, self.interval_s, self.tick_s = progress, interval_s, tick_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="jvmlab-tune-heartbeat", daemon=True)

    def __enter__(self) -> TuneProgress:
        if self.progress.write is not None:
            self._thread.start()
        return self.progress

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2.0)

    def _run(self) -> None:
        while not self._stop.wait(self.tick_s):
            if time.monotonic() - self.progress.last_write >= self.interval_s:
                self.progress.emit()
