"""Adaptive stopping through the real runner and store, with a fake executor so that the
statistics are deterministic (the flag checks and workload preparation are real)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.analyze import analyze_metric, half_width_rel
from jvmlab.execute.fake import FakeExecutor
from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
from jvmlab.plan.prepare import prepare
from jvmlab.report.summary import summarize
from jvmlab.results import cell_values
from jvmlab.results.adaptive import store_precision_reached
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

pytestmark = pytest.mark.jvm


@pytest.fixture(autouse=True)
def _machine_not_watched(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake executor's numbers do not depend on the machine, so neither may the verdicts:
    with /proc/stat unread, no block is marked busy whatever else runs (a CI half-width of
    0.01526 against 0.015 was seen when a loaded machine marked some blocks busy)."""
    from jvmlab.execute import load

    monkeypatch.setattr(load, "machine_cpu_s", lambda: None)


class Quiet:
    def __init__(self) -> None:
        self.warnings = []
        self.added = 0

    def planned(self, *a): pass
    def starting(self, *a): pass
    def finished(self, *a): pass
    def warn(self, hazard): self.warnings.append(hazard)
    def extended(self, added, note): self.added += added


SPEC = '''
[workload]
builtin = "hello"
[jvms]
j = "{home}"
[factors.speed]
base = "-Dfake.mean_s=1.00 -Dfake.cv=0.05"
slower = "-Dfake.mean_s=1.03 -Dfake.cv=0.05"
[run]
invocations = 10
warmup = 1
seed = 11
'''


def _run(tmp_path: Path, home: Path, spec: str = SPEC, **options) -> tuple[SqlStore, int, Quiet]:
    text = spec.format(home=home)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    observer = Quiet()
    exp = run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "art", **options), observer,
                         executor=FakeExecutor(seed=3), precision_check=store_precision_reached)
    return store, exp, observer


def test_until_adds_blocks_until_every_ci_is_narrow_enough(tmp_path: Path, jdk17_home: Path) -> None:
    store, exp, observer = _run(tmp_path, jdk17_home, until_rel=0.015, max_invocations=2000)
    summary = summarize(store, exp)
    [comp] = summary.analysis.comparisons
    assert half_width_rel(comp) <= 0.015
    n = summary.cells[0].n
    assert 10 < n < 1000 and observer.added > 0
    assert comp.significant and comp.ci95[0] > 1.0, "a 3% difference at 5% CV must be resolved"
    # the rule stopped at the first block where it held: one block fewer was not enough
    invocations = [i for i in store.invocations(exp) if i.block < n - 1]
    cells = store.cells(exp)
    data = {c.name: cell_values([i for i in invocations if i.cell_id == c.id], "wall_s") for c in cells}
    earlier = analyze_metric(data, cells[0].name, "wall_s", seed=11)
    assert half_width_rel(earlier.comparisons[0]) > 0.015


def test_the_budget_stops_adaptive_runs_and_says_so(tmp_path: Path, jdk17_home: Path) -> None:
    store, exp, observer = _run(tmp_path, jdk17_home, until_rel=0.001, max_invocations=30)
    assert len(store.invocations(exp)) == 30
    assert any(h.kind == "precision-not-reached" for h in observer.warnings)
    assert any(h.kind == "precision-not-reached" for h in store.hazards(exp))


DEAD = '''
[workload]
builtin = "hello"
[jvms]
j = "{home}"
[factors.speed]
base = "-Dfake.mean_s=1.00 -Dfake.cv=0.05 {base_exit}"
slower = "-Dfake.mean_s=1.03 -Dfake.cv=0.05 -Dfake.exit=1"
[run]
invocations = 3
warmup = 0
seed = 11
max_consecutive_failures = 3
'''


def _run_text(tmp_path: Path, text: str, **options) -> tuple[SqlStore, int, Quiet]:
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    observer = Quiet()
    exp = run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "art", **options), observer,
                         executor=FakeExecutor(seed=3), precision_check=store_precision_reached)
    return store, exp, observer


def test_until_stops_when_no_cell_can_run(tmp_path: Path, jdk17_home: Path) -> None:
    """Every cell stopped by the failure budget: nothing can ever run, so --until must stop at
    once and say why (it used to spin forever; the time budget here is only a safety net)."""
    text = DEAD.format(home=jdk17_home, base_exit="-Dfake.exit=1")
    store, exp, observer = _run_text(tmp_path, text, until_rel=0.01, budget_s=20)
    [stop] = [h for h in observer.warnings if h.kind == "precision-not-reached"]
    assert "no comparison can reach" in stop.detail and "stopped by the failure budget" in stop.detail
    assert len(store.invocations(exp)) == 6


def test_until_stops_when_one_comparison_can_never_be_made(tmp_path: Path, jdk17_home: Path) -> None:
    """One dead cell of two: measuring the healthy one further cannot make the comparison."""
    text = DEAD.format(home=jdk17_home, base_exit="")
    store, exp, observer = _run_text(tmp_path, text, until_rel=0.01, max_invocations=300)
    [stop] = [h for h in observer.warnings if h.kind == "precision-not-reached"]
    assert "speed=slower" in stop.detail and "budget" not in stop.hint
    assert len(store.invocations(exp)) == 6


def test_until_stops_when_the_baseline_is_dead(tmp_path: Path, jdk17_home: Path) -> None:
    text = DEAD.format(home=jdk17_home, base_exit="-Dfake.exit=2").replace(
        "-Dfake.mean_s=1.03 -Dfake.cv=0.05 -Dfake.exit=1", "-Dfake.mean_s=1.03 -Dfake.cv=0.05")
    store, exp, observer = _run_text(tmp_path, text, until_rel=0.01, max_invocations=300)
    [stop] = [h for h in observer.warnings if h.kind == "precision-not-reached"]
    assert "the baseline j speed=base was stopped" in stop.detail
    assert len(store.invocations(exp)) == 6


def test_a_local_until_that_can_never_be_met_stops_at_the_cluster_cap(tmp_path: Path, jdk17_home: Path) -> None:
    """No budget and a target no CI reaches: the same hard cap as on a cluster, with its warning
    (on one machine there was none: the loop added blocks for ever)."""
    from jvmlab.execute.until import added_block_cap

    store, exp, observer = _run(tmp_path, jdk17_home, SPEC.replace("invocations = 10", "invocations = 2"),
                                until_rel=0.0001)
    cap = added_block_cap(2)
    assert {i.block for i in store.invocations(exp)} == set(range(2 + cap))
    [stop] = [h for h in observer.warnings if h.kind == "precision-not-reached"]
    assert f"{cap} blocks were added" in stop.detail and "95% CI" in stop.detail
    assert [h.detail for h in store.hazards(exp) if h.kind == "precision-not-reached"] == [stop.detail]
