"""Every built-in demo can conclude: its design lets the report's Holm-corrected comparisons
against the one baseline reach significance (issue 31 item 5: `demo server --quick`, `demo why
--quick`, `demo jmh --quick` and full `demo all` warned that their blocks could not).

Pure: the specs are made for the JDKs found here and expanded; nothing runs and nothing is
timed. The check is jvmlab.plan.power's own (`plan_power(...).warn`, what `run` and `demo`
print before any JVM starts), with two stricter conditions a design with room needs.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from jvmlab.analyze.reachable import reachable, smallest_adjusted, smallest_p_value
from jvmlab.plan.matrix import expand
from jvmlab.plan.power import ALPHA, PowerCheck, plan_power, power_check
from jvmlab.scenarios import SCENARIOS, scenario_runs
from jvmlab.scenarios.model import ScenarioRun, ScenarioSkipped
from jvmlab.spec.load import parse_spec

# `size` and `tune` are drivers (the minimum-heap bisection, the tuner's races): the blocks
# they run are chosen as they go, not a fixed matrix against one baseline.
DRIVERS = {"size", "tune"}
# Monte-Carlo p-values scatter around the floor (5 unpaired blocks, 6 comparisons: the most
# extreme data gives 6 x p from 0.040 to 0.057), so a design must reach well below alpha.
ROOM = 0.6


def _check(run: ScenarioRun) -> PowerCheck:
    """plan_power on the run's spec, with the --until and budget `demo` runs it with
    (cli/cmd_run.py); the plan's cells are the expanded matrix."""
    spec = parse_spec(run.toml, run.title)
    cells = expand(spec)
    plan = SimpleNamespace(cells=cells, spec=spec)
    return plan_power(plan, until=run.until_rel is not None,  # type: ignore[arg-type]
                      max_invocations=run.max_invocations(len(cells)))


def _runs(name: str, quick: bool) -> list[ScenarioRun]:
    try:
        return scenario_runs(name, quick)
    except ScenarioSkipped as skipped:  # jmh, minecraft need Maven and what it fetches
        pytest.skip(f"{name}: {skipped}")


@pytest.mark.parametrize("quick", [True, False], ids=["quick", "full"])
@pytest.mark.parametrize("name", sorted(set(SCENARIOS) - DRIVERS))
def test_every_demo_can_reach_significance(name: str, quick: bool) -> None:
    for run in _runs(name, quick):
        check = _check(run)
        assert not check.warn, (name, run.title, check.message())
        # Reachable as planned (not only after --until adds blocks), with room to spare.
        assert check.reachable and check.smallest_adjusted_p <= ROOM * ALPHA, (name, run.title, check)
        if check.until and check.max_blocks is not None:  # every count --until may stop at
            gaps = [b for b in range(check.blocks, check.max_blocks + 1) if not reachable(b, check.comparisons)]
            assert not gaps, (name, run.title, gaps)


def test_the_demos_the_issue_named_no_longer_warn() -> None:
    """The designs that printed "cannot reach significance" (issue 31 item 5), by name."""
    named = {("server", True), ("why", True), ("jmh", True), ("all", False), ("default", True)}
    for name, quick in named:
        for run in _runs(name, quick):
            assert not _check(run).warn, (name, quick, run.title)


def test_the_check_catches_the_old_designs() -> None:
    """The test can fail: the old full pretouch (48 cells, 6 blocks) and the old quick demos
    (server: 6 cells at 2 blocks; why: 2 cells at 2) warn."""
    for cells, blocks in ((48, 6), (6, 2), (2, 2), (4, 3)):
        assert power_check(cells, blocks).warn
    assert smallest_adjusted(smallest_p_value(6), 47) > ALPHA


def test_demo_all_full_is_the_five_classics_each_sized_down() -> None:
    """`demo all` runs each classic once (cds and ramdisk: two workloads), --until bounded."""
    runs = scenario_runs("all", quick=False)
    assert [r.scenario for r in runs] == ["pretouch", "largepages", "gc", "cds", "cds", "ramdisk", "ramdisk"]
    for run in runs:
        cells = len(expand(parse_spec(run.toml)))
        assert cells <= 12, (run.scenario, run.title, cells)
        if run.until_rel is not None:
            assert run.max_blocks is not None and run.max_blocks <= 16


def test_largepages_full_with_hugetlbfs_pages_has_room_too() -> None:
    """The hugetlbfs level joins full mode only where pages are reserved (6 cells on two JDKs)."""
    from jvmlab.scenarios import largepages
    from jvmlab.scenarios.jdks import demo_jdks

    for hugetlbfs in (False, True):
        for run in largepages.runs(demo_jdks(), quick=False, hugetlbfs=hugetlbfs):
            check = _check(run)
            assert not check.warn and check.smallest_adjusted_p <= ROOM * ALPHA, (hugetlbfs, check)


@pytest.mark.parametrize("quick", [True, False], ids=["quick", "full"])
def test_the_jmh_verdict_family_can_be_significant(quick: bool) -> None:
    """The jmh verdict corrects every benchmark row x every cell but the baseline together
    (report/jmh.py), a larger family than the report's cells against the baseline."""
    from jvmlab.scenarios import jmh

    for run in _runs("jmh", quick):
        spec = parse_spec(run.toml)
        family = jmh.table_rows() * (len(expand(spec)) - 1)
        assert jmh.table_rows() == 3  # HelloWorld, Params.bench at certainty 0 and 16
        floor = smallest_adjusted(smallest_p_value(spec.run.invocations), family)
        assert floor <= ROOM * ALPHA, (quick, spec.run.invocations, floor)
