"""Small samples: the seeded coverage simulation that sets the thresholds, and the marks.

Every figure printed here is deterministic for the seeds; docs/statistics.md quotes them.
"""

from __future__ import annotations

import numpy as np
import pytest

from jvmlab import metrics as registry
from jvmlab.analyze import CellData, analyze_metric
from jvmlab.analyze import smallsample as small
from jvmlab.analyze.bootstrap import mean_ci
from jvmlab.analyze.compare import ratio_unpaired
from jvmlab.analyze.describe import describe
from jvmlab.analyze.model import clean
from jvmlab.report.trust import small_sample_hazards
from jvmlab.report.verdicts import disturbance_text, verdict
from jvmlab.results.compare import disturbances
from jvmlab.results.load import busy_blocks

SIGMA = 0.35  # log-normal: right-skewed like JVM timings
REPS = 600


def _coverage(interval, n: int, seed: int, reps: int = REPS) -> float:
    rng = np.random.default_rng(seed)
    true = float(np.exp(SIGMA**2 / 2))
    hits = 0
    for _ in range(reps):
        ci = interval(rng.lognormal(0.0, SIGMA, n), rng)
        hits += ci is not None and ci[0] <= true <= ci[1]
    return hits / reps


def _bca(x: np.ndarray, rng: np.random.Generator):
    return mean_ci(x, rng, 1000)


@pytest.mark.slow
def test_bootstrap_mean_interval_undercovers_below_the_threshold() -> None:
    """The threshold MEAN_BCA_FROM_N is where the simulation says it is: the smallest n from
    which the BCa (expanded) interval covers at least 90% (2,000 samples per n near the
    threshold: a coverage's sampling sd is then 0.6 points; 600 far from it)."""
    cov = {n: _coverage(_bca, n, 100 + n, 2000 if 5 <= n <= 8 else REPS) for n in range(2, 11)}
    print("BCa mean coverage by n:", {n: round(c, 3) for n, c in cov.items()})
    assert cov[2] < 0.6 and cov[3] < 0.8  # near the data's range
    found = min(n for n in cov if all(cov[m] >= small.COVERAGE_FLOOR for m in range(n, 11)))
    assert found == small.MEAN_BCA_FROM_N


def test_t_interval_holds_where_the_bootstrap_does_not() -> None:
    cov = {n: _coverage(lambda x, _rng: small.t_interval(x), n, 200 + n) for n in range(2, small.MEAN_BCA_FROM_N)}
    print("t mean coverage by n:", cov)
    assert all(c >= 0.92 for c in cov.values())


def test_ratio_threshold_and_its_t_interval() -> None:
    """Unpaired ratio: BCa under-covers at n = 2 (about 66%); the log-ratio Welch t interval
    that replaces it below RATIO_BCA_FROM_N covers at least 93%; BCa from the threshold on."""
    def coverage(interval, n: int, seed: int) -> float:
        rng = np.random.default_rng(seed)
        hits = 0
        for _ in range(REPS):
            ci = interval(rng.lognormal(0, SIGMA, n), rng.lognormal(0, SIGMA, n), rng)
            hits += ci is not None and ci[0] <= 1.0 <= ci[1]
        return hits / REPS

    from jvmlab.analyze.bootstrap import acceleration, bca_interval, expanded_level, jackknife_means, resample_means

    def raw_bca(a, b, rng):  # the bootstrap alone, without the small-n switch
        boot = resample_means(a, rng, 1000) / resample_means(b, rng, 1000)
        acc = acceleration([jackknife_means(a) / b.mean(), a.mean() / jackknife_means(b)])
        return bca_interval(a.mean() / b.mean(), boot, acc, expanded_level(a.size))

    low = coverage(raw_bca, 2, 7)
    at = coverage(raw_bca, small.RATIO_BCA_FROM_N, 8)
    t2 = coverage(lambda a, b, _r: small.ratio_t_interval(a, b), 2, 9)
    t3 = coverage(lambda a, b, _r: small.ratio_t_interval(a, b), 3, 10)
    print(f"ratio: BCa n=2 {low:.3f}, BCa n={small.RATIO_BCA_FROM_N} {at:.3f}, t n=2 {t2:.3f}, t n=3 {t3:.3f}")
    assert low < 0.8 and at >= 0.9 and t2 >= 0.93 and t3 >= 0.93
    # and ratio_unpaired switches by itself
    a, b = np.array([1.0, 1.2]), np.array([1.1, 0.9])
    assert ratio_unpaired(a, b, np.random.default_rng(0))[1] == small.ratio_t_interval(a, b)


def test_median_order_interval_exact_coverage() -> None:
    x = np.arange(1.0, 11.0)
    assert small.median_order_interval(x[:4]) == (None, None)  # range covers 87.5% < 90%
    assert small.median_order_interval(x[:5]) == ((1.0, 5.0), 0.9375)
    assert small.median_order_interval(x[:6]) == ((1.0, 6.0), 0.96875)
    (lo, hi), cov = small.median_order_interval(x)
    assert (lo, hi) == (2.0, 9.0) and cov == pytest.approx(1 - 2 * 11 / 1024)


def test_two_values_no_longer_print_their_range_as_a_ci() -> None:
    """The gc quick demo printed "173-245", its two values, as the 95% CI; now the t interval
    (t_{.975,1} = 12.71): 209 +- 12.71 * 50.9 / sqrt(2), marked t-small-n."""
    st = describe("gc", clean(CellData.of([173.0, 245.0])), np.random.default_rng(0))
    assert st.mean_ci_kind == small.T_SMALL_N
    lo, hi = st.mean_ci95
    assert lo == pytest.approx(209 - 12.7062 * 36.0, rel=1e-4) and hi == pytest.approx(209 + 12.7062 * 36.0, rel=1e-4)
    many = describe("gc", clean(CellData.of(np.linspace(1, 2, 12))), np.random.default_rng(0))
    assert many.mean_ci_kind == small.BCA and many.median_ci_kind == small.PERCENTILE


def test_small_sample_comparisons_are_marked_and_warned() -> None:
    analysis = analyze_metric({"a": [1.0, 1.1, 1.05], "b": [1.3, 1.2, 1.25]}, "a", "wall_s", seed=1)
    [comp] = analysis.comparisons
    assert comp.ci_kind == small.T_SMALL_N
    [hazard] = small_sample_hazards(analysis)
    assert hazard.kind == "small-sample" and "only 3 invocation(s)" in hazard.detail
    text = verdict(comp, registry.get("wall_s"))
    assert text.endswith("[small sample, n=3: t-based interval]")


def test_drift_turns_a_significant_result_into_not_called() -> None:
    """A cell whose values climb block after block, against a flat baseline: the test
    calls it significant, the verdict does not call it a difference and says why."""
    blocks = np.arange(15)
    base = CellData.of(np.full(15, 1.0) + 0.001 * np.sin(blocks), blocks)
    cell = CellData.of(1.0 + 0.01 * blocks, blocks)
    analysis = analyze_metric({"base": base, "x": cell}, "base", "wall_s", seed=2)
    [comp] = analysis.comparisons
    assert comp.significant
    disturbed = interference(analysis, [], 15)
    assert "x drifted across blocks" in disturbed["x"]
    text = verdict(comp, registry.get("wall_s"), interference=disturbed["x"])
    assert "not called a difference: x drifted across blocks" in text
    assert "could change the ratio by a factor up to" in disturbed["x"]
    from jvmlab.model.hazards import MachineLoad

    busy = [type("H", (), {"kind": "busy-machine", "detail": f"other processes used 80% of the CPU during block {k}",
                           "load": MachineLoad(k - 1, 0.8)})()
            for k in range(1, 6)]
    said = interference(analysis, busy, 15)["x"]
    assert "other processes were busy during 5 of 15 blocks, up to 80% of the CPU" in said
    warmup = type("H", (), {"kind": "busy-machine", "detail": "other processes used 90% of the CPU during the warm-up",
                            "load": MachineLoad(-1, 0.9)})()
    assert "busy" not in interference(analysis, [warmup], 15)["x"]  # warm-up blocks do not count


def interference(analysis, stored_hazards, n_blocks):  # type: ignore[no-untyped-def]
    """cell -> why its comparison is withheld, as the report words it."""
    found = disturbances(analysis, busy_blocks(stored_hazards), n_blocks)
    return {cell: text for cell, d in found.items() if (text := disturbance_text(d))}


def test_factorial_effects_from_few_invocations_are_marked() -> None:
    from jvmlab.report.verdicts import effect_verdict

    rng = np.random.default_rng(5)
    cells = {f"{a}{b}": rng.lognormal(0, 0.1, 3) for a in "xy" for b in "pq"}
    factors = {name: {"f": name[0], "g": name[1]} for name in cells}
    analysis = analyze_metric(cells, "xp", "wall_s", factors, seed=3)
    assert analysis.effects and all(e.ci_kind == small.PERCENTILE_SMALL_N for e in analysis.effects)
    assert effect_verdict(analysis.effects[0], registry.get("wall_s")).endswith("below 6 per cell]")
    big = {k: rng.lognormal(0, 0.1, 8) for k in cells}
    assert all(e.ci_kind == small.PERCENTILE for e in analyze_metric(big, "xp", "wall_s", factors).effects)


def test_summary_of_three_invocations_marks_and_warns(tmp_path) -> None:
    """Through the real store: 3 invocations per cell -> every output says it."""
    from rich.console import Console

    from jvmlab.report.summary import summarize
    from jvmlab.report.synthetic import SyntheticSpec, generate
    from jvmlab.report.terminal import render
    from jvmlab.store.sql import SqlStore

    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    s = summarize(store, generate(store, SyntheticSpec(invocations=3, failures=0)))
    doc = s.to_json()
    assert {c["ci95_kind"]["wall_s"] for c in doc["cells"]} == {small.T_SMALL_N}
    assert any(w["kind"] == "small-sample" for w in doc["warnings"])
    console = Console(record=True, width=220)
    render(s, console)
    text = console.export_text()
    assert "(t, small n)" in text and "[small-sample] only 3 invocation(s)" in text
