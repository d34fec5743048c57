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


class _RunDelay:
    """Run-queue delay of the threads of some processes (schedstat's second field): the time they
    were ready to run and waited for a core. Each thread counts at its last read, so a thread (or
    the process) that is gone keeps what it had; 0 where the kernel has no schedstat."""

    def __init__(self, *pids: int) -> None:
        self.pids, self.seen = pids, {}

    def __call__(self) -> float:
        for pid in self.pids:
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tids:
                try:
                    with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                        self.seen[pid, tid] = int(f.read().split()[1]) / 1e9
                except (OSError, IndexError, ValueError):
                    pass
        return sum(self.seen.values())


@pytest.mark.jvm
@pytest.mark.slow
def test_ctrl_c_prints_the_resume_command_and_the_resumed_run_finishes(tmp_path):
    spec = tmp_path / "tune.toml"
    spec.write_text(SPEC)
    proc = subprocess.Popen([sys.executable, "-m", "jvmlab", "tune", str(spec), "--store", "lab.db"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)
    # Each line is stamped with the wall clock less the run-queue delay of the tuner's threads and of
    # this test's: the promise is a line every 10 s of the tuner's running; on a machine loaded by
    # others a wall gap also counts the time its heartbeat (or this reader) waited for a core (19.7 s
    # was seen at load 10), which no heartbeat can help.
    run_delay = _RunDelay(proc.pid, os.getpid())

    def stamp() -> float:
        return time.monotonic() - run_delay()

    lines: list[tuple[float, str]] = []
    reader = threading.Thread(target=lambda: lines.extend((stamp(), line) for line in proc.stderr))
    started = stamp()  # before the reader starts: only one thread at a time stamps
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
    times = [started] + [t for t, _ in lines]
    assert max(b - a for a, b in itertools.pairwise(times)) < 10.0
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
