"""Issue 12, item 4 through the command line on real JVMs: interrupt `run --until`, then
resume with the command the message gives and with a bare --resume."""

from __future__ import annotations

import json
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_runner import interruptible, run_jvmlab, signal_state

pytestmark = [pytest.mark.jvm, pytest.mark.slow]

SPEC = '''
[workload]
builtin = "busy"
args = ["--ms", "30"]
[jvms]
j17 = "{home}"
[factors.gc]
serial = "-XX:+UseSerialGC"
parallel = "-XX:+UseParallelGC"
[run]
invocations = 2
warmup = 0
'''


def _stored(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("select count(*) from invocation").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_an_interrupted_until_run_resumes(tmp_path: Path, jdk17_home: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(home=jdk17_home))
    db = tmp_path / "lab.db"
    proc = subprocess.Popen([sys.executable, "-m", "jvmlab", "run", str(spec), "--store", str(db), "--quiet",
                             "--until", "0.1%", "--max-invocations", "40"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)
    deadline = time.monotonic() + 120
    while _stored(db) < 11 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, (stderr, signal_state())
    hint = stderr.split("continue with: ", 1)[1].strip()
    assert "--until 0.1%" in hint and "--max-invocations 40" in hint
    # The bare --resume still continues the --until run, from where it stopped.
    resumed = run_jvmlab("run", str(spec), "--store", str(db), "--resume", "--json", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "UNIQUE" not in resumed.stderr
    doc = json.loads(resumed.stdout)
    assert [c["n"] for c in doc["cells"]] == [20, 20], "balanced, up to the stored budget"
    assert any(w["kind"] == "precision-not-reached" for w in doc["warnings"]), "ended short of the target: said so"
    assert shlex.split(hint)[:2] == ["jvmlab", "run"]
