"""Reading a child's stdout/stderr: to a size-capped file, a tail, and line callbacks."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO, BinaryIO

from jvmlab.model.probe import Probe
from jvmlab.model.process import InvocationPlan, ProcessResult, Status
from jvmlab.spec.pattern import BoundedPattern

LineCallback = Callable[[str, float, str], None]


class StreamReader(threading.Thread):
    """Drains one pipe line by line so the child never blocks on a full pipe.

    Bytes beyond ``cap_bytes`` are counted, not written; the last ``tail_bytes`` are kept
    for the store whatever the cap. Each line is passed, decoded, to the callbacks with
    its arrival time in seconds since the child's start: ``origin``, a perf_counter reading
    (CLOCK_MONOTONIC, the launch helper's clock) that may become known just after the first
    line arrived.
    """

    def __init__(self, name: str, pipe: IO[bytes], path: Path, cap_bytes: int, tail_bytes: int,
                 origin: float | ClockOrigin, callbacks: list[LineCallback], ready: ReadyWatch | None) -> None:
        super().__init__(name=f"jvmlab-{name}", daemon=True)
        self.stream = name
        self.pipe = pipe
        self.path = path
        self.cap_bytes = cap_bytes
        self.origin = origin if isinstance(origin, ClockOrigin) else ClockOrigin(origin)
        self.callbacks = callbacks
        self.ready = ready
        self.written = 0
        self.dropped = 0
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self._tail_cap = tail_bytes

    def run(self) -> None:
        with open(self.path, "wb") as out:
            timed = bool(self.callbacks) or self.ready is not None  # else no clock, no wait for it
            for raw in iter(self.pipe.readline, b""):
                arrived = time.perf_counter()
                self._keep(raw, out)
                if not timed:
                    continue
                t_s = arrived - self.origin.get()
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if self.ready is not None:
                    self.ready.see(line, t_s)
                for callback in self.callbacks:
                    callback(self.stream, t_s, line)
        self.pipe.close()

    def _keep(self, raw: bytes, out: BinaryIO) -> None:
        room = self.cap_bytes - self.written
        if room > 0:
            out.write(raw[:room])
            self.written += min(room, len(raw))
        self.dropped += max(0, len(raw) - max(room, 0))
        self._tail.append(raw)
        self._tail_size += len(raw)
        while self._tail_size > self._tail_cap and len(self._tail) > 1:
            self._tail_size -= len(self._tail.popleft())

    @property
    def tail(self) -> str:
        data = b"".join(self._tail)[-self._tail_cap:]
        return data.decode("utf-8", errors="replace")


class ClockOrigin:
    """The child's start time (perf_counter seconds), set once by the executor.

    The launch helper reports it just after the child exec'd; a reader that sees a line
    before that waits for it (briefly: at most ``wait_s``, then the reader's own clock).
    """

    def __init__(self, t0: float | None = None, wait_s: float = 5.0) -> None:
        self._t0 = t0
        self._known = threading.Event()
        self._wait_s = wait_s
        if t0 is not None:
            self._known.set()

    def set(self, t0: float) -> None:
        self._t0 = t0
        self._known.set()

    def get(self) -> float:
        if self._t0 is None:
            self._known.wait(self._wait_s)
        if self._t0 is None:
            self._t0 = time.perf_counter()
        return self._t0


class ReadyWatch:
    """Records the first time a line matches the workload's `ready` regex (either stream)."""

    def __init__(self, pattern: str) -> None:
        self.regex = BoundedPattern(pattern, what="[workload] ready")
        self.ready_s: float | None = None
        self._lock = threading.Lock()

    def see(self, line: str, t_s: float) -> None:
        if self.ready_s is None and self.regex.search_quiet(line):
            with self._lock:
                if self.ready_s is None:
                    self.ready_s = t_s


def judged(ready: ReadyWatch | None, result: ProcessResult) -> ProcessResult:
    """Every executor's last step: ``result``, failed with the reason when the ``ready`` pattern
    ran out of time on a line (its ``ready_s`` would be missing for a reason the user must see)."""
    if ready is None or ready.regex.spent is None or result.status != Status.OK:
        return result
    return replace(result, status=Status.FAILED, reason=ready.regex.spent)


def start_readers(plan: InvocationPlan, pipes: tuple[IO[bytes], IO[bytes]], paths: tuple[Path, Path],
                  origin: float | ClockOrigin, probes: Sequence[Probe], ready: ReadyWatch | None) -> list[StreamReader]:
    """The stdout and stderr readers of one invocation (every executor's), started, in that order;
    each probe sees every line through its ``on_line``."""
    callbacks: list[LineCallback] = [p.on_line for p in probes]
    readers = [StreamReader(name, pipe, path, plan.output_cap_bytes, plan.tail_bytes, origin, callbacks, ready)
               for name, pipe, path in zip(("stdout", "stderr"), pipes, paths, strict=True)]
    for reader in readers:
        reader.start()
    return readers
