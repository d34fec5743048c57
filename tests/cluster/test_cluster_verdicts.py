"""The verdicts of a cluster run are the within-node comparisons: a LocalCluster of three
single-thread workers on 127.0.0.1, one node 15% slower, and that node runs more of the other
cells than of the baseline (the baseline's workload fails there, and it takes most blocks, being
the quickest to come back). Pooled, nodes ignored, the cells look ~10% slower than they are; the
"Verdicts" list of the terminal, HTML, JSON and Markdown report gives the within-node ratio,
says that it is within node, and keeps the pooled one in the node section.

Seeded fake executor (the values depend on the slot alone); real store, real Dask."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from jvmlab.cluster.run import run_on_cluster
from jvmlab.execute.options import RunOptions
from jvmlab.plan.prepare import prepare
from jvmlab.report import terminal
from jvmlab.report.export import export_text
from jvmlab.report.html import render_html
from jvmlab.report.summary import Summary, summarize
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
base = "-Dfake.mean_s=1.00 -Dfake.cv=0.003 -Dfake.fail_p=0.0001"
same = "-Dfake.mean_s=1.00 -Dfake.cv=0.003"
slower = "-Dfake.mean_s=1.10 -Dfake.cv=0.003"
[run]
invocations = 40
warmup = 0
seed = 11
max_consecutive_failures = 1000
'''
SAME, SLOWER, BASE = "j speed=same", "j speed=slower", "j speed=base"


def in_process_cluster(workers: int) -> distributed.LocalCluster:
    return distributed.LocalCluster(n_workers=workers, threads_per_worker=1, resources={"jvm": 1}, processes=False,
                                    protocol="tcp", host="127.0.0.1", dashboard_address="127.0.0.1:0")


@pytest.fixture(scope="module")
def unbalanced(tmp_path_factory: pytest.TempPathFactory, jdk17_home: Path) -> tuple[Summary, str]:
    """One run: the slow node fails every baseline slot and sleeps least, so it runs most blocks."""
    tmp = tmp_path_factory.mktemp("verdicts")
    text = SPEC.format(home=jdk17_home)
    store = SqlStore(f"sqlite:///{tmp / 'lab.db'}")
    with in_process_cluster(3) as cluster, distributed.Client(cluster) as client:
        slow = sorted(client.scheduler_info(n_workers=-1)["workers"])[1]
        executor = NodeOffsetExecutor({slow: 1.15}, fail_on=frozenset({slow}), sleep_s=0.25, sleep_on={slow: 0.0})
        exp = run_on_cluster(prepare(parse_spec(text), text, None), store, RunOptions(artifacts_root=tmp / "art"),
                             Quiet(), client, executor=executor)
    return summarize(store, exp), slow


def test_the_assignment_is_unbalanced_so_pooling_is_biased(unbalanced: tuple[Summary, str]) -> None:
    summary, slow = unbalanced
    assert summary.results is not None and summary.results.nodes is not None
    node_of = summary.results.nodes.node_of
    cell_of = {c.id: c.name for c in summary.results.cells}
    ok_on_slow = [cell_of[i.cell_id] for i in summary.invocations if i.status == "ok" and node_of[i.id] == slow]
    assert BASE not in ok_on_slow and ok_on_slow.count(SAME) > 12, "the slow node ran most blocks, no baseline"
    assert summary.comparison is not None
    pooled = {c.cell: c for c in summary.comparison.pooled}
    assert pooled[SAME].ratio is not None and pooled[SAME].ratio > 1.07, "pooled: the node's offset as an effect"
    assert pooled[SLOWER].ratio is not None and pooled[SLOWER].ratio > 1.17


def test_the_verdicts_are_within_node_in_json(unbalanced: tuple[Summary, str]) -> None:
    summary, slow = unbalanced
    doc = json.loads(export_text(summary, "json"))
    comps = {c["cell"]: c for c in doc["summary"]["comparisons"]}
    assert {c["ci_kind"] for c in comps.values()} == {"hierarchical"}
    assert 0.98 < comps[SAME]["ratio"] < 1.02 and 1.08 < comps[SLOWER]["ratio"] < 1.12
    assert comps[SLOWER]["significant"] is True and comps[SLOWER]["ci95"][0] > 1.0
    assert "within node" in comps[SLOWER]["verdict"] and "slower than j speed=base" in comps[SLOWER]["verdict"]
    assert "within node" in comps[SAME]["verdict"]
    assert any("Verdicts are within node (the run used 3 nodes)" in n for n in doc["summary"]["notes"])
    nodes = doc["nodes"]
    assert nodes["verdicts"] == "within node"
    pooled = {c["cell"]: c for c in nodes["pooled_comparisons"]}
    assert pooled[SAME]["ratio"] > 1.07 and pooled[SAME]["ci_kind"].startswith("pooled, nodes ignored")
    assert nodes["systematic_offset_nodes"] == [slow]


def test_the_verdicts_are_within_node_in_terminal_html_and_markdown(unbalanced: tuple[Summary, str]) -> None:
    summary, _ = unbalanced
    console = Console(record=True, width=250)
    terminal.render(summary, console)
    text = console.export_text()
    verdicts = text[text.index("Verdicts"):text.index("Nodes (")]
    slower = next(line for line in verdicts.splitlines() if line.strip().startswith(SLOWER))
    assert "slower than j speed=base" in slower and "within node" in slower and "hierarchical" in slower
    assert f"{SAME} vs {BASE} pooled, nodes ignored" in text[text.index("Nodes ("):]

    html = render_html(summary)
    listed = html[html.index('<section id="verdicts">'):]
    listed = listed[:listed.index("</section>")]
    assert listed.count("within node") == 2
    section = html[html.index('<section id="nodes">'):]
    assert "Pooled, nodes ignored (for reference, not the verdict)" in section[:section.index("</section>")]

    markdown = export_text(summary, "markdown")
    assert markdown[markdown.index("**Verdicts**"):].count("within node") >= 2


def test_a_verdict_word_matches_the_within_node_interval(unbalanced: tuple[Summary, str]) -> None:
    """The words come from the within-node numbers: a +10% within node reads "10.x% slower",
    never the pooled ~+20%."""
    summary, _ = unbalanced
    sentence = summary.verdicts[SLOWER]
    assert sentence.split(" is ")[1].split("%")[0] in {f"{x / 10:.1f}" for x in range(85, 116)}, sentence
    assert sentence.endswith("hierarchical bootstrap over nodes, then blocks]")
