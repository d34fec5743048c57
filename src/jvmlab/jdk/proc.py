"""Start short-lived ``java`` processes for probing, and count them.

Every JVM this package starts goes through :func:`run_java`, so the count in
:data:`JVM_STARTS` tells tests (and curious users) whether a cache was used: a cached
``discover()`` must leave it unchanged.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from jvmlab.errors import UserError

# Environment variables through which the JVM picks up extra options behind our back; they
# would change identification and flag checks (and print "Picked up ..." lines), so probes
# run without them.
_JVM_OPTION_ENV = ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "JAVA_OPTIONS")

DEFAULT_TIMEOUT_S = 60.0


class StartCounter:
    """A thread-safe count of JVMs started by this package (probes run in threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0

    def add(self) -> None:
        with self._lock:
            self._count += 1

    @property
    def count(self) -> int:
        with self._lock:
            return self._count


JVM_STARTS = StartCounter()


@dataclass(frozen=True)
class JavaRun:
    """What one probe JVM printed; ``returncode`` is None when it timed out and was killed."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def probe_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for probes: the caller's, minus the JVM option variables."""
    env = dict(os.environ if base is None else base)
    for name in _JVM_OPTION_ENV:
        env.pop(name, None)
    return env


def run_java(
    java: Path,
    args: Sequence[str],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cwd: Path | None = None,
) -> JavaRun:
    """Run ``java args...`` (argv list, no shell) and capture its output as text.

    A launcher that cannot be executed at all raises UserError; a JVM that exits non-zero
    is a normal result (the caller parses its message).
    """
    argv = (str(java), *args)
    JVM_STARTS.add()
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            env=probe_env(),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        return JavaRun(argv, None, _text(exc.stdout), _text(exc.stderr))
    except OSError as exc:
        raise UserError(
            f"cannot run {java}: {exc.strerror or exc}; check that it is an executable java launcher"
        ) from exc
    return JavaRun(argv, done.returncode, done.stdout, done.stderr)


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data
