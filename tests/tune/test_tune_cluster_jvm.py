"""`jvmlab tune --cluster` as a user runs it, on real JVMs and a LocalCluster of two worker
processes on 127.0.0.1: killed part-way, then resumed on the cluster, every invocation is stored
once with its node, each block whole on one node, and the resume measures nothing twice."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from cli_runner import run_jvmlab

distributed = pytest.importorskip("distributed")

SPEC = """
name = "tune-cluster-jvm"
[workload]
builtin = "hello"
[jvms]
j17 = "{home}"
[tune]
objective = "wall_s"
budget = {{ trials = 3 }}
min_blocks = 2
max_blocks = 3
confirm_max_blocks = 4
[tune.params.gc]
type = "categorical"
values = {{ serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }}
[tune.params.tier]
type = "categorical"
values = {{ c1 = "-XX:TieredStopAtLevel=1", c2 = "" }}
"""


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return int(conn.execute("select count(*) from invocation").fetchone()[0])
        except sqlite3.OperationalError:  # the schema is not there yet
            return 0


@pytest.mark.jvm
@pytest.mark.slow
def test_tune_on_a_cluster_killed_and_resumed_stores_each_invocation_once_with_its_node(
        tmp_path: Path, jdk17_home: Path) -> None:
    spec = tmp_path / "tune.toml"
    spec.write_text(SPEC.format(home=jdk17_home))
    db = tmp_path / "lab.db"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, resources={"jvm": 1}, host="127.0.0.1",
                                  scheduler_port=0, dashboard_address="127.0.0.1:0", processes=True) as cluster:
        address = cluster.scheduler_address
        proc = subprocess.Popen([sys.executable, "-m", "jvmlab", "tune", str(spec), "--store", "lab.db", "-q",
                                 "--cluster", address], cwd=tmp_path, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None and _count(db) < 6:
            time.sleep(0.3)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode in (-signal.SIGKILL, 0), err
        stored = _count(db)
        assert stored >= 6, err

        again = run_jvmlab("tune", str(spec), "--store", "lab.db", "--resume", "--cluster", address,
                           cwd=tmp_path, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"({stored} read back from the store)" in again.stdout
    assert "Cluster:" in again.stdout and "2 block(s) at a time" in again.stdout
    assert "cluster: 2 node(s) accepted; 2 block(s) at a time" in again.stderr and "nodes 2" in again.stderr
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select cell_id, block, node, status from invocation").fetchall()
    assert max(Counter((cell, block) for cell, block, _, _ in rows).values()) == 1  # nothing twice
    assert all(node and node.startswith("tcp://127.0.0.1:") for _, _, node, _ in rows)
    per_block: dict[int, set[str]] = defaultdict(set)
    for _, block, node, _ in rows:
        per_block[block].add(node)
    assert all(len(nodes) == 1 for nodes in per_block.values())  # a block whole on one node
    assert len({n for nodes in per_block.values() for n in nodes}) == 2
    assert sum(status == "ok" for *_, status in rows) >= len(rows) - 2
