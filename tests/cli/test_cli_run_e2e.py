"""run -> store -> summary on real JVMs, through the command line as a user types it."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from cli_runner import interruptible, run_jvmlab, run_spec_json, signal_state

pytestmark = pytest.mark.jvm


def _write(tmp_path: Path, text: str, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout


def test_two_jdks_run_store_and_summarise(tmp_path: Path, jdk17_home: Path, jdk25_home: Path) -> None:
    spec = _write(tmp_path, f'''
name = "hello on two JDKs"
[workload]
builtin = "hello"
[jvms]
j17 = "{jdk17_home}"
j25 = "temurin-25"
[factors.heap]
small = "-Xmx64m"
[run]
invocations = 3
warmup = 1
seed = 5
''')
    proc = run_jvmlab("run", str(spec), "--store", "lab.db", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "jvmlab.summary/1" and doc["baseline"] == "j17 heap=small"
    assert [c["name"] for c in doc["cells"]] == ["j17 heap=small", "j25 heap=small"]
    for cell in doc["cells"]:
        assert cell["n"] == 3 and cell["failures"] == 0 and cell["flags"] == ["-Xmx64m"]
        for metric in ("wall_s", "user_s", "sys_s", "max_rss_bytes"):
            moments = cell[metric]
            assert set(moments) == {"mean", "sd", "median", "min", "max"}
            assert moments["min"] <= moments["median"] <= moments["max"]
        assert 0.01 < cell["wall_s"]["mean"] < 30
        assert cell["max_rss_bytes"]["mean"] > 10 << 20
    assert doc["cells"][1]["jdk"]["feature"] == 25
    [comp] = doc["comparisons"]
    assert comp["cell"] == "j25 heap=small" and comp["ratio"] > 0 and len(comp["ci95"]) == 2
    assert isinstance(comp["verdict"], str) and comp["verdict"]
    with sqlite3.connect(tmp_path / "lab.db") as conn:
        rows = conn.execute("select warmup, count(*) from invocation group by warmup").fetchall()
        assert dict(rows) == {0: 6, 1: 2}
        final = json.loads(conn.execute("select final_flags_json from cell where idx = 0").fetchone()[0])
        assert final["MaxHeapSize"] == str(64 << 20)
    listing = run_jvmlab("results", "--store", "lab.db", "--json", cwd=tmp_path)
    assert json.loads(listing.stdout)[0]["invocations"] == 6
    report = run_jvmlab("report", "--store", "lab.db", cwd=tmp_path)
    assert report.returncode == 0 and "j25 heap=small" in report.stdout


def test_timeouts_and_failures_are_recorded_and_the_matrix_goes_on(tmp_path: Path, jdk17_home: Path) -> None:
    doc = run_spec_json(tmp_path, f'''
[workload]
builtin = "tlbsort"
args = ["--mb", "16"]
[jvms]
j17 = "{jdk17_home}"
[factors.heap]
roomy = "-Xmx256m"
tiny = "-Xmx12m"
[run]
invocations = 2
warmup = 0
timeout = "60s"
''', "-i")  # a cell whose every invocation fails: -i keeps exit 0 (without it, exit 4: below)
    roomy, tiny = doc["cells"]
    assert roomy["n"] == 2 and roomy["failures"] == 0
    assert tiny["n"] == 0 and tiny["failures"] == 2
    assert any("OutOfMemoryError" in reason for reason in tiny["failure_reasons"])
    assert any(w["kind"] == "failures" for w in doc["warnings"])

    hang = _write(tmp_path, f'''
[workload]
builtin = "busy"
args = ["--hang"]
[jvms]
j17 = "{jdk17_home}"
[run]
invocations = 2
warmup = 0
timeout = "2s"
''', "hang.toml")
    started = time.monotonic()
    proc = run_jvmlab("run", str(hang), "--store", "lab.db", "--json", "--quiet", cwd=tmp_path)
    assert proc.returncode == 4, proc.stderr  # no successful invocation: non-zero, as hyperfine exits
    assert "no successful invocation in 'j17' (2 failed)" in proc.stderr and "-i/--ignore-failure" in proc.stderr
    assert time.monotonic() - started < 60
    [cell] = json.loads(proc.stdout)["cells"]
    assert cell["failures"] == 2 and all("timed out" in r for r in cell["failure_reasons"])


def test_an_unknown_flag_stops_before_anything_runs(tmp_path: Path, jdk17_home: Path) -> None:
    spec = _write(tmp_path, f'''
[workload]
builtin = "hello"
[jvms]
j17 = "{jdk17_home}"
[factors.pretouch]
on = "-XX:+AlwaysPreTuch"
''')
    for command in ("run", "check"):
        proc = run_jvmlab(command, str(spec), "--store", "lab.db", cwd=tmp_path) if command == "run" else \
            run_jvmlab(command, str(spec), cwd=tmp_path)
        assert proc.returncode == 2
        _no_traceback(proc)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1
        assert "AlwaysPreTuch" in lines[0] and "AlwaysPreTouch" in lines[0] and "17" in lines[0]
    assert not (tmp_path / "lab.db").exists() or _experiments(tmp_path / "lab.db") == 0


def _experiments(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("select count(*) from experiment").fetchone()[0]


def _stored(db: Path) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return conn.execute("select count(*) from invocation").fetchone()[0]
    except sqlite3.Error:
        return 0


def _busy_jvms(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info["cmdline"] or []
        if any("JvmlabBusy" in part for part in cmd) and marker in " ".join(cmd):
            found.append(proc)
    return found


RESUMABLE = '''
[workload]
builtin = "busy"
args = ["--ms", "150"]
[jvms]
j17 = "{home}"
[factors.tag]
a = "-Djvmlab.test={marker}"
b = "-Djvmlab.test={marker} -XX:+UseSerialGC"
[run]
invocations = 6
warmup = 1
'''


@pytest.mark.slow
def test_resume_after_jvmlab_was_killed(tmp_path: Path, jdk17_home: Path) -> None:
    marker = f"resume-{time.time_ns()}"
    spec = _write(tmp_path, RESUMABLE.format(home=jdk17_home, marker=marker))
    db = tmp_path / "lab.db"
    proc = subprocess.Popen([sys.executable, "-m", "jvmlab", "run", str(spec), "--store", str(db), "--quiet"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _stored(db) < 5 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    before = _stored(db)
    assert 5 <= before < 14
    time.sleep(1.0)
    assert not _busy_jvms(marker), "the JVM must die with jvmlab (parent-death signal)"
    resumed = run_jvmlab("run", str(spec), "--store", str(db), "--resume", "--json", "--quiet", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    doc = json.loads(resumed.stdout)
    assert [c["n"] for c in doc["cells"]] == [6, 6]
    with sqlite3.connect(db) as conn:
        assert conn.execute("pragma integrity_check").fetchone()[0] == "ok"
        rows = conn.execute("select cell_id, block, count(*) from invocation group by cell_id, block").fetchall()
        assert len(rows) == 14 and {n for _, _, n in rows} == {1}
        assert conn.execute("select count(*) from experiment").fetchone()[0] == 1


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_sigint_and_sigterm_end_cleanly(tmp_path: Path, jdk17_home: Path, signum: int, code: int) -> None:
    marker = f"sig-{signum}-{time.time_ns()}"
    spec = _write(tmp_path, RESUMABLE.format(home=jdk17_home, marker=marker).replace('"150"', '"3000"'))
    db = tmp_path / "lab.db"
    proc = subprocess.Popen([sys.executable, "-m", "jvmlab", "run", str(spec), "--store", str(db), "--quiet"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)
    deadline = time.monotonic() + 120
    while _stored(db) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    while not _busy_jvms(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, (err, signal_state())
    assert "Traceback" not in err
    assert "--resume" in err
    assert not _busy_jvms(marker)
    stored = _stored(db)
    assert stored >= 2
    with sqlite3.connect(db) as conn:
        assert conn.execute("select status from experiment").fetchone()[0] == "interrupted"
        assert conn.execute("pragma integrity_check").fetchone()[0] == "ok"
