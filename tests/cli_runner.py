"""Running the jvmlab command line from tests, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_jvmlab(*args: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None,
               ) -> subprocess.CompletedProcess[str]:
    """Run `python -m jvmlab ARGS`, capturing its output."""
    full_env = {**os.environ, **(env or {}), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "jvmlab", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def run_spec_json(tmp_path: Path, spec_text: str, *extra: str, name: str = "spec.toml") -> dict:
    """Write a spec, `jvmlab run` it into ./lab.db with --json, and return the summary."""
    import json

    spec = tmp_path / name
    spec.write_text(spec_text)
    proc = run_jvmlab("run", str(spec), "--store", "lab.db", "--json", "--quiet", *extra, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def interruptible() -> None:
    """``preexec_fn`` for a jvmlab started to be interrupted: SIGINT at its default and unblocked.

    A POSIX program keeps an ignored SIGINT it inherits (as a shell's background job does), so a
    jvmlab started by a test process that ignores or blocks SIGINT would run on through Ctrl-C.
    Seen in full CI runs (not alone): an earlier test left the xdist worker that way."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def signal_state() -> str:
    """This process's ignored and blocked signal masks, for a failure message."""
    with open("/proc/self/status") as status:
        return " ".join(line.strip() for line in status if line.startswith(("SigIgn", "SigBlk")))
