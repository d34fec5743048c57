"""`minheap --cluster`: the same search, its probes run by the session's Dask block runner on a
real LocalCluster (127.0.0.1); a fake executor whose answer is read from -Xmx makes the answer
exact. The answer and the probes are those of the search on this machine, each stored with
the node that ran it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.cluster.dispatch import Dispatcher
from jvmlab.plan.prepare import prepare
from jvmlab.sizing.minheap import MinHeapSettings
from jvmlab.sizing.study import MinHeapRequest, load_min_heap, run_min_heap
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

from .test_minheap_store import MB, ThresholdExecutor

distributed = pytest.importorskip("distributed")

REQUEST = MinHeapRequest(MinHeapSettings(8 * MB, 128 * MB, 4 * MB, repeats=2))


def test_minheap_on_a_cluster_finds_what_it_finds_here(tmp_path: Path, jdk17_home: Path) -> None:
    text = f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n[factors.gc]\nA = "-Da"\nB = "-Db"\n'
    plan = prepare(parse_spec(text), text, None, check_flags=False)
    here = SqlStore(f"sqlite:///{tmp_path / 'here.db'}")
    local = run_min_heap(plan, here, REQUEST, tmp_path / "here", executor=ThresholdExecutor(50 * MB))
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, resources={"jvm": 1}, processes=False,
                                  protocol="tcp", host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.wait_for_workers(2, timeout=60)
        study = run_min_heap(plan, store, REQUEST, tmp_path / "art",
                             block_runner=lambda session: Dispatcher(client, session, ThresholdExecutor(50 * MB)))
    found = [(c.cell_name, c.result.lower_bytes, c.result.upper_bytes)
             for c in load_min_heap(store, study.experiment_id).cells]
    assert found == [(c.cell_name, c.result.lower_bytes, c.result.upper_bytes) for c in local.cells]
    assert found[0][1:] == (48 * MB, 52 * MB)
    rows = store.invocations(study.experiment_id)
    assert len(rows) == len(here.invocations(local.experiment_id))
    nodes = store.invocation_nodes(study.experiment_id)
    assert all(nodes.get(i.id, "").startswith("tcp://127.0.0.1:") for i in rows), "each probe with its node"
    assert store.experiment(study.experiment_id).status == "done"
