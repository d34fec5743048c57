"""The whole Dask cluster killed mid-run (scheduler and workers, SIGKILL to its process group):
`jvmlab run --cluster` ends with one line and exit code 2, the experiment is marked
interrupted, the slots that were in flight are not stored as failures, and `--resume` on a new
cluster measures exactly the missing slots (nothing lost, nothing doubled).

It used to end in ``internal error: KeyError: 'workers'`` (exit 1) with the experiment left
``running`` and the slots in flight stored as ``failed``, so a resume never re-ran them."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from jvmlab.store import open_store

pytest.importorskip("distributed")
pytestmark = [pytest.mark.jvm, pytest.mark.slow]

CELLS, BLOCKS, WARMUP = 2, 8, 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_cluster(port: int) -> subprocess.Popen[str]:
    """`jvmlab cluster local` in its own process group (the scheduler and its worker processes)."""
    proc = subprocess.Popen([sys.executable, "-m", "jvmlab", "cluster", "local", "--workers", "2", "--port",
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if "Ctrl-C" in line or not line:
            break
    assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    return proc


def _kill(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)


def _stored(db: Path) -> int:
    """Invocations stored so far, read only (the run is writing)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return int(conn.execute("select count(*) from invocation").fetchone()[0])
    except sqlite3.Error:  # the schema is being made
        return 0


def test_the_whole_cluster_killed_mid_run_then_resumed_on_a_new_one(tmp_path: Path, jdk17_home: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n'
                    f'[factors]\ngc = {{ serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }}\n'
                    f'[run]\ninvocations = {BLOCKS}\nwarmup = {WARMUP}\n')
    db = tmp_path / "lab.db"
    port = _free_port()
    cluster = _start_cluster(port)
    try:
        run = subprocess.Popen([sys.executable, "-m", "jvmlab", "run", "s.toml", "--cluster",
                                f"tcp://127.0.0.1:{port}", "--store", "lab.db", "--quiet"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "COLUMNS": "200"})
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and _stored(db) < 3 and run.poll() is None:
            time.sleep(0.1)
        assert run.poll() is None, "the run ended before the cluster was killed: make it longer"
        _kill(cluster)
        _, err = run.communicate(timeout=180)
    finally:
        _kill(cluster)
    lines = [line for line in err.splitlines() if line.strip()]
    assert run.returncode == 2, err[-3000:]
    assert len(lines) == 1 and "Traceback" not in err and "internal error" not in err, err[-3000:]
    assert "--resume" in lines[0]
    store = open_store(f"sqlite:///{db}", must_exist=True)
    [exp] = store.experiments()
    assert store.experiment(exp.id).status == "interrupted"
    first = list(store.invocations(exp.id, include_warmup=True))
    assert first and all(i.status == "ok" for i in first), [(i.status, i.reason) for i in first]
    planned = CELLS * (BLOCKS + WARMUP)
    assert len(first) < planned

    port = _free_port()
    cluster = _start_cluster(port)
    try:
        proc = run_jvmlab("run", "s.toml", "--cluster", f"tcp://127.0.0.1:{port}", "--store", "lab.db",
                          "--resume", "--quiet", cwd=tmp_path, timeout=300)
    finally:
        _kill(cluster)
    assert proc.returncode == 0, proc.stderr[-3000:]
    store = open_store(f"sqlite:///{db}", must_exist=True)
    after = list(store.invocations(exp.id, include_warmup=True))
    slots = [(i.cell_id, i.block) for i in after]
    assert len(slots) == len(set(slots)) == planned, "every slot once: nothing lost, nothing doubled"
    assert {i.id for i in first} <= {i.id for i in after}, "what was stored stays"
    assert store.experiment(exp.id).status == "done"
