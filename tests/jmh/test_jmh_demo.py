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
