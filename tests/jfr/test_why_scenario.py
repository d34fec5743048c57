"""`jvmlab demo why`: the spec it runs (JFR on, G1 vs ZGC on one JDK) is valid and planned."""

from __future__ import annotations

from jvmlab.collect.registry import CollectSettings
from jvmlab.plan.matrix import expand, find_baseline
from jvmlab.scenarios import scenario_names, scenario_runs
from jvmlab.spec.load import parse_spec


def test_why_is_listed_and_its_spec_turns_jfr_on() -> None:
    assert "why" in scenario_names()
    (run,) = scenario_runs("why", quick=True)
    spec = parse_spec(run.toml, "why")
    settings = CollectSettings.from_spec(spec.collect)
    assert settings.jfr and settings.jfr_settings == "default"
    assert set(spec.factors["gc"]) == {"G1", "ZGC"} and len(spec.jvms) == 1
    cells = expand(spec)
    assert len(cells) == 2 and dict(find_baseline(spec, cells).levels)["gc"] == "G1"
