"""One hyperfine process whose runs the bench releases one at a time (for bench/vs_hyperfine.py).

hyperfine runs its ``--prepare`` command before every run, the warm-up run included. Here
that command is ``sh -c 'printf x >READY; read x <GO'``: it says "the previous run is over,
I am ready" on one FIFO, then waits on another until the bench lets the next run go. So
the bench can put one hyperfine run between two jvmlab runs, and the two tools' runs
interleave one by one: a drift of the machine (load, frequency, page cache) that lasts
longer than a few runs falls on both tools of a pair alike. While it waits, hyperfine is
blocked in ``waitpid`` on that shell and the shell in ``read``: neither uses the CPU while
the other tool runs. The prepare command's own start is not timed by hyperfine.

The bench holds both FIFOs open read-write, so neither side's ``open`` ever blocks (a FIFO
opened for writing waits for a reader, and for reading waits for a writer), and a
hyperfine that dies is noticed by polling the process instead of hanging on a FIFO.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import subprocess
import time
from pathlib import Path

TURN_TIMEOUT_S = 300.0


class PacedHyperfine:
    """``hyperfine -N --warmup 1 --runs RUNS`` on one command, started blocked before its warm-up."""

    def __init__(self, hyperfine: str, argv: list[str], runs: int, folder: Path, output: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.runs = folder, runs
        self.json_path = folder / "hyperfine.json"
        ready, go = folder / "ready.fifo", folder / "go.fifo"
        os.mkfifo(ready)
        os.mkfifo(go)
        self._ready = os.open(ready, os.O_RDWR | os.O_NONBLOCK)
        self._go = os.open(go, os.O_RDWR)
        prepare = shlex.join(["sh", "-c", f"printf x >{shlex.quote(str(ready))}; read x <{shlex.quote(str(go))}"])
        # --warmup 1: a fresh hyperfine's first run is slow (4.6 ms for /bin/true here, against
        # 0.6); jvmlab's first run of a round is discarded too, so both tools are treated alike.
        self.proc = subprocess.Popen(
            [hyperfine, "-N", "--warmup", "1", "--runs", str(runs), "--style", "none", f"--output={output}",
             "--prepare", prepare, "--export-json", str(self.json_path), shlex.join(argv)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=folder)  # jvmlab's children run in a folder too
        self.turns_left = runs + 1
        if not self._wait_ready():
            raise RuntimeError(f"hyperfine exited before its first run: {self._stderr()}")

    def turn(self) -> None:
        """Let hyperfine do its next run (the warm-up first) and return once that run is over."""
        if self.turns_left <= 0:
            raise RuntimeError("hyperfine has no run left")
        os.write(self._go, b"\n")
        self.turns_left -= 1
        ready = self._wait_ready()
        if ready != (self.turns_left > 0):
            raise RuntimeError(f"hyperfine's runs and the bench's turns disagree: {self._stderr()}")

    def result(self) -> dict:
        """hyperfine's exported result (``times`` per run, mean ``user`` and ``system``), after the last turn."""
        try:
            code = self.proc.wait(timeout=TURN_TIMEOUT_S)
            if code != 0:
                raise RuntimeError(f"hyperfine failed (exit code {code}): {self._stderr()}")
            [result] = json.loads(self.json_path.read_text())["results"]
            return result
        finally:
            self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._ready, self._go):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.proc.stderr:
            self.proc.stderr.close()

    def _wait_ready(self) -> bool:
        """True when the prepare command said it is ready, False when hyperfine exited instead."""
        deadline = time.monotonic() + TURN_TIMEOUT_S
        while time.monotonic() < deadline:
            readable, _, _ = select.select([self._ready], [], [], 0.2)
            if readable:
                try:
                    if os.read(self._ready, 1):
                        return True
                except BlockingIOError:
                    pass
            elif self.proc.poll() is not None:
                return False
        self.close()
        raise RuntimeError(f"hyperfine did not reach its next run within {TURN_TIMEOUT_S:g} s")

    def _stderr(self) -> str:
        if self.proc.poll() is None or self.proc.stderr is None:
            return "(still running)"
        return self.proc.stderr.read().decode(errors="replace")[-500:]
