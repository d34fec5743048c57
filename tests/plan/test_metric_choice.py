"""The report remembers how the experiment was run: the recorded metric and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from jvmlab.model.documents import RunOptionsRecord
from jvmlab.plan.metric_choice import MetricChoice, choose_metric, remember_metric
from jvmlab.report.summary import summarize
from jvmlab.report.synthetic import SyntheticSpec, generate
from jvmlab.store.sql import SqlStore


@pytest.fixture()
def store(tmp_path: Path) -> SqlStore:
    return SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")


def test_choice_order() -> None:
    nothing = choose_metric(RunOptionsRecord(), None)
    assert nothing.metric == "wall_s" and "default" in nothing.reason
    assert choose_metric(RunOptionsRecord(metric="ready_s"), "user_s") == MetricChoice("user_s", "--metric given")
    chosen = choose_metric(RunOptionsRecord(metric="ready_s", metric_reason="--metric given"), None)
    assert chosen.metric == "ready_s" and chosen.reason == "as the run was made: --metric given"


def test_summary_uses_the_recorded_metric_and_merges_options(store: SqlStore) -> None:
    exp = generate(store, SyntheticSpec(invocations=4, failures=0))
    store.set_run_options(exp, RunOptionsRecord(until_pct=2.0))
    remember_metric(store, exp, MetricChoice("user_s", "scenario x: CPU time"))
    assert store.experiment(exp).run_options == RunOptionsRecord(until_pct=2.0, metric="user_s",
                                                                 metric_reason="scenario x: CPU time")
    s = summarize(store, exp)
    assert s.metric == "user_s" and s.metric_reason == "as the run was made: scenario x: CPU time"
    doc = s.to_json()
    assert doc["metric"] == "user_s" and "scenario x" in doc["metric_reason"]
    assert {c["metric"] for c in doc["comparisons"]} == {"user_s"}
    told = summarize(store, exp, "wall_s")
    assert told.metric == "wall_s" and told.metric_reason == "--metric given"


def test_recorded_metric_without_values_falls_back_saying_so(store: SqlStore) -> None:
    exp = generate(store, SyntheticSpec(invocations=3, failures=0))
    remember_metric(store, exp, MetricChoice("progress.steady_rate_missing", "scenario gc: throughput"))
    s = summarize(store, exp)
    assert s.metric == "wall_s" and "no invocation has a value" in s.metric_reason


@pytest.mark.jvm
def test_report_after_run_metric_uses_it(tmp_path: Path, jdk17_home: Path) -> None:
    """`run --metric user_s`, then `report --json` and `export` without --metric: user_s,
    with the reason; the HTML says it too."""
    spec = tmp_path / "s.toml"
    spec.write_text(f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n'
                    f'[factors.copy]\na = "-Djvmlab.copy=a"\nb = "-Djvmlab.copy=b"\n'
                    f'[run]\ninvocations = 2\nwarmup = 0\n')
    proc = run_jvmlab("run", str(spec), "--store", "lab.db", "--quiet", "--metric", "user_s",
                      "--no-collect", "proc", cwd=tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert "cannot reach significance" in proc.stderr  # 2 blocks: p >= 1/3, said before running
    rep = run_jvmlab("report", "--store", "lab.db", "--json", "--html", "r.html", cwd=tmp_path)
    assert rep.returncode == 0, rep.stderr
    doc = json.loads(rep.stdout)
    assert doc["metric"] == "user_s" and doc["metric_reason"] == "as the run was made: --metric given"
    assert "as the run was made: --metric given" in (tmp_path / "r.html").read_text()
    exp = run_jvmlab("export", "--store", "lab.db", "--format", "json", cwd=tmp_path)
    summary = json.loads(exp.stdout)["summary"]
    assert summary["metric"] == "user_s" and summary["metric_reason"].endswith("--metric given")
    again = run_jvmlab("report", "--store", "lab.db", "--json", "--metric", "wall_s", cwd=tmp_path)
    assert json.loads(again.stdout)["metric"] == "wall_s"
