"""Typed records of one invocation: what to run, and what the process did."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from jvmlab.model.hooks import InvocationHooks

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with every control character but tab and newline as an escape (``\\x1b``), so that
    output of a workload or a hook quoted in a message cannot move the cursor, clear the screen,
    retitle the window or ring the bell of the terminal it is printed on."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class Status(StrEnum):
    """How an invocation ended. Every status is data; only `ok` values enter statistics."""

    OK = "ok"
    FAILED = "failed"  # non-zero exit
    SIGNALED = "signaled"  # killed by a signal not sent by jvmlab
    TIMEOUT = "timeout"  # jvmlab killed it at the per-invocation timeout
    START_FAILED = "start-failed"  # the process could not be started at all
    INVALID = "invalid"  # it ran, but its result was refused (a JMH fork with other flags or JDK)


@dataclass(frozen=True)
class InvocationPlan:
    """Everything an executor needs to run one invocation: an argv list, never a shell string."""

    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: Path
    timeout_s: float
    artifacts_dir: Path
    ready_regex: str | None = None
    output_cap_bytes: int = 4 * 1024 * 1024
    tail_bytes: int = 8192
    hooks: InvocationHooks | None = None  # run around it, outside the measured process (execute/hooks.py)


@dataclass(frozen=True)
class ProcessMeasures:
    """Measured from the child alone (wait4 rusage). None means not measured."""

    wall_s: float
    user_s: float | None
    sys_s: float | None
    max_rss_bytes: int | None
    minor_faults: int | None
    major_faults: int | None
    vol_ctx_switches: int | None
    invol_ctx_switches: int | None
    ready_s: float | None = None

    @property
    def cpu_s(self) -> float | None:
        if self.user_s is None or self.sys_s is None:
            return None
        return self.user_s + self.sys_s


@dataclass(frozen=True)
class ProcessResult:
    """What happened to one process."""

    status: Status
    reason: str | None
    exit_code: int | None
    signal: int | None
    measures: ProcessMeasures | None
    pid: int | None
    started_at: float  # epoch seconds
    stdout_path: Path | None = None
    stderr_path: Path | None = None
    stdout_tail: str = ""
    stderr_tail: str = ""
    output_truncated: bool = False
    extra: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A reason quotes the workload's or a hook's own output, and it is printed to a terminal:
        # its control characters (an escape sequence, a bell, a carriage return) are shown, not obeyed.
        if self.reason is not None:
            object.__setattr__(self, "reason", printable(self.reason))
