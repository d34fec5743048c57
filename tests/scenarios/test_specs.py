"""Every scenario's specs parse and expand for the JDKs on this machine; verdicts read Summaries."""

from __future__ import annotations

import pytest

from jvmlab.errors import UserError
from jvmlab.plan.matrix import expand
from jvmlab.scenarios import SCENARIOS, demo_spec, scenario_names, scenario_runs, scenario_specs
from jvmlab.scenarios.jdks import demo_jdks
from jvmlab.scenarios.model import ScenarioSkipped
from jvmlab.spec.load import parse_spec

CLASSIC = ["default", "pretouch", "largepages", "gc", "cds", "ramdisk", "all"]


@pytest.mark.parametrize("quick", [True, False])
@pytest.mark.parametrize("name", CLASSIC)
def test_scenario_specs_parse_and_expand(name: str, quick: bool) -> None:
    specs = scenario_specs(name, quick)
    assert specs
    for title, text in specs:
        spec = parse_spec(text, f"{name}: {title}")
        cells = expand(spec)
        assert len(cells) >= 2, title
        assert spec.name and spec.name.startswith("demo"), title


def test_default_scenario_is_unchanged() -> None:
    assert "default" in scenario_names()
    text = demo_spec("default", quick=True)
    spec = parse_spec(text)
    assert spec.workload.builtin == "pretouch" and spec.run.invocations == 3
    assert [c.name.split(" ", 1)[1] for c in expand(spec)][:2] == ["pretouch=off", "pretouch=on"]


def test_unknown_scenario_suggests_a_name() -> None:
    with pytest.raises(UserError, match="did you mean 'largepages'"):
        scenario_runs("largepage")


def test_collectors_a_jdk_lacks_are_excluded() -> None:
    jdks = demo_jdks()
    (run,) = scenario_runs("gc", quick=False)
    cells = expand(parse_spec(run.toml))
    for jdk in jdks:
        mine = {c.level("gc") for c in cells if c.jvm == f"jdk{jdk.feature}"}
        assert mine == {gc for gc in ("G1", "Parallel", "ZGC", "Shenandoah") if gc in jdk.gcs}


def test_cds_offers_the_aot_cache_only_on_jdk24_and_later() -> None:
    for _, text in scenario_specs("cds", quick=True):
        for cell in expand(parse_spec(text)):
            if cell.level("cds") == "aot":
                assert int(cell.jvm.removeprefix("jdk")) >= 24
            if cell.level("cds") in ("appcds", "aot"):  # a typed preparation, made by the environment's setup
                assert cell.prepare == ({"appcds": "cds-archive", "aot": "aot-cache"}[cell.level("cds")],)
                assert not any(f.startswith("@") for f in cell.flags)


def test_all_runs_the_five_classics() -> None:
    scenarios = {run.scenario for run in scenario_runs("all", quick=True)}
    assert scenarios == {"pretouch", "largepages", "gc", "cds", "ramdisk"}


def test_minecraft_spec_or_a_clear_skip() -> None:
    try:
        runs = scenario_runs("minecraft", quick=True)
    except ScenarioSkipped as skipped:
        assert "needs" in str(skipped) or "Maven" in str(skipped)
        return
    (run,) = runs
    spec = parse_spec(run.toml)
    assert spec.workload.main == "JvmlabMinestom" and spec.workload.progress
    assert {c.level("gc") for c in expand(spec)} >= {"G1", "Parallel"}


def test_every_listed_scenario_has_runs_or_is_minecraft() -> None:
    # jmh, why: tested in tests/jmh, tests/jfr
    assert set(CLASSIC) | {"minecraft", "size", "jmh", "why", "server", "tune"} == set(SCENARIOS)


def test_cheap_scenarios_size_themselves_with_until_in_full_mode() -> None:
    """Full cds and ramdisk add blocks until every CI is within 2% (bounded); quick modes
    and explicit invocation counts keep a fixed size."""
    from jvmlab.plan.power import power_check

    for name in ("cds", "ramdisk"):
        for run in scenario_runs(name, quick=False):
            assert run.until_rel == 0.02 and run.max_blocks is not None
            assert run.max_invocations(4) == 4 * run.max_blocks
        for run in scenario_runs(name, quick=True):
            assert run.until_rel is None and run.max_invocations(4) is None
            cells = expand(parse_spec(run.toml))
            check = power_check(len(cells), parse_spec(run.toml).run.invocations)
            assert check.reachable, (name, run.title, check.message())  # quick, but not hopeless


def test_demo_list_describes_the_tune_workload_that_runs() -> None:
    import re

    from jvmlab.scenarios import scenario_names
    from jvmlab.scenarios.tune import tune_spec

    listed = scenario_names()["tune"]
    for quick in (True, False):
        spec = tune_spec(quick)
        workload = re.search(r'builtin = "(\w+)"', spec)
        baseline = re.search(r'baseline = "([^"]+)"', spec)
        assert workload and workload.group(1) in listed
        assert baseline and baseline.group(1) in listed
