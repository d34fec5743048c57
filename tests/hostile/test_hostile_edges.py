"""Issue 45's faults on real runs (hostile_cases.FAULTS rows naming this file): each bounded in
time, each said in one line or shown escaped; the hook and store ones run a tiny workload."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_cases import FAULTS

from cli_runner import interruptible, run_jvmlab
from jvmlab.store import open_store
from pg_server import PgServer, fresh_database

PY = sys.executable
LINE = "[0.010s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(256M) 3.123ms\n"


def _fault(fault_id: str) -> str:
    return next(f.fragment for f in FAULTS if f.id == fault_id)


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.timeout(120)
def test_a_gz_inflating_to_a_300_mb_line_is_left_out_and_counted(tmp_path: Path) -> None:
    log = tmp_path / "gc.log.gz"
    with gzip.open(log, "wb", compresslevel=1) as out:
        out.write(LINE.encode() * 20)
        block = b"a" * (1 << 20)
        for _ in range(300):  # 300 MB of one line, no newline: about 1 MB compressed
            out.write(block)
    started = time.monotonic()
    done = run_jvmlab("gc", "analyze", str(log), cwd=tmp_path, timeout=90)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 60  # was minutes and gigabytes
    assert _fault("gc-log-300mb-line-gz") in done.stdout + done.stderr
    assert "1 line(s) not understood" in done.stdout + done.stderr


def test_a_truncated_gz_is_read_and_said(tmp_path: Path) -> None:
    data = gzip.compress(LINE.encode() * 20_000)
    log = tmp_path / "gc.log.gz"
    log.write_bytes(data[: len(data) // 2])
    done = run_jvmlab("gc", "analyze", str(log), "--json", cwd=tmp_path, timeout=90)
    assert done.returncode == 0, done.stderr
    assert _fault("gc-log-truncated-gz") in done.stdout  # quoted with the lines not understood
    assert '"pauses"' in done.stdout or "Pause" in done.stdout  # what came before the cut is read


@pytest.mark.jvm
def test_check_of_a_big_matrix_stops_at_sigterm(tmp_path: Path) -> None:
    f = "\n".join(f'l{i} = "-Dx{i}=1"' for i in range(25))
    g = "\n".join(f'l{i} = "-Dy{i}=1"' for i in range(20))  # 2 x 25 x 20 = 1000 cells: the most allowed
    (tmp_path / "spec.toml").write_text('[workload]\ncommand = ["{java}", "{jvm_args}", "-version"]\n[jvms]\n'
                                        f'a = "default"\nb = "default"\n[factors.f]\n{f}\n[factors.g]\n{g}\n')
    proc = subprocess.Popen([PY, "-m", "jvmlab", "check", "spec.toml"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(6)  # JDKs resolved, flag checks (one JVM each, hundreds of them) under way
    assert proc.poll() is None, proc.communicate()[1]
    proc.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert time.monotonic() - sent < 15, "the flag checks not started must be dropped, not waited for"
    assert _fault("check-sigterm") in err


_HOOK_SPEC = '[workload]\ncommand = ["true"]\nafter_each = ["sh", "-c", {hook}]\n[run]\ninvocations = 4\nwarmup = 0\n'


@pytest.mark.jvm
@pytest.mark.parametrize(("hook", "fault_id"), [
    ("rm -f lab.db lab.db-wal lab.db-shm", "hook-deletes-store"),
    ("cp other.db tmp.db && mv tmp.db lab.db", "hook-replaces-store"),
    ("rm -f lab.db*; touch lab.db", "hook-empties-store"),
])
def test_a_hook_that_deletes_or_replaces_the_store_stops_the_run(hook: str, fault_id: str, tmp_path: Path) -> None:
    open_store(str(tmp_path / "other.db")).close()  # another store, to put in its place
    (tmp_path / "spec.toml").write_text(_HOOK_SPEC.format(hook=json.dumps(hook)))
    done = run_jvmlab("run", "spec.toml", "--store", "lab.db", "--quiet", cwd=tmp_path, timeout=120)
    lines = _lines(done.stderr)
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("jvmlab: error: store "), done.stderr
    assert _fault(fault_id) in lines[0]
    assert "continue with" not in lines[0]  # nothing to resume in a store that is gone


@pytest.mark.jvm
def test_hook_and_workload_output_reach_the_terminal_escaped(tmp_path: Path) -> None:
    (tmp_path / "hook.sh").write_text("printf 'h\\033[31mHOOK\\033]0;title\\007\\033[2J\\n'; exit 4\n")
    (tmp_path / "spec.toml").write_text('[workload]\ncommand = ["true"]\nbefore_each = ["sh", "hook.sh"]\n'
                                        "[run]\ninvocations = 1\nwarmup = 0\n")
    done = run_jvmlab("run", "spec.toml", "--store", "lab.db", "-i", cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout + done.stderr
    assert _fault("hook-output-control-chars") in done.stdout + done.stderr
    store = open_store(str(tmp_path / "lab.db"), must_exist=True)
    (inv,) = store.invocations(store.latest_experiment().id)
    assert inv.reason is not None and "\x1b" not in inv.reason and "\\x1b[31mHOOK" in inv.reason


# java -version a second late, so a run of 9 lasts long enough to be stopped midway
_SLOW_SPEC = ('[workload]\ncommand = ["sh", "-c", "sleep 1; exec \\"$@\\"", "sh", "{java}", "{jvm_args}", '
              '"-version"]\n[run]\ninvocations = 3\nwarmup = 0\n[collect]\nproc = false\nflag_effect = false\n')


def _explicit_gc_log(path: Path) -> Path:
    lines = ["[0.010s][info][gc] Using G1", "[0.011s][info][gc,init] Heap Max Capacity: 256M"]
    lines += [f"[{1 + i}.000s][info][gc] GC({i}) Pause Full (System.gc()) 24M->4M(256M) 2.000ms" for i in range(3)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _stored(db: Path) -> int:
    import sqlite3

    try:
        with sqlite3.connect(db, timeout=30) as conn:
            return int(conn.execute("select count(*) from invocation").fetchone()[0])
    except sqlite3.Error:
        return 0


def _stop_after(proc: subprocess.Popen[str], stored: object, at_least: int, signum: int) -> str:
    deadline = time.monotonic() + 120
    while stored() < at_least and time.monotonic() < deadline and proc.poll() is None:  # type: ignore[operator]
        time.sleep(0.2)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    return err


@pytest.mark.jvm
@pytest.mark.slow
def test_gc_advise_interrupted_resumes(tmp_path: Path) -> None:
    (tmp_path / "spec.toml").write_text(_SLOW_SPEC)
    log = _explicit_gc_log(tmp_path / "gc.log")
    argv = ["gc", "advise", str(log), "--spec", "spec.toml", "--store", "lab.db", "-q", "--max-invocations", "9"]
    proc = subprocess.Popen([PY, "-m", "jvmlab", *argv], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
    err = _stop_after(proc, lambda: _stored(tmp_path / "lab.db"), 2, signal.SIGTERM)
    assert proc.returncode == 143, err
    assert _fault("gc-advise-resume") in _lines(err)[-1], err
    again = run_jvmlab(*argv, "--resume", cwd=tmp_path, timeout=300)
    assert again.returncode == 0, again.stderr
    store = open_store(str(tmp_path / "lab.db"), must_exist=True)
    assert [e.status for e in store.experiments()] == ["done"]  # the same experiment, finished


@pytest.mark.jvm
def test_a_password_in_the_store_url_is_never_printed(tmp_path: Path, pg_server: PgServer) -> None:
    url = fresh_database(pg_server).replace("postgres@", "postgres:s3cret@")  # trust auth: any password works
    (tmp_path / "spec.toml").write_text('[workload]\ncommand = ["sleep", "0.2"]\n[run]\ninvocations = 300\n'
                                        "warmup = 0\n")  # stopped long before its end
    proc = subprocess.Popen([PY, "-m", "jvmlab", "run", "spec.toml", "--store", url, "--quiet"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)

    def stored() -> int:
        import psycopg

        try:
            with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=5) as conn:
                return int(conn.execute("select count(*) from invocation").fetchone()[0])  # type: ignore[index]
        except psycopg.Error:
            return 0

    err = _stop_after(proc, stored, 2, signal.SIGTERM)
    assert proc.returncode == 143, err
    assert "s3cret" not in err, err
    last = _lines(err)[-1]
    assert f"--store {url.replace(':s3cret', '')}" in last and _fault("postgres-password-resume") in last, last
    (exp,) = open_store(url).experiments()
    assert "s3cret" not in exp.command_line and "postgres:***@" in exp.command_line  # shown by `report`


def test_a_one_liner_takes_every_l_and_p(tmp_path: Path) -> None:
    done = run_jvmlab("run", "echo {a} {b} {n}", "-L", "a", "x,y", "-L", "b", "1,2", "-P", "n", "1", "2",
                      "--save-spec", "s.toml", cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "s.toml").read_text()
    assert _fault("oneliner-l-p-repeated") in text
    levels = text.partition("[factors.cmd]")[2]
    assert levels.count("args = ") == 8 and "{" not in levels.replace("{ args", "")  # 2 x 2 x 2, none literal


def test_a_120_kb_command_word_is_not_an_internal_error(tmp_path: Path) -> None:
    done = run_jvmlab("run", "echo " + "x" * 120_000, "--save-spec", "s.toml", cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert _fault("oneliner-120k-word") in done.stdout
    assert os.path.getsize(tmp_path / "s.toml") > 120_000
