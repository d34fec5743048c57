"""The node analysis in `report`: a LocalCluster of three single-thread workers, one of them 15%
slower (seeded fake executor); the report's terminal, HTML and JSON name that node as a
systematic offset and give the within-node (hierarchical) comparison as the verdict, all from
the loaded results (no store read by a renderer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from jvmlab.cluster.run import run_on_cluster
from jvmlab.execute.options import RunOptions
from jvmlab.plan.prepare import prepare
from jvmlab.report import nodes as nodes_view
from jvmlab.report import terminal
from jvmlab.report.export import export_text
from jvmlab.report.html import render_html
from jvmlab.report.summary import summarize
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

from .fake_nodes import NodeOffsetExecutor, Quiet

distributed = pytest.importorskip("distributed")

SPEC = '''
[workload]
builtin = "hello"
[jvms]
j = "{home}"
[factors.speed]
base = "-Dfake.mean_s=1.00 -Dfake.cv=0.003"
slower = "-Dfake.mean_s=1.10 -Dfake.cv=0.003"
[run]
invocations = {blocks}
warmup = 0
seed = 5
'''


def in_process_cluster(workers: int) -> distributed.LocalCluster:
    return distributed.LocalCluster(n_workers=workers, threads_per_worker=1, resources={"jvm": 1}, processes=False,
                                    protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0")


def run_with_slow_node(tmp_path: Path, home: Path, blocks: int = 12) -> tuple[SqlStore, int, str]:
    text = SPEC.format(home=home, blocks=blocks)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    with in_process_cluster(3) as cluster, distributed.Client(cluster) as client:
        slow = sorted(client.scheduler_info(n_workers=-1)["workers"])[1]
        exp = run_on_cluster(plan, store, RunOptions(artifacts_root=tmp_path / "art"), Quiet(), client,
                             executor=NodeOffsetExecutor({slow: 1.15}))
    return store, exp, slow


def test_a_node_15_percent_off_is_named_in_terminal_html_and_json(tmp_path: Path, jdk17_home: Path) -> None:
    store, exp, slow = run_with_slow_node(tmp_path, jdk17_home)
    summary = summarize(store, exp)
    assert summary.results is not None and summary.results.nodes is not None
    per_node = summary.results.nodes.node_of
    assert len(set(per_node.values())) == 3, "every node ran blocks"

    doc = json.loads(export_text(summary, "json"))["nodes"]
    assert doc["systematic_offset_nodes"] == [slow]
    offset = next(o for o in doc["offsets"] if o["node"] == slow)
    assert 1.10 < offset["ratio_to_median_node"] < 1.20 and offset["ci95"][0] > 1.0
    assert sum(doc["invocations"].values()) == 2 * 12
    [comp] = doc["comparisons"]
    assert comp["cell"] == "j speed=slower" and comp["baseline"] == "j speed=base" and comp["n_nodes"] == 3
    assert comp["significant"] is True and comp["ci95"][0] > 1.0, "10% within node at 0.3% CV, 12 blocks"
    assert 1.05 < comp["ratio"] < 1.15, comp

    html = render_html(summary)
    section = html[html.index('<section id="nodes">'):]
    section = section[:section.index("</section>")]
    assert f"Systematic offset: <b>{slow}</b>" in section
    assert section.count("systematic offset") == 1, "only the slow node is marked"
    assert "j speed=slower vs j speed=base within node (3 nodes, 12 blocks)" in section and "differs" in section

    console = Console(record=True, width=200)
    terminal.render(summary, console)
    text = console.export_text()
    slow_line = next(line for line in text.splitlines() if line.strip().startswith(slow))
    assert "systematic offset" in slow_line and "+1" in slow_line
    assert "Nodes (3 used)" in text and "within node (3 nodes, 12 blocks)" in text


def test_a_run_on_one_machine_has_no_node_section(tmp_path: Path, jdk17_home: Path) -> None:
    from jvmlab.execute.fake import FakeExecutor
    from jvmlab.execute.session import run_experiment

    text = SPEC.format(home=jdk17_home, blocks=3)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = run_experiment(prepare(parse_spec(text), text, None), store, RunOptions(artifacts_root=tmp_path / "a"),
                         Quiet(), executor=FakeExecutor(1))
    summary = summarize(store, exp)
    assert summary.results is not None and summary.results.nodes is None
    assert nodes_view.node_analysis(summary) is None
    assert '<section id="nodes">' not in render_html(summary)
    assert "nodes" not in json.loads(export_text(summary, "json"))


def test_export_names_the_node_and_worker_of_every_invocation(tmp_path: Path, jdk17_home: Path) -> None:
    """Issue 30 item 5: where each invocation ran is data in `export --format csv|json`, so a
    user can regroup by node outside jvmlab: the worker as stored with the invocation, the
    node as that worker's host."""
    import csv
    import io
    import socket

    store, exp, _slow = run_with_slow_node(tmp_path, jdk17_home, blocks=3)
    summary = summarize(store, exp)
    stored = {i.id: i.node for i in store.invocations(exp)}
    assert len(set(stored.values())) == 3 and None not in stored.values()
    assert {i.host for i in store.invocations(exp)} == {socket.gethostname()}  # the column, from each node
    rows = list(csv.DictReader(io.StringIO(export_text(summary, "csv"))))
    assert len(rows) == len(stored)
    for row in rows:
        assert row["worker"] == stored[int(row["invocation_id"])]
        assert row["node"] == socket.gethostname()
    for inv in json.loads(export_text(summary, "json"))["invocations"]:
        assert inv["worker"] == stored[inv["invocation_id"]] and inv["node"] == socket.gethostname()
