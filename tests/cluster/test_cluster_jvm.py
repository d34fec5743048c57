"""A LocalCluster of two single-thread workers on 127.0.0.1, a real PostgreSQL on 127.0.0.1 and
real JVMs: every slot stored once with its node; a worker SIGKILLed mid-run loses and doubles
nothing; a node with another JDK build is refused."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from jvmlab.cluster.node import JDK_MAP_ENV
from jvmlab.cluster.run import run_on_cluster
from jvmlab.execute.options import RunOptions
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore
from pg_server import fresh_database

distributed = pytest.importorskip("distributed")
pytestmark = [pytest.mark.jvm, pytest.mark.slow]


class Recorder:
    """An observer keeping what the progress bar would show; ``on_finished`` is a test hook."""

    def __init__(self, on_finished=None) -> None:
        self.warnings, self.node_notes, self.on_finished = [], [], on_finished
        self.done = 0

    def planned(self, *a): pass
    def starting(self, cell, slot): pass
    def finished(self, cell, slot, result):
        self.done += 1
        if self.on_finished:
            self.on_finished(self.done)
    def warn(self, hazard): self.warnings.append(hazard)
    def extended(self, *a): pass
    def nodes(self, busy, idle, rate): self.node_notes.append((busy, idle, rate))


def local_cluster(workers: int) -> distributed.LocalCluster:
    return distributed.LocalCluster(n_workers=workers, threads_per_worker=1, resources={"jvm": 1},
                                    host="127.0.0.1", scheduler_port=0, dashboard_address="127.0.0.1:0",
                                    processes=True)


def spec(jdk17_home: Path, jdk25_home: Path, ms: int, blocks: int) -> str:
    return (f'[workload]\nbuiltin = "busy"\nargs = ["--ms", "{ms}"]\n[jvms]\nj17 = "{jdk17_home}"\n'
            f'j25 = "{jdk25_home}"\n[run]\ninvocations = {blocks}\nwarmup = 0\n')


def assert_every_slot_once(store: SqlStore, exp: int, cells: int, blocks: int, split_blocks: int = 0) -> None:
    """Every slot stored exactly once, with its node; blocks whole on one node except at most
    ``split_blocks`` (a node lost mid-block gives the rest of its block to another node)."""
    invocations = store.invocations(exp)
    idx = {c.id: c.idx for c in store.cells(exp)}
    slots = Counter((idx[i.cell_id], i.block) for i in invocations)
    assert set(slots) == {(c, b) for c in range(cells) for b in range(blocks)}
    assert max(slots.values()) == 1
    nodes = store.invocation_nodes(exp)
    assert all(nodes[i.id] for i in invocations)
    per_block: dict[int, set[str]] = {}
    for i in invocations:
        per_block.setdefault(i.block, set()).add(nodes[i.id])
    assert sum(len(n) > 1 for n in per_block.values()) <= split_blocks, "a block ran whole on one node"


def test_small_matrix_on_real_jvms_every_slot_once_with_its_node(tmp_path, pg_server, jdk17_home, jdk25_home):
    text = spec(jdk17_home, jdk25_home, 50, 4)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(fresh_database(pg_server))
    observer = Recorder()
    with local_cluster(2) as cluster, distributed.Client(cluster) as client:
        exp = run_on_cluster(plan, store, RunOptions(artifacts_root=tmp_path / "art"), observer, client)
        workers = set(client.scheduler_info(n_workers=-1)["workers"])
    assert_every_slot_once(store, exp, 2, 4)
    assert all(i.status == "ok" for i in store.invocations(exp))
    assert set(store.invocation_nodes(exp).values()) <= workers
    nodes = store.nodes(exp)
    assert set(nodes) == workers and all(why is None for _, why in nodes.values())
    assert all(fp["jdk_builds"][str(jdk17_home)]["JAVA_VERSION"] for fp, _ in nodes.values())
    assert observer.node_notes and max(busy for busy, _, _ in observer.node_notes) >= 1
    assert store.experiment(exp).status == "done"
    assert_node_section_in_the_report(store, exp, workers)


def assert_node_section_in_the_report(store: SqlStore, exp: int, workers: set[str]) -> None:
    """The report (loaded once through the results layer) has the node section in HTML and JSON:
    which node ran what, every node's level against the median, the within-node verdict."""
    import json

    from jvmlab.report.export import export_text
    from jvmlab.report.html import render_html
    from jvmlab.report.summary import summarize

    summary = summarize(store, exp)
    doc = json.loads(export_text(summary, "json"))["nodes"]
    assert set(doc["invocations"]) == workers and sum(doc["invocations"].values()) == 2 * 4
    assert {o["node"] for o in doc["offsets"]} == workers
    [comp] = doc["comparisons"]
    assert comp["cell"] == "j25" and comp["baseline"] == "j17" and comp["ratio"] > 0
    assert comp["ci_kind"].startswith("hierarchical")
    html = render_html(summary)
    assert '<section id="nodes">' in html and all(w in html for w in workers)
    assert "Within-node comparisons (the verdict)" in html


def test_a_worker_killed_mid_run_loses_and_doubles_nothing(tmp_path, pg_server, jdk17_home, jdk25_home):
    text = spec(jdk17_home, jdk25_home, 1500, 4)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(fresh_database(pg_server))
    with local_cluster(2) as cluster, distributed.Client(cluster) as client:
        def kill_one_worker(done: int) -> None:
            if done != 1:
                return
            pids = client.run(os.getpid)  # worker address -> pid (worker processes we started)
            victim = sorted(pids)[0]

            def later() -> None:
                time.sleep(0.8)  # the next invocation of that worker is running (each lasts 1.5 s)
                os.kill(pids[victim], signal.SIGKILL)
            threading.Thread(target=later, daemon=True).start()
        observer = Recorder(kill_one_worker)
        exp = run_on_cluster(plan, store, RunOptions(artifacts_root=tmp_path / "art"), observer, client)
    assert_every_slot_once(store, exp, 2, 4, split_blocks=1)
    assert all(i.status == "ok" for i in store.invocations(exp))
    lost = [h for h in store.hazards(exp) if h.kind == "node-lost"]
    assert len(lost) <= 1
    print(f"node-lost hazards: {[h.detail for h in lost]}")


def test_a_node_with_another_jdk_build_is_refused(tmp_path, pg_server, jdk17_home, jdk25_home):
    other = tmp_path / "jdk17-other"
    other.mkdir()
    (other / "release").write_text((jdk17_home / "release").read_text().replace("JAVA_RUNTIME_VERSION=\"",
                                                                                 "JAVA_RUNTIME_VERSION=\"0-other-"))
    text = spec(jdk17_home, jdk25_home, 50, 2)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(fresh_database(pg_server))
    with local_cluster(1) as cluster, distributed.Client(cluster) as client:
        env = {**os.environ, JDK_MAP_ENV: f"{jdk17_home}={other}"}
        odd = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", cluster.scheduler_address,
                                "--nthreads", "1", "--resources", "jvm=1", "--host", "127.0.0.1",
                                "--no-dashboard", "--no-nanny"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            client.wait_for_workers(2, timeout=60)
            observer = Recorder()
            exp = run_on_cluster(plan, store, RunOptions(artifacts_root=tmp_path / "art"), observer, client)
        finally:
            odd.terminate()
            odd.wait(timeout=30)
    refused = {n: why for n, (_, why) in store.nodes(exp).items() if why}
    assert len(refused) == 1
    (name, why), = refused.items()
    assert "another build" in why and "JAVA_RUNTIME_VERSION" in why and str(other) in why
    assert name not in set(store.invocation_nodes(exp).values())
    assert_every_slot_once(store, exp, 2, 2)
    assert any(h.kind == "node-refused" for h in observer.warnings)
