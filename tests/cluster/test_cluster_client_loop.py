"""The client loop's round trips: every result comes over in the gather of its wake-up (no
``result()`` call per slot), and a node is readied during its check (the slot code loaded in the
worker process before its first slot). Real Dask, real store; fake executor."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jvmlab.cluster.nodes import check_nodes
from jvmlab.cluster.run import run_on_cluster
from jvmlab.execute.options import RunOptions
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

from .fake_nodes import NodeOffsetExecutor, Quiet

distributed = pytest.importorskip("distributed")


class CountingClient:
    """The real client, counting what its ``gather`` brought back (a spy, not a fake)."""

    def __init__(self, client: distributed.Client) -> None:
        self._client, self.gathered, self.gathers = client, 0, 0

    def gather(self, futures, *args, **kwargs):
        values = self._client.gather(futures, *args, **kwargs)
        self.gathers += 1
        self.gathered += len(values)
        return values

    def __getattr__(self, name):
        return getattr(self._client, name)


def test_every_result_comes_in_a_gather(tmp_path: Path, jdk17_home: Path) -> None:
    text = (f'[workload]\nbuiltin = "hello"\n[jvms]\na = "{jdk17_home}"\nb = "{jdk17_home}"\n'
            f'[run]\ninvocations = 6\nwarmup = 0\n')
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, resources={"jvm": 1}, processes=False,
                                  protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster, \
            distributed.Client(cluster) as client:
        spy = CountingClient(client)
        exp = run_on_cluster(prepare(parse_spec(text), text, None), store, RunOptions(artifacts_root=tmp_path / "a"),
                             Quiet(), spy, executor=NodeOffsetExecutor({}, sleep_s=0.05))
    stored = store.invocations(exp)
    assert len(stored) == 12 and all(i.status == "ok" for i in stored)
    assert spy.gathered == 12 and spy.gathers <= 12


def test_a_node_is_ready_for_slots_after_its_check(jdk17_home: Path) -> None:
    """A worker process of its own: the task module is loaded there by the check, not by the first slot."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, resources={"jvm": 1}, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster, \
            distributed.Client(cluster) as client:
        [address] = list(client.scheduler_info(n_workers=-1)["workers"])
        before = client.run(lambda: "jvmlab.cluster.task" in sys.modules)[address]
        [check] = check_nodes(client, [address], [str(jdk17_home)])
        after = client.run(lambda: "jvmlab.cluster.task" in sys.modules)[address]
    assert check.refused is None
    assert before is False and after is True
