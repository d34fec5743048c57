"""Smoke test on real JVMs: `--until` and `--artifacts-url` on a LocalCluster of two worker
processes on 127.0.0.1. Bounded by --max-invocations; it checks bookkeeping (every slot once, whole
blocks, artifacts on the share, recorded there), never timings."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from jvmlab.cluster.run import run_on_cluster
from jvmlab.execute.options import RunOptions
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

from .fake_nodes import Quiet

distributed = pytest.importorskip("distributed")
pytestmark = [pytest.mark.jvm, pytest.mark.slow]


def test_until_on_real_jvms_is_bounded_and_leaves_artifacts_on_the_share(tmp_path: Path, jdk17_home: Path,
                                                                         jdk25_home: Path) -> None:
    text = (f'[workload]\nbuiltin = "busy"\nargs = ["--ms", "30"]\n[jvms]\nj17 = "{jdk17_home}"\n'
            f'j25 = "{jdk25_home}"\n[run]\ninvocations = 2\nwarmup = 0\n')
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    share = tmp_path / "share"
    share.mkdir()
    options = RunOptions(artifacts_root=tmp_path / "art", until_rel=0.001, max_invocations=8)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, resources={"jvm": 1}, host="127.0.0.1",
                                  scheduler_port=0, dashboard_address="127.0.0.1:0", processes=True) as cluster, \
            distributed.Client(cluster) as client:
        observer = Quiet()
        exp = run_on_cluster(plan, store, options, observer, client, artifacts_url=share.as_uri())
    invocations = store.invocations(exp)
    assert all(i.status == "ok" for i in invocations)
    slots = Counter((i.cell_id, i.block) for i in invocations)
    assert max(slots.values()) == 1 and 4 < len(invocations) <= 8, "blocks were added, within the limit"
    assert observer.added > 0 and store.experiment(exp).status == "done"
    assert all(Path(i.artifacts_dir or "").is_relative_to(share) and any(Path(i.artifacts_dir or "").iterdir())
               for i in invocations)
