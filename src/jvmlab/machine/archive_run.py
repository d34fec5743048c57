"""Running the training and check JVMs of an archive preparation, and what they produce.

Shared by the CDS/AOT preparation (``archives.py``) and the vendor ones (OpenJ9 shared
classes, Prime ReadyNow in ``vendor_prepare.py``), so that neither imports the other's
private helpers: ``archives`` dispatches to ``vendor_prepare``, both run JVMs through here.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.plan.prepare import PREPARE_MARK, ArchiveRecord, PreparedCell

TAIL_CHARS = 600
HEARTBEAT_S = 15.0  # a "still training" line this often, so a silent minute never looks hung
POLL_S = 0.5


@dataclass(frozen=True)
class RunContext:
    """How the training and check runs start: like the measured runs."""

    cwd: Path
    env: dict[str, str]
    timeout_s: float
    notify: Callable[[str], None] = field(default=partial(print, file=sys.stderr, flush=True), compare=False)


@dataclass(frozen=True)
class Archive:
    """A made and checked archive; ``flags`` replace the cell's marker in measured runs."""

    kind: str
    path: Path
    flags: tuple[str, ...]
    size_bytes: int
    record: ArchiveRecord | None = None


def real_flags(pc: PreparedCell) -> list[str]:
    return [f for f in pc.flags if not f.startswith(PREPARE_MARK)]


def log_path(path: Path, step: str) -> Path:
    return path.with_name(f"{path.name}.{step}.log")


def read_log(log: Path) -> str:
    try:
        return log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def run_jvm(pc: PreparedCell, flags: list[str], ctx: RunContext, log: Path, step: str = "check") -> int:
    """Run one JVM, writing its output to ``log``; kill it on timeout or any exception."""
    argv = pc.launch.argv(pc.jdk, flags)
    started = time.monotonic()
    next_beat = started + HEARTBEAT_S
    try:
        with open(log, "wb") as out:
            proc = subprocess.Popen(argv, cwd=ctx.cwd, env=ctx.env, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL)
    except OSError as err:
        raise UserError(f"cell {pc.cell.name!r}: cannot run the archive training ({err}); "
                        f"is the artifacts folder writable?") from None
    try:
        while True:
            try:
                return proc.wait(timeout=POLL_S)
            except subprocess.TimeoutExpired:
                now = time.monotonic()
                if now - started > ctx.timeout_s:
                    raise UserError(f"cell {pc.cell.name!r}: the archive run took longer than "
                                    f"{ctx.timeout_s:.0f} s; raise [run] timeout") from None
                if now >= next_beat:
                    ctx.notify(f"  cell {pc.cell.name!r}: archive {step} run still going ({now - started:.0f} s)")
                    next_beat += HEARTBEAT_S
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def train(pc: PreparedCell, flags: list[str], ctx: RunContext, path: Path, step: str) -> None:
    log = log_path(path, step)
    code = run_jvm(pc, flags, ctx, log, step)
    if code != 0:
        raise UserError(f"cell {pc.cell.name!r}: archive {step} run exited with {code}: {tail(log)} "
                        f"(full output: {log})")


def tail(log: Path) -> str:
    text = " | ".join(line.strip() for line in read_log(log).strip().splitlines()[-6:])
    return text[-TAIL_CHARS:] or "(no output)"
