"""Issue 31 item 4 in words: the demo's two withheld verdicts are now called, saying how, and a
withheld one says by how much the disturbance could have moved it."""

from __future__ import annotations

from jvmlab import metrics as registry
from jvmlab.analyze import Comparison, MetricAnalysis
from jvmlab.analyze.model import DriftResult
from jvmlab.report.verdicts import disturbance_note, disturbance_text, verdict
from jvmlab.results import BusyBlock, VerdictKind, compare_cells


def _comparison(cell: str, ratio: float, ci: tuple[float, float]) -> Comparison:
    return Comparison(cell=cell, baseline="base", metric="wall_s", ratio=ratio, ci95=ci,
                      rel_diff_pct=(ratio - 1) * 100, p_value=0.001, p_adjusted=0.002, significant=True,
                      n_cell=6, n_baseline=6, paired=True, ci_kind="test-inversion")


def _stats(comps: tuple[Comparison, ...], drift: dict[str, DriftResult] | None = None):  # type: ignore[no-untyped-def]
    def statistics(values, baseline, metric, factors=None, *, seed=0, positive=None):  # type: ignore[no-untyped-def]
        return MetricAnalysis(metric=metric, baseline=baseline, alpha=0.05, correction="holm", stats={},
                              comparisons=comps, effects=(), drift=drift or {}, outliers={}, notes=())
    return statistics


def _said(result, cell: str) -> str:  # type: ignore[no-untyped-def]
    c = result.of(cell)
    return verdict(c.comparison, registry.get("wall_s"), interference=disturbance_text(c.disturbance),
                   note=disturbance_note(c.disturbance))


def test_a_ninefold_effect_on_a_busy_machine_is_called_and_says_how() -> None:
    busy = tuple(BusyBlock(40, False, f"other processes used 40% of the CPU during block {k + 1}", "", k)
                 for k in range(6))
    comps = (_comparison("pretouch=on", 9.4, (6.9, 12.6)), _comparison("small", 1.05, (1.02, 1.08)))
    result = compare_cells({}, "base", "wall_s", lower_is_better=True, busy=busy, n_blocks=6,
                           statistics=_stats(comps))
    text = _said(result, "pretouch=on")
    assert text.startswith("pretouch=on is 9.4x slower than base (95% CI 6.9-12.6x)")
    assert ("[called although other processes were busy during 6 of 6 blocks, up to 40% of the CPU: "
            "the 95% CI clears the factor up to 1.67x that could produce]") in text and "not called" not in text
    assert "±" not in text
    small = _said(result, "small")
    assert result.of("small").kind is VerdictKind.DISTURBED
    assert "but not called a difference: other processes were busy during 6 of 6 blocks, up to 40% of the CPU, " \
           "which could change the ratio by a factor up to 1.67x, and the 95% CI does not clear that" in small


def test_a_small_drift_does_not_veto_a_large_effect() -> None:
    drift = {"cds=off": DriftResult("cds=off", 10, -0.9, 0.001, -0.007)}
    comps = (_comparison("cds=off", 1.96, (1.659, 2.295)),)
    result = compare_cells({}, "base", "wall_s", lower_is_better=True, statistics=_stats(comps, drift))
    assert result.of("cds=off").kind is VerdictKind.WORSE
    text = _said(result, "cds=off")
    assert text.startswith("cds=off is 96.0% slower than base")
    margin = 1 + 0.007 + 0.007 * (10 - 1) / 2  # one block's drift + half the run's of the ratio
    assert ("[called although cds=off drifted across blocks (-0.70% per block, Spearman p=0.001): the 95% CI "
            f"clears the factor up to {margin:.3g}x that could produce]") in text


def test_the_json_summary_carries_the_verdict_kind_and_the_disturbance(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from jvmlab.report.summary import summarize, summary_json
    from jvmlab.report.synthetic import SyntheticSpec, generate
    from jvmlab.store.sql import SqlStore

    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = generate(store, SyntheticSpec(samples=5, pauses=3))  # stores a busy block (block 1, 40%)
    doc = summary_json(summarize(store, exp))
    assert doc["comparisons"] and all(c["verdict_kind"] in {k.value for k in VerdictKind} for c in doc["comparisons"])
    disturbed = [c["disturbance"] for c in doc["comparisons"] if c["disturbance"] is not None]
    assert disturbed and all(d["busy_blocks"] == 1 and d["margin"] > 1 for d in disturbed)


def test_an_unsignificant_comparison_is_not_said_to_be_called() -> None:
    busy = tuple(BusyBlock(10, False, f"other processes used 10% of the CPU during block {k + 1}", "", k)
                 for k in range(6))
    unsure = Comparison(cell="u", baseline="base", metric="wall_s", ratio=1.5, ci95=(1.3, 1.7), rel_diff_pct=50.0,
                        p_value=0.06, p_adjusted=0.06, significant=False, n_cell=6, n_baseline=6, paired=True)
    result = compare_cells({}, "base", "wall_s", lower_is_better=True, busy=busy, n_blocks=6,
                           statistics=_stats((unsure,)))
    c = result.of("u")
    assert c.kind is VerdictKind.INCONCLUSIVE and c.disturbance is not None and c.disturbance.called
    text = verdict(c.comparison, registry.get("wall_s"), interference=disturbance_text(c.disturbance),
                   note=disturbance_note(c.disturbance, c.comparison.significant))
    assert "inconclusive" in text and "called" not in text
