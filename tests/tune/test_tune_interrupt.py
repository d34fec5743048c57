"""`jvmlab tune` on real JVMs with stderr to a pipe (not a TTY): a progress line at least every
10 s, and Ctrl-C ends it with exit 130, the experiment marked interrupted and the command that
continues it, which then finishes the run (issue 32 item 6, issue 33 item 6)."""

import itertools
import os
import shlex
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from cli_runner import interruptible
from jvmlab.collect.proc import _Process

SPEC = """
name = "tune-interrupt"
[workload]
builtin = "hello"
[tune]
budget = { trials = 4 }
min_blocks = 2
max_blocks = 3
confirm_max_blocks = 3
[tune.params.gc]
type = "categorical"
values = { serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }
[tune.params.tier]
type = "categorical"
values = { c1 = "-XX:TieredStopAtLevel=1", c2 = "" }
"""


def _delays(threads: list[tuple[_Process, int | None]]) -> dict[tuple[int, int], float]:
    """Each thread's run-queue delay so far (s, schedstat): the time it was ready to run and
    waited for a core. ``(process, None)``: every thread of the process; ``(process, tid)``: one."""
    out = {}
    for process, only in threads:
        for tid in [only] if only is not None else process.tids(0, relist=True):
            ns = process.read_delay(tid)
            if ns is not None:
                out[process.pid, tid] = ns / 1e9
    return out


def _gaps(stamps: list[tuple[float, dict[tuple[int, int], float]]]) -> list[float]:
    """Wall gaps between stamps less the largest delay any one thread took between them: waits
    for a core overlap, so the largest is what the machine surely took from the gap."""
    return [(tb - ta) - max([db[k] - da[k] for k in db.keys() & da.keys()], default=0.0)
            for (ta, da), (tb, db) in itertools.pairwise(stamps)]


@pytest.mark.jvm
@pytest.mark.slow
def test_ctrl_c_prints_the_resume_command_and_the_resumed_run_finishes(tmp_path):
    spec = tmp_path / "tune.toml"
    spec.write_text(SPEC)
    proc = subprocess.Popen([sys.executable, "-m", "jvmlab", "tune", str(spec), "--store", "lab.db"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)
    # Each line is stamped with the wall clock and the run-queue delays of the tuner's threads and of
    # this reader's: the promise is a line every 10 s of the tuner's running; on a machine loaded by
    # others a wall gap also counts the time its heartbeat (or this reader) waited for a core (19.7 s
    # was seen at load 10), which no heartbeat can help.
    tuner, me = _Process(proc.pid), _Process(os.getpid())
    lines: list[tuple[float, str]] = []
    stamps: list[tuple[float, dict[tuple[int, int], float]]] = []

    def read() -> None:
        threads = [(tuner, None), (me, threading.get_native_id())]
        stamps.append((time.monotonic(), _delays(threads)))
        for line in proc.stderr:
            stamps.append((time.monotonic(), _delays(threads)))
            lines.append((stamps[-1][0], line))

    reader = threading.Thread(target=read)
    reader.start()
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if any(line.startswith("racing trial 2 ") for _, line in lines):
            break
        time.sleep(0.2)
    assert proc.poll() is None, "finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    reader.join(timeout=10)
    text = [line for _, line in lines]
    assert proc.returncode == 130, text
    tuner.close()
    me.close()
    assert max(_gaps(stamps)) < 10.0
    assert text[0].startswith("measuring the baseline (JDK defaults): block") and "ETA" in text[0]
    last = text[-1]
    assert last.startswith("jvmlab: interrupted; ") and "continue with: jvmlab tune " in last, text
    with sqlite3.connect(tmp_path / "lab.db") as db:
        assert db.execute("select status from experiment").fetchone()[0] == "interrupted"
        stored = db.execute("select count(*) from invocation").fetchone()[0]
    assert f"; {stored} measured invocations are stored in " in last
    command = shlex.split(last.split("continue with: ", 1)[1])
    assert command[:2] == ["jvmlab", "tune"] and "--resume" in command
    resumed = subprocess.run([sys.executable, "-m", "jvmlab", *command[1:]], cwd=tmp_path, capture_output=True,
                             text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert resumed.returncode == 0, resumed.stderr
    assert f"({stored} read back from the store)" in resumed.stdout
