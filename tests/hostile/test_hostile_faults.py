"""Faults on real runs (hostile_cases.FAULTS): nothing hangs, nothing is left ``running``, and
what went wrong is one line (or the stored invocation's reason when the run goes on).

The servers here are Python's http.server and the clients small commands, so a run takes
seconds; ``run`` still resolves a JDK, so these are marked ``jvm``."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_cases import FAULTS

from cli_runner import interruptible, run_jvmlab
from jvmlab.store import open_store
from pg_server import _as_server_user, find_bin, fresh_database, running_server, why_unavailable

pytestmark = pytest.mark.jvm
PY = sys.executable
LINE = "a" * 60 + "!"


def _fault(fault_id: str) -> str:
    return next(f.fragment for f in FAULTS if f.id == fault_id)


def _reasons(tmp_path: Path) -> list[str]:
    store = open_store(str(tmp_path / "lab.db"), must_exist=True)
    exp = store.latest_experiment()
    return [inv.reason or "" for inv in store.invocations(exp.id)]


def _server_spec(regex: str, client: list[str], client_timeout: str = "20s") -> str:
    return f"""
[workload]
command = [{json.dumps(PY)}, "-u", "-m", "http.server", "{{port}}", "--bind", "127.0.0.1"]
[run]
invocations = 1
warmup = 0
[server]
ready_timeout = "30s"
stop_grace = "5s"
[load]
parser = "regex"
regex = '{regex}'
client_timeout = "{client_timeout}"
[[load.phases]]
name = "main"
duration = "1s"
command = {json.dumps(client)}
"""


@pytest.mark.parametrize(("regex", "fault_id", "line"), [
    ("^(?P<n>(a|aa)+)$", "load-regex-backtracks", LINE),
    ("(?P<n>(a+)+)$", "load-regex-issue-33", "a" * 40 + "!"),
])
def test_a_backtracking_load_regex_is_a_recorded_failure(regex: str, fault_id: str, line: str,
                                                         tmp_path: Path) -> None:
    (tmp_path / "spec.toml").write_text(_server_spec(regex, [PY, "-c", f"print({line!r})"]))
    proc = run_jvmlab("run", "spec.toml", "--store", "lab.db", "--quiet", cwd=tmp_path, timeout=180)
    assert proc.returncode == 4, proc.stderr  # the one cell never succeeded: exit 4 (issue 45)
    (reason,) = _reasons(tmp_path)
    assert _fault(fault_id) in reason


def _command_spec(extra: str) -> str:
    return f"""
[workload]
command = [{json.dumps(PY)}, "-c", "print({LINE!r}); print('done')"]
{extra}
[run]
invocations = 1
warmup = 0
"""


def test_a_backtracking_ready_regex_is_a_recorded_failure(tmp_path: Path) -> None:
    (tmp_path / "spec.toml").write_text(_command_spec("ready = '^(a|aa)+$'"))
    proc = run_jvmlab("run", "spec.toml", "--store", "lab.db", "--quiet", cwd=tmp_path, timeout=180)
    assert proc.returncode == 4, proc.stderr  # the one cell never succeeded: exit 4 (issue 45)
    (reason,) = _reasons(tmp_path)
    assert _fault("ready-regex-backtracks") in reason


def test_a_backtracking_progress_regex_is_recorded_in_the_progress_document(tmp_path: Path) -> None:
    (tmp_path / "spec.toml").write_text(_command_spec("progress = '^(?P<units>(a|aa)+)$'"))
    proc = run_jvmlab("run", "spec.toml", "--store", "lab.db", "--quiet", cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stderr
    store = open_store(str(tmp_path / "lab.db"), must_exist=True)
    (inv,) = store.invocations(store.latest_experiment().id)
    doc = store.documents([inv.id], "progress")[inv.id]
    assert doc["class"] == "unclassified" and _fault("progress-regex-backtracks") in doc["reason"]
    assert "ran out of time" in doc["reason"]


def test_a_hung_client_is_quoted_not_the_server(tmp_path: Path) -> None:
    (tmp_path / "spec.toml").write_text(_server_spec("(?P<n>[0-9]+)", ["sleep", "60"], client_timeout="2s"))
    proc = run_jvmlab("run", "spec.toml", "--store", "lab.db", "--quiet", cwd=tmp_path, timeout=180)
    assert proc.returncode == 4, proc.stderr  # the one cell never succeeded: exit 4 (issue 45)
    (reason,) = _reasons(tmp_path)
    assert _fault("hung-client") in reason
    assert "Serving HTTP" not in reason  # the server's own output line


def _pg_ctl(data: Path, *args: str) -> None:
    pg_ctl = find_bin("pg_ctl")
    assert pg_ctl
    subprocess.run(_as_server_user([pg_ctl, "-D", str(data), *args]), check=True, capture_output=True, timeout=120)


def _stored(url: str) -> int:
    import psycopg

    try:
        with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=5) as conn:
            return int(conn.execute("select count(*) from invocation").fetchone()[0])  # type: ignore[index]
    except psycopg.Error:
        return 0


@pytest.mark.slow
def test_postgres_stopped_mid_run_is_one_line_and_resumes(tmp_path: Path) -> None:
    reason = why_unavailable()
    if reason:
        pytest.skip(reason)
    (tmp_path / "spec.toml").write_text('[workload]\ncommand = ["sleep", "0.2"]\n[run]\ninvocations = 30\n'
                                        "warmup = 0\n")
    with running_server() as server:
        url = fresh_database(server)
        proc = subprocess.Popen([PY, "-m", "jvmlab", "run", "spec.toml", "--store", url, "--quiet"], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while _stored(url) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        _pg_ctl(server.data_dir, "-m", "fast", "-w", "stop")
        _, err = proc.communicate(timeout=180)
        lines = [line for line in err.splitlines() if line.strip()]
        assert proc.returncode == 2, err
        assert len(lines) == 1, err
        assert lines[0].startswith("jvmlab: error: cannot ") and _fault("postgres-stopped-mid-run") in lines[0]
        print(lines[0])
        assert "[SQL" not in err and "Background on this error" not in err and "Traceback" not in err
        assert "continue with: jvmlab run spec.toml --store" in lines[0] and lines[0].endswith("--resume")
        sock = server.data_dir.parent / "sock"
        _pg_ctl(server.data_dir, "-o", f"-h 127.0.0.1 -p {server.port} -k {sock} -c fsync=off", "-l",
                str(server.data_dir.parent / "log"), "-w", "start")
        again = run_jvmlab("run", "spec.toml", "--store", url, "--quiet", "--resume", cwd=tmp_path, timeout=300)
        assert again.returncode == 0, again.stderr
        store = open_store(url)
        exp = store.latest_experiment()
        assert exp.status == "done" and len(store.invocations(exp.id)) == 30


def test_an_experiment_left_running_is_marked_interrupted(tmp_path: Path) -> None:
    """A store fault that leaves the experiment's own row writable (another program renamed the
    invocation table mid-run): one line, and the experiment marked interrupted, not running."""
    import sqlite3

    (tmp_path / "spec.toml").write_text('[workload]\ncommand = ["sleep", "0.2"]\n[run]\ninvocations = 30\n'
                                        "warmup = 0\n")
    proc = subprocess.Popen([PY, "-m", "jvmlab", "run", "spec.toml", "--store", "lab.db", "--quiet"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db = tmp_path / "lab.db"

    def stored() -> int:
        try:
            with sqlite3.connect(db, timeout=30) as conn:
                return int(conn.execute("select count(*) from invocation").fetchone()[0])
        except sqlite3.Error:
            return 0

    deadline = time.monotonic() + 120
    while stored() < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    with sqlite3.connect(db, timeout=30) as conn:
        conn.execute("alter table invocation rename to invocation_gone")
    _, err = proc.communicate(timeout=180)
    lines = [line for line in err.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1, err
    assert "no such table: invocation" in lines[0] and _fault("error-after-open") in lines[0], err
    with sqlite3.connect(db) as conn:
        assert conn.execute("select status from experiment").fetchall() == [("interrupted",)]


TUNE = """
[workload]
builtin = "hello"
[jvms]
jdk17 = "/usr/lib/jvm/java-17-openjdk-amd64"
[run]
warmup = 0
[tune]
objective = "wall_s"
budget = { trials = 60 }
seed = 1
[tune.params.heap]
type = "size"
low = "64m"
high = "1g"
log = true
flag = "-Xmx{}"
[tune.params.gc]
type = "categorical"
values = { g1 = "-XX:+UseG1GC", serial = "-XX:+UseSerialGC", par = "-XX:+UseParallelGC" }
"""


@pytest.mark.slow
def test_tune_interrupted_says_what_is_stored(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text(TUNE)
    proc = subprocess.Popen([PY, "-m", "jvmlab", "tune", "t.toml", "--store", "lab.db"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
    assert proc.stderr is not None
    seen = []
    for _ in range(10_000):  # bounded: progress lines until the first trial is done (something is stored)
        seen.append(proc.stderr.readline())
        if seen[-1].startswith("trial 1") or not seen[-1]:
            break
    assert seen[-1].startswith("trial 1"), seen
    proc.send_signal(signal.SIGINT)
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 130
    last = [line for line in err.splitlines() if line.strip()][-1]
    assert last.startswith("jvmlab: interrupted") and _fault("tune-sigint") in last, err
    assert "stored in sqlite:///" in last and "continue with: jvmlab tune" in last and "--resume" in last, err
    store = open_store(str(tmp_path / "lab.db"), must_exist=True)
    assert store.latest_experiment().status == "interrupted"
