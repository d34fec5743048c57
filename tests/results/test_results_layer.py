"""The results layer: one load per experiment, one comparison entry point, typed verdicts,
a per-experiment metric registry, and renderers that never see a store.

Statistics are made deterministic with seeded data and, where the verdict logic alone is
under test, with a fake ``statistics`` function returning fixed comparisons (no mocks)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest

import jvmlab.report
from jvmlab import metrics
from jvmlab.analyze import CellData, Comparison, MetricAnalysis
from jvmlab.analyze.model import DriftResult
from jvmlab.model import hazards as hz
from jvmlab.model.hazards import MachineLoad
from jvmlab.model.stored import StoredHazard
from jvmlab.report.summary import summarize
from jvmlab.report.synthetic import SyntheticSpec, generate
from jvmlab.results import (
    ALL_CELLS,
    BusyBlock,
    VerdictKind,
    analyze_experiment,
    ci_excludes_one,
    compare_cells,
    load_experiment,
)
from jvmlab.results.load import busy_blocks
from jvmlab.store.sql import SqlStore


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> tuple[SqlStore, int]:
    store = SqlStore(f"sqlite:///{tmp_path_factory.mktemp('results') / 'lab.db'}")
    exp_id = generate(store, SyntheticSpec(invocations=6, samples=10, pauses=5, workload_metric="records_per_s"))
    return store, exp_id


def _comparison(cell: str, ratio: float | None, ci: tuple[float, float] | None, significant: bool,
                ci_kind: str | None = "bca") -> Comparison:
    return Comparison(cell=cell, baseline="base", metric="wall_s", ratio=ratio, ci95=ci,
                      rel_diff_pct=None if ratio is None else (ratio - 1) * 100, p_value=0.01,
                      p_adjusted=0.02, significant=significant, n_cell=10, n_baseline=10, paired=True,
                      ci_kind=ci_kind)


def _fake_statistics(comparisons: tuple[Comparison, ...], drift: dict[str, DriftResult] | None = None):
    """A stand-in for analyze_metric that returns fixed comparisons (and drift)."""
    def statistics(values, baseline, metric, factors=None, *, seed=0, positive=None):  # type: ignore[no-untyped-def]
        return MetricAnalysis(metric=metric, baseline=baseline, alpha=0.05, correction="holm", stats={},
                              comparisons=comparisons, effects=(), drift=drift or {}, outliers={}, notes=())
    return statistics


def test_each_comparison_gets_one_verdict_kind_from_numbers() -> None:
    comps = (_comparison("faster", 0.8, (0.75, 0.85), True), _comparison("slower", 1.3, (1.2, 1.4), True),
             _comparison("same", 1.01, (0.97, 1.05), False), _comparison("unsure", 1.1, (1.02, 1.2), False),
             _comparison("empty", None, None, False), _comparison("small", 0.9, (0.85, 0.95), True, "t-small-n"))
    result = compare_cells({}, "base", "wall_s", lower_is_better=True, statistics=_fake_statistics(comps))
    kinds = {c.cell: c.kind for c in result.compared}
    assert kinds == {"faster": VerdictKind.BETTER, "slower": VerdictKind.WORSE,
                     "same": VerdictKind.NO_CLEAR_DIFFERENCE, "unsure": VerdictKind.INCONCLUSIVE,
                     "empty": VerdictKind.NOT_ENOUGH_DATA, "small": VerdictKind.BETTER}
    assert [c.cell for c in result.compared if c.small_sample] == ["small"]
    # Higher is better (throughput): the same ratios read the other way round.
    flipped = compare_cells({}, "base", "rate", lower_is_better=False, statistics=_fake_statistics(comps))
    assert flipped.of("faster").kind is VerdictKind.WORSE and flipped.of("slower").kind is VerdictKind.BETTER


def test_a_busy_machine_or_drift_withholds_only_what_it_could_have_produced() -> None:
    """Issue 31 item 4: no blanket veto. Busy blocks and drift give a margin (the most they could
    have moved the ratio); a significant comparison is called when its CI clears it."""
    comps = (_comparison("a", 1.3, (1.2, 1.4), True), _comparison("b", 1.01, (0.97, 1.05), False),
             _comparison("huge", 9.4, (6.9, 12.6), True))
    busy = tuple(BusyBlock(share, False, f"other processes used {share}% of the CPU during block {k + 1}", "", k)
                 for k, share in enumerate((35, 80, 50)))
    result = compare_cells({}, "base", "wall_s", lower_is_better=True, busy=busy, n_blocks=10,
                           statistics=_fake_statistics(comps))
    a = result.of("a")
    # 1/(1-0.35), 1/(1-0.8), 1/(1-0.5) over 10 blocks: 1 + (0.54 + 4 + 1) / 10 = 1.55 > 1.2
    assert a.kind is VerdictKind.DISTURBED and a.disturbance.worst_share_pct == 80
    assert a.disturbance.margin == pytest.approx(1 + (1 / 0.65 - 1 + 4 + 1) / 10)
    assert a.disturbance.busy_blocks == 3 and a.disturbance.n_blocks == 10 and not a.disturbance.called
    assert result.of("b").kind is VerdictKind.NO_CLEAR_DIFFERENCE  # nothing was called: nothing to withdraw
    assert result.of("huge").kind is VerdictKind.WORSE and result.of("huge").disturbance.called
    # Busy during every block at 40%: the 9.4x effect is far beyond the 1.67x the load could make.
    every = tuple(BusyBlock(40, False, f"other processes used 40% of the CPU during block {k + 1}", "", k)
                  for k in range(6))
    loaded = compare_cells({}, "base", "wall_s", lower_is_better=True, busy=every, n_blocks=6,
                           statistics=_fake_statistics(comps))
    assert loaded.of("huge").kind is VerdictKind.WORSE and loaded.of("huge").disturbance.margin == pytest.approx(5 / 3)
    assert loaded.of("a").kind is VerdictKind.DISTURBED
    warmup = tuple(BusyBlock(90, True, f"warm-up {k}", "") for k in range(5))
    assert compare_cells({}, "base", "wall_s", lower_is_better=True, busy=warmup, n_blocks=10,
                         statistics=_fake_statistics(comps)).of("a").kind is VerdictKind.WORSE
    # The baseline drifts 2% per block over 10 blocks: at most 1 + 0.02 + 0.02 * 9 / 2 = 1.11; 1.2 clears it.
    drift = {"base": DriftResult("base", 10, 0.9, 0.001, 0.02)}
    drifted = compare_cells({}, "base", "wall_s", lower_is_better=True, statistics=_fake_statistics(comps, drift))
    assert drifted.of("a").kind is VerdictKind.WORSE and drifted.of("a").disturbance.drift.cell == "base"
    assert drifted.of("a").disturbance.margin == pytest.approx(1.11)
    steep = {"base": DriftResult("base", 10, 0.9, 0.001, 0.1)}  # 10% per block could make the 30%
    assert compare_cells({}, "base", "wall_s", lower_is_better=True,
                         statistics=_fake_statistics(comps, steep)).of("a").kind is VerdictKind.DISTURBED


def _cells(rng: np.random.Generator, effect: float, n: int = 15) -> dict[str, CellData]:
    blocks = np.arange(n)
    base = rng.lognormal(np.log(2.0), 0.03, n)
    return {"base": CellData.of(base, blocks),
            "other": CellData.of(rng.lognormal(np.log(2.0 * effect), 0.03, n), blocks)}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_seeded_simulation_calls_a_real_20_percent_slowdown_and_not_an_a_a_pair(seed: int) -> None:
    """Real statistics on seeded data: a 20% slowdown with 3% noise is called worse; two
    draws of the same distribution are not called a difference."""
    rng = np.random.default_rng(seed)
    slower = compare_cells(_cells(rng, 1.2), "base", "wall_s", lower_is_better=True, seed=seed)
    (c,) = slower.compared
    assert c.kind is VerdictKind.WORSE and ci_excludes_one(c.comparison.ci95)
    assert c.comparison.ci95[0] < 1.2 < c.comparison.ci95[1]
    same = compare_cells(_cells(rng, 1.0), "base", "wall_s", lower_is_better=True, seed=seed)
    assert same.compared[0].kind in (VerdictKind.NO_CLEAR_DIFFERENCE, VerdictKind.INCONCLUSIVE)


def test_ci_excludes_one_is_the_one_rule() -> None:
    assert ci_excludes_one((1.01, 1.2)) and ci_excludes_one((0.8, 0.99))
    assert not ci_excludes_one((0.99, 1.01)) and not ci_excludes_one((1.0, 1.1)) and not ci_excludes_one(None)


def test_busy_rows_are_read_from_their_numbers_never_their_words() -> None:
    rows = [StoredHazard(hz.BUSY_MACHINE, "words that say 10%", "hint", None, None, MachineLoad(2, 0.4, 0.05, 0.3)),
            StoredHazard(hz.BUSY_MACHINE, "other processes used 90% of the CPU during block 3", "", None, None,
                         MachineLoad(-1, 0.9)),
            StoredHazard(hz.DRIFT, "unrelated", "", None, None)]
    decoded = busy_blocks(rows)
    assert [(b.share_pct, b.warmup, b.block, b.steal_pct, b.run_delay_s) for b in decoded] == [
        (40, False, 2, 5, 0.3), (90, True, None, None, None)]


def test_load_once_holds_everything_the_renderers_read(lab: tuple[SqlStore, int]) -> None:
    store, exp_id = lab
    results = load_experiment(store, exp_id)
    assert len(results.cells) == 4 and results.baseline == results.cells[0].name
    assert sum(len(v) for v in results.ok_by_cell.values()) == 4 * 6
    assert len(results.invocations) == 4 * 6 + 1  # the failed one is kept, with its reason
    assert results.progress and not results.timelines  # timelines only when asked
    assert [b.share_pct for b in results.busy_blocks] == [40]
    assert results.units["workload.records_per_s"] == "records/s"
    light = load_experiment(store, exp_id, documents=False)
    assert not light.progress and light.archives == ()


def test_the_registry_is_per_experiment_and_nothing_global_changes(lab: tuple[SqlStore, int]) -> None:
    store, exp_id = lab
    name = "workload.records_per_s"
    before = dict(metrics.REGISTRY)
    summary = summarize(store, exp_id)
    assert before == metrics.REGISTRY and name not in metrics.REGISTRY
    m = summary.metrics.get(name)
    assert m.unit == "records/s" and not m.lower_is_better
    assert name in summary.metrics and name not in metrics.DEFAULT
    other = metrics.DEFAULT.extended({name: "ms"})
    assert other.get(name).unit == "ms" and summary.metrics.get(name).unit == "records/s"
    assert metrics.DEFAULT.extended({}) is metrics.DEFAULT


def test_summary_hazards_and_verdicts_come_from_the_typed_comparisons(lab: tuple[SqlStore, int]) -> None:
    store, exp_id = lab
    done = analyze_experiment(load_experiment(store, exp_id))
    summary = summarize(store, exp_id)
    busy = [h for h in summary.hazards if h.kind == hz.BUSY_MACHINE]
    assert len(busy) == 1 and "up to 40% of the CPU" in busy[0].detail
    assert set(summary.verdicts) == {c.cell for c in done.comparison.compared}
    for c in done.comparison.compared:  # same seed, same numbers: a verdict's words follow its kind
        text = summary.verdicts[c.cell]
        assert ("no clear difference" in text) == (c.kind is VerdictKind.NO_CLEAR_DIFFERENCE)
        assert ALL_CELLS not in text


def test_report_renderers_take_results_never_a_store() -> None:
    """Only the generator of synthetic experiments and the compatibility `summarize` (load ->
    compare -> render in one call) may name the store in `report/`."""
    folder = Path(jvmlab.report.__file__).parent
    naming = set()
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "jvmlab.store.sql":
                naming.add(path.stem)
    assert naming <= {"synthetic", "summary"}, naming
    from jvmlab.report import export, html, latency, sections

    for fn in (html.render_html, html.write_html, export.export_text, sections.report_context,
               latency.latency_figures):
        assert "store" not in inspect.signature(fn).parameters, fn.__name__


def test_secondary_metrics_get_intervals_without_a_test() -> None:
    """A CI-only comparison carries no p-value, and "clear" is exactly "the CI excludes 1"."""
    from jvmlab.analyze.model import clean
    from jvmlab.results import ci_only_comparisons

    rng = np.random.default_rng(7)
    cells = {k: clean(v) for k, v in _cells(rng, 1.3).items()}
    (c,) = ci_only_comparisons(cells, "base", "wall_s", seed=7)
    assert c.p_value is None and c.p_adjusted is None and c.paired
    assert c.significant == ci_excludes_one(c.ci95) and c.significant
    assert ci_only_comparisons(cells, None, "wall_s", seed=7) == ()


def test_a_family_is_corrected_together() -> None:
    from jvmlab.results import compare_family

    rng = np.random.default_rng(11)
    fam = []
    for k, effect in enumerate((1.0, 1.02, 1.3)):
        cells = _cells(rng, effect)
        fam.append((f"c{k}", cells["other"], "base", cells["base"], "wall_s"))
    out = compare_family(fam, seed=11, what="test")
    assert [c.cell for c in out] == ["c0", "c1", "c2"]
    assert all(c.p_adjusted is not None and c.p_adjusted >= c.p_value for c in out)
    assert out[2].significant and not out[0].significant
