"""Ctrl-C on a cluster run cancels what is outstanding and keeps what finished; --resume then
completes the experiment on the cluster with nothing run twice. SQLite is refused for remote
workers with one line. (Fake executor: this is about bookkeeping, not measurement.)"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from jvmlab.cluster.nodes import check_store
from jvmlab.cluster.run import run_on_cluster
from jvmlab.errors import Interrupted, UserError
from jvmlab.execute.fake import FakeExecutor
from jvmlab.execute.options import RunOptions
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

distributed = pytest.importorskip("distributed")


class StopAfter:
    def __init__(self, n: int | None) -> None:
        self.n, self.done = n, 0

    def planned(self, *a): pass
    def starting(self, *a): pass
    def finished(self, *a):
        self.done += 1
        if self.n is not None and self.done == self.n:
            raise KeyboardInterrupt
    def warn(self, hazard): pass
    def extended(self, *a): pass


def test_ctrl_c_keeps_what_finished_and_resume_completes(tmp_path: Path, jdk17_home: Path) -> None:
    text = (f'[workload]\nbuiltin = "hello"\n[jvms]\na = "{jdk17_home}"\nb = "{jdk17_home}"\n'
            f'[run]\ninvocations = 6\nwarmup = 1\n')
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    options = RunOptions(artifacts_root=tmp_path / "art")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, resources={"jvm": 1}, processes=False,
                                  protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster, \
            distributed.Client(cluster) as client:
        with pytest.raises(Interrupted) as stopped:
            run_on_cluster(plan, store, options, StopAfter(5), client, executor=FakeExecutor())
        exp = store.latest_experiment().id
        assert store.experiment(exp).status == "interrupted" and "--resume" in str(stopped.value)
        first = len(store.invocations(exp, include_warmup=True))
        assert 5 <= first < 14
        again = run_on_cluster(plan, store, RunOptions(artifacts_root=tmp_path / "art", resume=True),
                               StopAfter(None), client, executor=FakeExecutor())
    assert again == exp
    idx = {c.id: c.idx for c in store.cells(exp)}
    slots = Counter((idx[i.cell_id], i.block) for i in store.invocations(exp, include_warmup=True))
    assert set(slots) == {(c, b) for c in (0, 1) for b in range(-1, 6)} and max(slots.values()) == 1
    assert store.experiment(exp).status == "done"


def test_sqlite_is_refused_when_workers_are_remote() -> None:
    check_store("sqlite:///lab.db", ["tcp://127.0.0.1:4000"])  # local workers share the file
    check_store("postgresql+psycopg://u@db/lab", ["tcp://10.0.0.5:4000"])
    with pytest.raises(UserError, match="SQLite file but 1 worker"):
        check_store("sqlite:///lab.db", ["tcp://127.0.0.1:4000", "tcp://10.0.0.5:4000"])


class _Quiet(StopAfter):
    def __init__(self) -> None:
        super().__init__(None)


def test_a_grown_spec_resumes_on_the_cluster_with_its_new_cell(tmp_path: Path, jdk17_home: Path) -> None:
    """Issue 13: the cluster opens experiments through the runner, so a spec that gained a JVM
    adds a cell there too; the old cells' invocations stay, only the new cell runs."""
    spec = tmp_path / "spec.toml"
    head = '[workload]\nbuiltin = "hello"\n[jvms]\n'
    tail = '[run]\ninvocations = 2\nwarmup = 0\n'
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, resources={"jvm": 1}, processes=False,
                                  protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster, \
            distributed.Client(cluster) as client:
        for jvms, resume in ((["a", "b"], False), (["a", "c", "b"], True)):
            text = head + "".join(f'{j} = "{jdk17_home}"\n' for j in jvms) + tail
            spec.write_text(text)
            plan = prepare(parse_spec(text), text, spec)
            exp = run_on_cluster(plan, store, RunOptions(artifacts_root=tmp_path / "art", resume=resume),
                                 _Quiet(), client, executor=FakeExecutor())
    assert [e.id for e in store.experiments()] == [exp]
    names = {c.id: (c.idx, c.name) for c in store.cells(exp)}
    assert sorted(names.values()) == [(0, "a"), (1, "b"), (2, "c")]
    slots = Counter((names[i.cell_id][1], i.block) for i in store.invocations(exp))
    assert slots == Counter({(j, b): 1 for j in "abc" for b in (0, 1)})
