"""Parcels: each cell's constant part goes to a node once and slots name it by token; a node that
lost its parcels answers ParcelMissing and gets them again; a node that cannot keep them fails
the slot after 3 resends, with the reason. A real LocalCluster of quiet nodes (workers in this
process, so the test can reach their shelf) and a real store; fake executor."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from jvmlab.cluster import parcel
from jvmlab.cluster.local import start_local_cluster
from jvmlab.cluster.parcel import MAX_RESENDS, SHELF_CAPACITY, SlotOrder
from jvmlab.cluster.run import run_on_cluster
from jvmlab.execute.options import RunOptions
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

from .fake_nodes import NodeOffsetExecutor, Quiet

distributed = pytest.importorskip("distributed")


class OrderSpy:
    """The real client, noting each slot order it submits (a spy, not a fake); after ``forget_at``
    submits it makes every node drop its parcels, as restarted workers would."""

    def __init__(self, client: distributed.Client, forget_at: int | None = None) -> None:
        self._client, self.forget_at = client, forget_at
        self.orders: list[tuple[str, SlotOrder]] = []
        self.forgotten = 0

    def submit(self, fn, *args, **kwargs):
        if args and isinstance(args[0], SlotOrder):
            self.orders.append((kwargs["workers"][0], args[0]))
            if len(self.orders) == self.forget_at:
                self.forgotten = sum(self._client.run(lambda: parcel.SHELF.clear()).values())
        return self._client.submit(fn, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._client, name)


def _run(tmp_path: Path, jdk: Path, spy_of, invocations: int = 6):
    text = (f'[workload]\nbuiltin = "hello"\n[jvms]\na = "{jdk}"\nb = "{jdk}"\n'
            f'[run]\ninvocations = {invocations}\nwarmup = 0\n')
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    with start_local_cluster(2, processes=False) as cluster, distributed.Client(cluster) as client:
        spy = spy_of(client)
        exp = run_on_cluster(prepare(parse_spec(text), text, None), store, RunOptions(artifacts_root=tmp_path / "a"),
                             Quiet(), spy, executor=NodeOffsetExecutor({}, sleep_s=0.02))
    return spy, store.invocations(exp)


def test_each_cells_parcel_goes_once_to_each_node_and_slots_carry_the_token(tmp_path: Path,
                                                                             jdk17_home: Path) -> None:
    parcel.SHELF.clear()
    spy, stored = _run(tmp_path, jdk17_home, OrderSpy)
    assert len(stored) == 12 and all(i.status == "ok" for i in stored)
    inside = Counter((node, order.token) for node, order in spy.orders if order.parcel is not None)
    used = {(node, order.token) for node, order in spy.orders}
    assert set(inside) == used and set(inside.values()) == {1}  # once per node and cell, no more
    assert len({token for _, token in used}) == 2  # one parcel per cell
    assert len(spy.orders) == 12 and sum(inside.values()) < 12


def test_a_node_that_lost_its_parcels_gets_them_again(tmp_path: Path, jdk17_home: Path) -> None:
    parcel.SHELF.clear()
    spy, stored = _run(tmp_path, jdk17_home, lambda c: OrderSpy(c, forget_at=6), invocations=8)
    assert spy.forgotten > 0
    assert len(stored) == 16 and all(i.status == "ok" for i in stored)
    inside = Counter((node, order.token) for node, order in spy.orders if order.parcel is not None)
    assert max(inside.values()) == 2  # sent, lost, sent again (ParcelMissing)
    assert len(spy.orders) > 16  # the slots that found no parcel were sent again


def test_a_node_that_keeps_no_parcel_fails_the_slot_after_three_resends(tmp_path: Path, jdk17_home: Path) -> None:
    parcel.SHELF.clear()
    parcel.SHELF.capacity = 0  # a node that keeps no parcel
    try:
        spy, stored = _run(tmp_path, jdk17_home, OrderSpy, invocations=1)
    finally:
        parcel.SHELF.capacity = SHELF_CAPACITY
    assert len(stored) == 2 and all(i.status == "failed" for i in stored)
    assert all(f"after it was sent {MAX_RESENDS} more times" in (i.reason or "") for i in stored)
    assert len(spy.orders) == 2 * (1 + MAX_RESENDS)


def test_the_node_check_loads_what_a_first_slot_would_import(tmp_path: Path) -> None:
    """ready_node in a fresh interpreter: every collector module and the GC log analysis the
    flag-effect collector needs are loaded by it, none before it; the executor is loaded after it."""
    import json
    import subprocess
    import sys

    code = ("import json, sys\n"
            "from jvmlab.cluster.parcel import ready_node\n"
            "before = set(sys.modules)\n"
            "kinds = ready_node()\n"
            "now = set(sys.modules)\n"
            "print(json.dumps({'kinds': kinds, 'new': sorted(now - before), 'all': sorted(now)}))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    from jvmlab.collect.registry import entries

    assert got["kinds"] == len(entries())
    new = set(got["new"])
    for module in ("jvmlab.collect.flag_effect", "jvmlab.collect.jfr", "jvmlab.collect.jfr_settings",
                   "jvmlab.collect.gc", "jvmlab.collect.proc"):
        assert module in new, module
    assert any(m.startswith("jvmlab.gclog.") for m in new)
    assert {"jvmlab.execute.windows", "jvmlab.execute.launcher"} <= set(got["all"])
