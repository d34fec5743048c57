"""`jvmlab demo jmh`: its spec (JDK 17 / 25 x two collectors, jmh-samples) and its verdict."""

from __future__ import annotations

from jvmlab.plan.matrix import expand
from jvmlab.scenarios import scenario_runs
from jvmlab.scenarios.model import ScenarioSkipped
from jvmlab.spec.load import parse_spec


def test_the_demo_runs_samples_across_jdks_and_two_collectors() -> None:
    try:
        (run,) = scenario_runs("jmh", quick=True)
    except ScenarioSkipped as skipped:  # no Maven or no Maven Central: a clear reason
        assert "Maven" in str(skipped)
        return
    spec = parse_spec(run.toml)
    assert spec.workload.kind == "jmh" and spec.workload.jmh.endswith("jmh-samples-1.37.jar")
    assert spec.workload.benchmarks == ["JMHSample_01_HelloWorld", "JMHSample_27_Params.bench"]
    cells = expand(spec)
    assert {c.level("gc") for c in cells} == {"g1", "parallel"}
    assert len({c.jvm for c in cells}) == len(spec.jvms) >= 1
    assert run.metric == "jmh.JMHSample_01_HelloWorld.wellHelloThere"


def test_the_verdict_counts_benchmark_differences_after_holm(tmp_path) -> None:
    from pathlib import Path

    from jvmlab.importers.jmh import import_jmh
    from jvmlab.importers.store import store_import
    from jvmlab.report.jmh import jmh_table
    from jvmlab.report.summary import summarize
    from jvmlab.scenarios import scenario_verdict
    from jvmlab.store.sql import SqlStore

    data = Path(__file__).resolve().parents[1] / "importers" / "data"
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = store_import(store, import_jmh([data / "jmh-jdk17-serial.json", data / "jmh-jdk25-serial.json"]))
    summary = summarize(store, exp, "jmh.JMHSample_01_HelloWorld.wellHelloThere")
    text = scenario_verdict("jmh", summary)
    table = jmh_table(summary)
    real = sum(c.significant for row in table.rows for c in row.comparisons.values())
    assert text.startswith(f"{real} of 3 benchmark x cell comparisons against jdk17 -Xmx256m -XX:+UseSerialGC "
                           f"differ after the Holm correction")
