"""Seeded simulations: error rates, coverage, power, pairing and the stopping rule.

Each test draws from a fixed-seed generator, so it is deterministic, yet it checks a
property that a broken method would violate (too many false positives, too narrow
intervals, too little power). Simulations use 1,000 resamples/permutations instead of the
defaults: a Monte-Carlo p-value (1 + hits)/(1 + P) is valid for any P (Phipson & Smyth
2010) and 1,000 resamples put the 2.5%/97.5% quantiles within ~0.5 percentage points of
coverage, far below the tolerances checked here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from jvmlab.analyze import CellData, analyze_metric, precision_reached
from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.compare import compare
from jvmlab.analyze.model import clean
from jvmlab.analyze.stopping import MIN_INVOCATIONS_FOR_CI, RECOMMENDED_INVOCATIONS

SIM = {"n_boot": 1000, "n_perm": 1000}
SIGMA = 0.5  # log-normal shape: CV 53%, skewness 1.75 -- far more skewed than most timings
COVERAGE_SIGMA = 0.35  # CV 36%, skewness 1.1: still more skewed than typical JVM timings
COVERAGE = {"n_boot": 2000, "n_perm": 100}  # the p-value is not looked at there
DOCS = Path(__file__).resolve().parents[2] / "docs" / "statistics.md"


def _compare(a: np.ndarray, b: np.ndarray, seed: int, blocks: np.ndarray | None = None):
    cells = {"base": CellData.of(b, blocks), "cell": CellData.of(a, blocks)}
    return analyze_metric(cells, "base", "wall_s", seed=seed, **SIM)


def _report(what: str, rate: float) -> None:
    """The measured figure, shown with `pytest -s` (the docs quote these)."""
    print(f"\n  {what}: {rate:.1%}")


def test_aa_false_positive_rate_unpaired_skewed() -> None:
    rng = np.random.default_rng(101)
    hits = sum(_compare(rng.lognormal(0, SIGMA, 20), rng.lognormal(0, SIGMA, 20), i)
               .comparisons[0].significant for i in range(1000))
    _report("A/A false positives, unpaired", hits / 1000)
    assert 0.02 <= hits / 1000 <= 0.06  # holds alpha, and the test does reject sometimes


def test_aa_false_positive_rate_paired_with_block_drift() -> None:
    rng = np.random.default_rng(102)
    hits = 0
    blocks = np.arange(20)
    for i in range(1000):
        shared = np.exp(rng.normal(0, 0.2, 20))  # the machine's state in each block
        a = rng.lognormal(0, SIGMA, 20) * shared
        b = rng.lognormal(0, SIGMA, 20) * shared
        comparison = _compare(a, b, i, blocks).comparisons[0]
        assert comparison.paired
        hits += comparison.significant
    _report("A/A false positives, paired with block drift", hits / 1000)
    assert 0.02 <= hits / 1000 <= 0.06


def test_mean_and_median_ci_cover_truth_on_skewed_data() -> None:
    rng = np.random.default_rng(103)
    n = MIN_INVOCATIONS_FOR_CI
    true_mean, true_median = np.exp(COVERAGE_SIGMA**2 / 2), 1.0
    mean_hits = median_hits = 0
    for i in range(1000):
        stats = analyze_metric({"c": rng.lognormal(0, COVERAGE_SIGMA, n)}, None, "wall_s",
                               seed=i, **COVERAGE).stats["c"]
        assert stats.mean_ci95 is not None and stats.median_ci95 is not None
        mean_hits += stats.mean_ci95[0] <= true_mean <= stats.mean_ci95[1]
        median_hits += stats.median_ci95[0] <= true_median <= stats.median_ci95[1]
    _report("mean CI coverage", mean_hits / 1000)
    _report("median CI coverage", median_hits / 1000)
    assert 0.93 <= mean_hits / 1000 <= 0.99  # upper bound: not uselessly wide either
    assert 0.93 <= median_hits / 1000 <= 0.99


def test_ratio_ci_covers_known_ratio_on_skewed_data() -> None:
    rng = np.random.default_rng(104)
    n = MIN_INVOCATIONS_FOR_CI
    true_ratio = np.exp(0.3)  # equal shapes: ratio of means = ratio of scales
    hits = 0
    for i in range(1000):
        a, b = rng.lognormal(0.3, COVERAGE_SIGMA, n), rng.lognormal(0, COVERAGE_SIGMA, n)
        ci = analyze_metric({"b": b, "a": a}, "b", "wall_s", seed=i, **COVERAGE).comparisons[0].ci95
        assert ci is not None
        hits += ci[0] <= true_ratio <= ci[1]
    _report("ratio CI coverage", hits / 1000)
    assert 0.93 <= hits / 1000 <= 0.99


def test_detects_3pct_difference_at_5pct_cv_with_recommended_count() -> None:
    rng = np.random.default_rng(105)
    n = RECOMMENDED_INVOCATIONS
    sigma = np.sqrt(np.log(1 + 0.05**2))  # log-normal with CV exactly 5%
    found = 0
    for i in range(500):
        c = _compare(1.03 * rng.lognormal(0, sigma, n), rng.lognormal(0, sigma, n), i).comparisons[0]
        found += c.significant and c.ratio is not None and c.ratio > 1
    _report(f"power for 3% at 5% CV, n={n}", found / 500)
    assert found / 500 >= 0.90
    assert f"{RECOMMENDED_INVOCATIONS} invocations per cell" in DOCS.read_text()


def test_pairing_by_block_gives_narrower_intervals_under_shared_drift() -> None:
    rng = np.random.default_rng(106)
    k = 20
    blocks = np.arange(k)
    narrower = 0
    for i in range(200):
        shared = np.exp(np.linspace(0, 0.3, k) + rng.normal(0, 0.1, k))  # drift + block noise
        a = 1.05 * shared * rng.lognormal(0, 0.03, k)
        b = shared * rng.lognormal(0, 0.03, k)
        paired = _compare(a, b, i, blocks).comparisons[0]
        unpaired = _compare(a, b, i).comparisons[0]
        assert paired.paired and not unpaired.paired
        assert paired.ci95 is not None and unpaired.ci95 is not None
        narrower += (paired.ci95[1] - paired.ci95[0]) < 0.5 * (unpaired.ci95[1] - unpaired.ci95[0])
    _report("paired CI under half the unpaired width", narrower / 200)
    assert narrower >= 190


def test_stopping_on_ci_width_keeps_aa_false_positive_rate() -> None:
    """Sequential A/A: add 5 invocations per cell until the ratio's CI half-width is at
    most 2% (or 150 per cell), then test once. Stopping on width must not inflate
    the false-positive rate the way stopping on p < 0.05 would."""
    rng = np.random.default_rng(107)
    sigma = 0.05  # about 50 invocations per cell reach the 2% target
    hits = stopped_early = 0
    for i in range(1000):
        a, b = rng.lognormal(0, sigma, 10), rng.lognormal(0, sigma, 10)
        while True:
            comparison = compare("a", clean(CellData.of(a)), "b", clean(CellData.of(b)), "wall_s",
                                 rng_for(i, str(a.size)), n_boot=500, n_perm=1000)
            if precision_reached([comparison], 0.02) or a.size >= 150:
                break
            a = np.concatenate([a, rng.lognormal(0, sigma, 5)])
            b = np.concatenate([b, rng.lognormal(0, sigma, 5)])
        stopped_early += a.size < 150
        assert comparison.p_value is not None
        hits += comparison.p_value < 0.05
    _report("stop-on-width A/A false positives", hits / 1000)
    assert stopped_early >= 900  # the rule, not the cap, decided
    assert hits / 1000 <= 0.06


def test_holm_controls_familywise_error_across_comparisons() -> None:
    rng = np.random.default_rng(108)
    any_raw = any_holm = 0
    for i in range(300):
        cells = {f"c{j}": rng.lognormal(0, SIGMA, 15) for j in range(6)}
        result = analyze_metric(cells, "c0", "wall_s", seed=i, n_boot=200, n_perm=1000)
        any_raw += any(c.p_value is not None and c.p_value < 0.05 for c in result.comparisons)
        any_holm += any(c.significant for c in result.comparisons)
    _report("familywise false positives with Holm (5 comparisons)", any_holm / 300)
    _report("familywise false positives uncorrected", any_raw / 300)
    assert any_holm / 300 <= 0.07
    assert any_raw > 2 * any_holm  # without correction five looks find far more "effects"


def test_factorial_effect_intervals_cover_truth() -> None:
    rng = np.random.default_rng(109)
    truth = {"main": 1.5 * np.sqrt(1.1), "interaction": 1.1}
    hits = {"main": 0, "interaction": 0}
    factors = {f"A={a} B={b}": {"A": a, "B": b} for a in ("off", "on") for b in ("off", "on")}
    for i in range(300):
        cells = {}
        for name, f in factors.items():
            mean = (1.5 if f["A"] == "on" else 1.0) * (1.1 if f["A"] == f["B"] == "on" else 1.0)
            cells[name] = rng.lognormal(np.log(mean), 0.2, MIN_INVOCATIONS_FOR_CI)
        r = analyze_metric(cells, "A=off B=off", "wall_s", factors, seed=i, n_boot=1000, n_perm=100)
        for e in r.effects:
            if e.factor == "A" and e.ci95 is not None:
                # log-normal with equal shapes: ratios of means equal ratios of medians
                hits[e.kind] += e.ci95[0] <= truth[e.kind] <= e.ci95[1]
    _report("main effect CI coverage", hits["main"] / 300)
    _report("interaction CI coverage", hits["interaction"] / 300)
    assert hits["main"] / 300 >= 0.92 and hits["interaction"] / 300 >= 0.92
