"""Shared artifacts (`--artifacts-url file:///PATH`): nodes copy each invocation's artifacts to
the share, whatever their size, and the store records the final path; without a share, files
over the cap stay on the node and are named in a warning. A temp folder is the share."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.cluster import task
from jvmlab.cluster.run import run_on_cluster
from jvmlab.cluster.share import check_artifacts_url, copy_to_share, parse_artifacts_url, share_target
from jvmlab.errors import UserError
from jvmlab.execute.options import RunOptions
from jvmlab.model import hazards
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

from .fake_nodes import NodeOffsetExecutor, Quiet

distributed = pytest.importorskip("distributed")

SPEC = '[workload]\nbuiltin = "hello"\n[jvms]\na = "{home}"\nb = "{home}"\n[run]\ninvocations = 3\nwarmup = 0\n'


def run(tmp_path: Path, home: Path, artifact_bytes: int, artifacts_url: str | None) -> tuple[SqlStore, int, Quiet]:
    text = SPEC.format(home=home)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    observer = Quiet()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, resources={"jvm": 1}, processes=False,
                                  protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster, \
            distributed.Client(cluster) as client:
        exp = run_on_cluster(plan, store, RunOptions(artifacts_root=tmp_path / "art"), observer, client,
                             executor=NodeOffsetExecutor({}, artifact_bytes=artifact_bytes, sleep_s=0.0),
                             artifacts_url=artifacts_url)
    return store, exp, observer


def test_nodes_copy_artifacts_to_the_share_and_the_store_records_that_path(tmp_path: Path, jdk17_home: Path,
                                                                           monkeypatch) -> None:
    monkeypatch.setattr(task, "ARTIFACT_CAP_BYTES", 1000)  # the 4 kB "GC log" is over the cap
    share = tmp_path / "share"
    share.mkdir()
    store, exp, observer = run(tmp_path, jdk17_home, 4096, share.as_uri())
    invocations = store.invocations(exp)
    assert len(invocations) == 6
    for inv in invocations:
        folder = Path(inv.artifacts_dir or "")
        assert folder.parent.parent == share / f"exp-{exp}", folder
        assert (folder / "gc.log").stat().st_size == 4096
        assert (folder / "out.txt").read_text() == f"ran {tmp_path / 'art' / folder.relative_to(share)}\n"
    assert not [w for w in observer.warnings if w.kind == hazards.ARTIFACTS_ON_NODE]
    assert not list(share.rglob("*.partial"))


def test_without_a_share_files_over_the_cap_stay_on_the_node_and_are_named(tmp_path: Path, jdk17_home: Path,
                                                                            monkeypatch) -> None:
    monkeypatch.setattr(task, "ARTIFACT_CAP_BYTES", 1000)
    store, exp, observer = run(tmp_path, jdk17_home, 4096, None)
    left = [w for w in observer.warnings if w.kind == hazards.ARTIFACTS_ON_NODE]
    assert len(left) == 6 and all("gc.log stayed in" in w.detail and "--artifacts-url" in w.hint for w in left)
    assert {h.kind for h in store.hazards(exp)} >= {hazards.ARTIFACTS_ON_NODE}
    assert all(Path(i.artifacts_dir or "").is_relative_to(tmp_path / "art") for i in store.invocations(exp))


def test_the_artifacts_url_is_checked_before_anything_runs(tmp_path: Path) -> None:
    assert parse_artifacts_url(tmp_path.as_uri()) == tmp_path
    for bad, why in [("s3://bucket/x", "file:///PATH"), ("file://nas/share", "not a host"),
                     ((tmp_path / "missing").as_uri(), "not an existing folder")]:
        with pytest.raises(UserError, match=why):
            parse_artifacts_url(bad)
    with pytest.raises(UserError, match="for --cluster runs"):
        check_artifacts_url(tmp_path.as_uri(), None)


def test_a_copy_lands_whole_under_its_final_name(tmp_path: Path) -> None:
    folder = tmp_path / "art" / "exp-1" / "cell-0" / "b2"
    folder.mkdir(parents=True)
    (folder / "gc.log").write_text("gc")
    target = share_target(tmp_path / "share", tmp_path / "art", folder)
    assert target == tmp_path / "share" / "exp-1" / "cell-0" / "b2"
    assert copy_to_share(folder, target) == target and (target / "gc.log").read_text() == "gc"
    (folder / "gc.log").write_text("again")  # a re-queued slot copies again: the newest wins
    copy_to_share(folder, target)
    assert (target / "gc.log").read_text() == "again" and len(list(target.parent.iterdir())) == 1
