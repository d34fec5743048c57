"""Server runs through the psutil executor (how jvmlab runs on Windows), tested on Linux with
that executor selected: the server is stopped by its pid and killed by process tree, never by
process group (``os.killpg`` is made to fail for the whole run)."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from pathlib import Path

import psutil
import pytest

from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
from jvmlab.execute.windows import PsutilExecutor
from jvmlab.plan.prepare import prepare
from jvmlab.server.control import GroupControl, TreeControl, control_for
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

pytestmark = pytest.mark.jvm

JDK17 = "/usr/lib/jvm/java-17-openjdk-amd64"


class Quiet:
    def planned(self, *a: object) -> None: pass
    def starting(self, *a: object) -> None: pass
    def finished(self, *a: object) -> None: pass
    def warn(self, hazard: object) -> None: pass
    def extended(self, *a: object) -> None: pass


@pytest.fixture
def no_process_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError(f"os.killpg{args} under the psutil executor")
    monkeypatch.setattr(os, "killpg", refuse)


def _run(tmp_path: Path, text: str) -> list[dict]:
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "art"), Quiet(), executor=PsutilExecutor())
    with sqlite3.connect(tmp_path / "lab.db") as db:
        ports = {json.loads(body)["port"] for (body,) in db.execute(
            "select body_json from document where kind = 'server'")}
        listening = {c.laddr.port for c in psutil.net_connections("tcp") if c.status == psutil.CONN_LISTEN}
        assert ports and not ports & listening, "a server port is still listening after the run"
        out = []
        for inv_id, status, reason in db.execute("select id, status, reason from invocation order by id").fetchall():
            metrics = dict(db.execute("select name, value from metric where invocation_id = ?", (inv_id,)))
            out.append({"status": status, "reason": reason or "", "metrics": metrics})
    return out


def test_the_psutil_executor_gets_tree_control() -> None:
    assert isinstance(control_for(PsutilExecutor()), TreeControl)
    from jvmlab.execute.local import LocalExecutor

    assert isinstance(control_for(LocalExecutor()), GroupControl)


def test_builtin_server_under_load_with_the_psutil_executor(tmp_path: Path, no_process_groups: None) -> None:
    rows = _run(tmp_path, f"""
[workload]
builtin = "httpserver"
jvm_args = "-Xmx128m -XX:TieredStopAtLevel=1"
[jvms]
jdk17 = "{JDK17}"
[run]
invocations = 1
warmup = 0
[server]
ready_url = "http://127.0.0.1:{{port}}/health"
stop_grace = "5s"
[load]
[[load.phases]]
name = "measure"
duration = "1s"
args = ["--connections", "2", "--rate", "200"]
""")
    assert rows[0]["status"] == "ok", rows[0]["reason"]
    m = rows[0]["metrics"]
    assert m["load.requests"] > 0 and m["load.latency_p99_ms"] > 0
    assert 0 < m["server.ready_s"] <= m["server.first_request_s"]
    assert m["server.rss_at_ready_bytes"] > 10 << 20
    assert m["client.cpu_s"] > 0  # the client measured apart from the server
    assert m["server.stop_s"] < 5.0  # SIGTERM through psutil's terminate(): the JVM exited on its own


STUB = """import os, signal, socket, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c",
    "import os, signal, time; os.setsid(); signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(120)"])
open(sys.argv[2], "w").write(str(child.pid))
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
print("listening", flush=True)
time.sleep(120)
"""


def test_a_server_ignoring_sigterm_is_killed_with_its_whole_tree(tmp_path: Path, no_process_groups: None) -> None:
    """The stub's child leaves the process group (setsid): only a process-tree kill ends it."""
    (tmp_path / "stub.py").write_text(STUB)
    pid_file = tmp_path / "child.pid"
    rows = _run(tmp_path, f"""
[workload]
command = ["{sys.executable}", "{tmp_path / 'stub.py'}", "{{port}}", "{pid_file}"]
[jvms]
jdk17 = "{JDK17}"
[run]
invocations = 1
warmup = 0
[server]
ready_log = "listening"
stop_grace = "1s"
[load]
parser = "regex"
regex = "rate (?P<req_per_s>[0-9]+)"
[[load.phases]]
name = "measure"
count = 1
command = ["{sys.executable}", "-c", "print('rate 7')"]
""")
    assert rows[0]["status"] == "failed"
    assert "did not stop within 1 s of SIGTERM" in rows[0]["reason"]
    assert rows[0]["metrics"]["load.req_per_s"] == 7.0
    child = int(pid_file.read_text())
    for _ in range(100):  # bounded: 5 s
        if not psutil.pid_exists(child) or psutil.Process(child).status() == psutil.STATUS_ZOMBIE:
            break
        time.sleep(0.05)
    assert not psutil.pid_exists(child) or psutil.Process(child).status() == psutil.STATUS_ZOMBIE


def test_a_client_measured_by_psutil_samples_where_there_is_no_wait4() -> None:
    """The Windows path of the client wait, run here on a real child: exit code, CPU, peak
    memory from psutil samples; killed with its tree at the deadline."""
    import subprocess

    from jvmlab.server.clients import _wait_psutil

    # 0.5 s of its own CPU time, not of the wall clock: on a loaded machine a 0.5-s wall loop
    # got 0.08 s of CPU (seen in a loaded run), below what the test asks for.
    busy = subprocess.Popen([sys.executable, "-c", "x = bytearray(64 << 20)\nimport time\n"
                             "while time.process_time() < 0.5: pass\nraise SystemExit(3)"])
    ended = _wait_psutil(busy, time.monotonic() + 30, TreeControl())
    assert (ended.code, ended.timed_out) == (3, False)
    assert ended.cpu_s > 0.1 and ended.max_rss_bytes > 64 << 20
    stuck = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    t0 = time.monotonic()
    ended = _wait_psutil(stuck, t0 + 0.5, TreeControl())
    assert ended.timed_out and time.monotonic() - t0 < 10 and stuck.poll() is not None
