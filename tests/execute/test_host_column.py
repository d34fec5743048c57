"""Issue 30 item 5: the host each invocation ran on is a stored column (schema v6), read back with
the invocation and exported, on one machine as on a cluster (tests/cluster/test_cluster_nodes_report.py)."""

from __future__ import annotations

import csv
import io
import socket
from pathlib import Path

import pytest

from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import SilentObserver
from jvmlab.execute.session import run_experiment
from jvmlab.plan.prepare import prepare
from jvmlab.report.export import export_text
from jvmlab.report.summary import summarize
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore


@pytest.mark.jvm
def test_a_local_run_stores_its_host_with_every_invocation(tmp_path: Path, jdk17_home: Path) -> None:
    text = f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n[run]\ninvocations = 2\nwarmup = 0\n'
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "art"), SilentObserver())
    invocations = store.invocations(exp)
    assert len(invocations) == 2 and {i.host for i in invocations} == {socket.gethostname()}
    assert {i.node for i in invocations} == {None}
    rows = list(csv.DictReader(io.StringIO(export_text(summarize(store, exp), "csv"))))
    assert [r["node"] for r in rows] == [socket.gethostname()] * 2 and {r["worker"] for r in rows} == {""}
