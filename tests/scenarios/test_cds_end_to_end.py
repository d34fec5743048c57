"""The cds scenario end to end on real JVMs: archives made in setup, runs stored, a verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.cli.running import run_plan
from jvmlab.plan.prepare import prepare
from jvmlab.report.summary import summarize
from jvmlab.scenarios import cds, scenario_verdict
from jvmlab.scenarios.jdks import demo_jdks
from jvmlab.spec.load import parse_spec
from jvmlab.store import open_store


@pytest.mark.jvm
def test_cds_quick_on_hello(tmp_path: Path) -> None:
    (run,) = cds.runs(demo_jdks(), quick=True, workloads=("hello",), invocations=2)
    plan = prepare(parse_spec(run.toml), run.toml, None)
    store = str(tmp_path / "lab.db")
    exp_id = run_plan(plan, store, artifacts=tmp_path / "artifacts", quiet=True, metric=run.metric,
                      metric_reason=run.metric_reason)
    summary = summarize(open_store(store), exp_id)  # `report N`: the scenario's metric, remembered
    assert summary.metric == "wall_s"
    assert summary.metric_reason == "as the run was made: scenario cds: startup wall time"
    by_level = {(cs.cell.jvm, cs.cell.levels["cds"]): cs for cs in summary.cells}
    for (jvm, level), cs in by_level.items():
        assert cs.n == 2 and cs.failures == 0, (jvm, level)
        if level in ("appcds", "aot"):
            archive_flag = "-XX:SharedArchiveFile=" if level == "appcds" else "-XX:AOTCache="
            (flag,) = [f for f in cs.cell.flags if f.startswith(archive_flag)]
            assert Path(flag.split("=", 1)[1]).is_file()
            assert not any(f.startswith("@") for f in cs.cell.flags)
    assert any(level == "aot" for _, level in by_level) == any(j.feature >= 24 for j in demo_jdks())
    text = str(scenario_verdict(run.scenario, summary))
    assert text.startswith("Startup of hello") and "95% CI" in text and "appcds" in text
