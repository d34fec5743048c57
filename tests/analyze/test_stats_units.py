"""Unit tests of the statistics: edge cases, known answers, determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from jvmlab.analyze import (
    CellData,
    analyze_metric,
    half_width_rel,
    invocations_needed,
    invocations_remaining,
    precision_reached,
)
from jvmlab.analyze.compare import BlockSums, paired_test
from jvmlab.analyze.correction import benjamini_hochberg, holm
from jvmlab.analyze.drift import outlier_positions
from jvmlab.errors import UserError


def _lognormal(seed: int, n: int, scale: float = 1.0, sigma: float = 0.1) -> np.ndarray:
    return scale * np.random.default_rng(seed).lognormal(0, sigma, n)


def test_descriptive_stats_match_numpy() -> None:
    x = _lognormal(1, 25)
    s = analyze_metric({"c": x}, None, "wall_s").stats["c"]
    assert s.n == 25 and s.n_dropped == 0
    assert s.mean == pytest.approx(x.mean()) and s.sd == pytest.approx(x.std(ddof=1))
    assert s.median == pytest.approx(np.median(x)) and s.min == x.min() and s.max == x.max()
    assert s.mad == pytest.approx(np.median(np.abs(x - np.median(x))))
    assert s.cv == pytest.approx(x.std(ddof=1) / x.mean())
    assert s.mean_ci95 is not None and s.mean_ci95[0] < s.mean < s.mean_ci95[1]
    assert s.median_ci95 is not None and s.median_ci95[0] <= s.median <= s.median_ci95[1]


def test_edge_cases_do_not_raise() -> None:
    cells = {
        "empty": [], "one": [2.0], "same": [3.0] * 10, "zeros": [0.0] * 10,
        "nan": [1.0, float("nan"), 1.2, None, 1.1, 0.9, 1.0],
    }
    r = analyze_metric(cells, "zeros", "gc.full_count")
    assert r.stats["empty"].n == 0 and r.stats["empty"].mean is None
    one = r.stats["one"]
    assert one.mean == 2.0 and one.sd is None and one.mean_ci95 is None
    assert r.stats["same"].sd == 0.0 and r.stats["same"].mean_ci95 == (3.0, 3.0)
    assert r.stats["nan"].n == 5 and r.stats["nan"].n_dropped == 2
    assert any("nan: 2 invocation(s)" in note for note in r.notes)
    # A zero baseline has no ratio: None, not 0 and not inf.
    by_cell = {c.cell: c for c in r.comparisons}
    assert by_cell["same"].ratio is None and by_cell["same"].ci95 is None
    assert by_cell["empty"].ratio is None and not by_cell["empty"].significant


def test_zero_counts_in_cell_are_compared() -> None:
    base = np.array([3, 4, 2, 5, 3, 4, 3, 2, 4, 3], dtype=float)
    r = analyze_metric({"base": base, "none": np.zeros(10)}, "base", "gc.full_count", seed=3)
    c = r.comparisons[0]
    assert c.ratio == 0.0 and c.rel_diff_pct == -100.0
    assert c.p_value is not None and c.p_value < 0.01 and c.significant


def test_missing_or_empty_baseline_gives_no_comparisons() -> None:
    cells = {"a": _lognormal(1, 10), "b": _lognormal(2, 10), "c": []}
    assert analyze_metric(cells, "nope", "wall_s").comparisons == ()
    assert analyze_metric(cells, "c", "wall_s").comparisons == ()
    assert analyze_metric(cells, None, "wall_s").comparisons == ()
    assert "no comparisons" in analyze_metric(cells, "nope", "wall_s").notes[0]


def test_identical_cells_no_difference_and_clear_difference_found() -> None:
    base = _lognormal(5, 20)
    slow = _lognormal(6, 20, scale=1.3)
    r = analyze_metric({"base": base, "same": base.copy(), "slow": slow}, "base", "wall_s", seed=1)
    same, slow_c = r.comparisons
    assert same.ratio == pytest.approx(1.0) and same.p_value == pytest.approx(1.0)
    assert not same.significant
    assert slow_c.significant and slow_c.ci95 is not None
    assert slow_c.ci95[0] < slow.mean() / base.mean() < slow_c.ci95[1]
    assert slow_c.rel_diff_pct == pytest.approx((slow.mean() / base.mean() - 1) * 100)


def test_seeded_and_independent_of_other_cells() -> None:
    cells = {"base": _lognormal(1, 15), "a": _lognormal(2, 15)}
    one = analyze_metric(cells, "base", "wall_s", seed=9)
    again = analyze_metric(cells, "base", "wall_s", seed=9)
    more = analyze_metric({**cells, "b": _lognormal(3, 15)}, "base", "wall_s", seed=9)
    other = analyze_metric(cells, "base", "wall_s", seed=10)
    assert one.comparisons[0].ci95 == again.comparisons[0].ci95 == more.comparisons[0].ci95
    assert one.stats["a"].mean_ci95 == more.stats["a"].mean_ci95
    assert one.comparisons[0].ci95 != other.comparisons[0].ci95


def test_pairing_used_only_with_enough_common_blocks() -> None:
    x, y = _lognormal(1, 12), _lognormal(2, 12)
    paired = analyze_metric({"b": CellData.of(x, range(12)), "a": CellData.of(y, range(12))},
                            "b", "wall_s").comparisons[0]
    few = analyze_metric({"b": CellData.of(x[:5], range(5)), "a": CellData.of(y[:5], range(5))},
                         "b", "wall_s").comparisons[0]
    disjoint = analyze_metric({"b": CellData.of(x, range(12)), "a": CellData.of(y, range(100, 112))},
                              "b", "wall_s").comparisons[0]
    assert paired.paired and not few.paired and not disjoint.paired
    assert paired.n_cell == 12 and disjoint.n_cell == 12


def test_paired_permutation_is_exact_for_few_blocks() -> None:
    # Cell above baseline in all 8 blocks: only the identity and the all-swapped
    # assignment are as extreme, so p = 2 / 2^8 exactly.
    ones = np.ones(8)
    sums = BlockSums(np.full(8, 1.1) + np.arange(8) * 0.01, ones, np.ones(8), ones)
    assert paired_test(sums, np.random.default_rng(0)).p_value == pytest.approx(2 / 256)


def test_holm_and_bh_known_values() -> None:
    p = [0.01, 0.04, 0.03, 0.005]
    assert holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert benjamini_hochberg(p) == pytest.approx(list(sps.false_discovery_control(p)))
    assert holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])


def test_bh_option_is_applied() -> None:
    cells = {"base": _lognormal(1, 15), **{f"c{i}": _lognormal(i + 2, 15, 1.04) for i in range(4)}}
    holm_r = analyze_metric(cells, "base", "wall_s", correction="holm")
    bh_r = analyze_metric(cells, "base", "wall_s", correction="bh")
    raw = [c.p_value for c in holm_r.comparisons]
    assert [c.p_adjusted for c in holm_r.comparisons] == pytest.approx(holm(raw))
    assert [c.p_adjusted for c in bh_r.comparisons] == pytest.approx(benjamini_hochberg(raw))


def test_unknown_correction_is_a_user_error() -> None:
    with pytest.raises(UserError, match="did you mean 'holm'"):
        analyze_metric({"a": [1.0, 2.0], "b": [1.0, 2.0]}, "a", "wall_s", correction="hlm")  # type: ignore[arg-type]


def test_outliers_flagged_as_original_indices_never_dropped() -> None:
    x = list(_lognormal(4, 20, sigma=0.02))
    x[7] = float("nan")
    x[13] = 3.0  # a 3x slow invocation
    r = analyze_metric({"c": x}, None, "wall_s")
    assert r.outliers["c"] == (13,)
    assert r.stats["c"].n == 19 and r.stats["c"].max == 3.0


def test_outlier_rule_handles_zero_mad() -> None:
    assert list(outlier_positions(np.array([1.0] * 9 + [5.0]))) == [9]
    assert list(outlier_positions(np.array([2.0] * 10))) == []


def test_drift_detected_on_trend_and_not_on_noise() -> None:
    k = 15
    blocks = np.repeat(np.arange(k), 2)
    noise = _lognormal(8, 2 * k, sigma=0.01)
    trend = noise * (1 + 0.01 * blocks)
    r = analyze_metric({"t": CellData.of(trend, blocks), "n": CellData.of(noise, blocks)},
                       None, "wall_s")
    t, n = r.drift["t"], r.drift["n"]
    assert t.n_blocks == k and t.rho is not None and t.rho > 0.8 and t.p_value < 0.001
    assert t.slope_rel_per_block == pytest.approx(0.01, rel=0.3)
    assert n.p_value is not None and n.p_value > 0.01
    assert analyze_metric({"c": [1.0, 2.0]}, None, "wall_s").drift["c"].rho is None


def _two_by_two(interaction: float, seed: int, blocks: bool = False) -> dict[str, CellData]:
    rng = np.random.default_rng(seed)
    k = 20
    shared = np.exp(rng.normal(0, 0.05, k)) if blocks else np.ones(k)
    cells = {}
    for a in ("off", "on"):
        for b in ("off", "on"):
            mean = (1.5 if a == "on" else 1.0) * (0.9 if b == "on" else 1.0)
            mean *= interaction if (a, b) == ("on", "on") else 1.0
            cells[f"A={a} B={b}"] = CellData.of(mean * shared * rng.lognormal(0, 0.02, k),
                                                np.arange(k) if blocks else None)
    return cells


def _factors(cells: dict[str, CellData]) -> dict[str, dict[str, str]]:
    return {name: dict(part.split("=") for part in name.split()) for name in cells}


@pytest.mark.parametrize("blocks", [False, True])
def test_factorial_main_effects_and_no_interaction(blocks: bool) -> None:
    cells = _two_by_two(1.0, 11, blocks)
    r = analyze_metric(cells, "A=off B=off", "wall_s", _factors(cells), seed=2)
    effects = {(e.kind, e.factor): e for e in r.effects}
    main_a, main_b = effects[("main", "A")], effects[("main", "B")]
    assert (main_a.level, main_a.reference, main_a.n_combinations) == ("on", "off", 2)
    assert main_a.ci95 is not None and main_a.ci95[0] < 1.5 < main_a.ci95[1]
    assert main_b.ci95 is not None and main_b.ci95[0] < 0.9 < main_b.ci95[1]
    inter = effects[("interaction", "A")]
    assert inter.factor2 == "B" and inter.ratio == pytest.approx(1.0, abs=0.03)
    assert inter.ci95 is not None and inter.ci95[0] < inter.ratio < inter.ci95[1]


def test_factorial_interaction_detected() -> None:
    cells = _two_by_two(1.2, 12)
    r = analyze_metric(cells, "A=off B=off", "wall_s", _factors(cells), seed=2)
    inter = next(e for e in r.effects if e.kind == "interaction")
    assert inter.ratio == pytest.approx(1.2, rel=0.03)
    assert inter.ci95 is not None and inter.ci95[0] > 1.1
    main_a = next(e for e in r.effects if e.kind == "main" and e.factor == "A")
    assert main_a.ratio == pytest.approx(1.5 * math.sqrt(1.2), rel=0.03)


def test_effects_need_two_factors_and_skip_incomplete_combinations() -> None:
    cells = _two_by_two(1.0, 13)
    one_factor = {name: {"A": f["A"]} for name, f in _factors(cells).items()}
    assert analyze_metric(cells, None, "wall_s", one_factor).effects == ()
    del cells["A=on B=on"]
    r = analyze_metric(cells, None, "wall_s", _factors(cells))
    main_a = next(e for e in r.effects if e.kind == "main" and e.factor == "A")
    assert main_a.n_combinations == 1 and main_a.ratio == pytest.approx(1.5, rel=0.05)
    inter = next(e for e in r.effects if e.kind == "interaction")
    assert inter.ratio is None and inter.ci95 is None


def test_precision_rule_and_invocation_estimates() -> None:
    cells = {"base": _lognormal(1, 30, sigma=0.02), "a": _lognormal(2, 30, 1.1, sigma=0.02)}
    r = analyze_metric(cells, "base", "wall_s")
    hw = half_width_rel(r.comparisons[0])
    assert hw is not None and 0 < hw < 0.02
    assert precision_reached(r.comparisons, 0.02)
    assert not precision_reached(r.comparisons, hw / 2)
    assert not precision_reached(r.comparisons, 0.02, min_n=40)
    assert not precision_reached([], 0.02)
    assert precision_reached([], 0.05, stats=r.stats.values())
    assert invocations_remaining(r, 0.02) == 0
    assert invocations_remaining(r, hw / 2) == pytest.approx(90, abs=2)  # 30 * 2^2 - 30
    assert invocations_needed(0.05, 0.01) == math.ceil(1.959963984540054**2 * 25)
    assert invocations_needed(0.05, 0.01, cv_baseline=0.05) == math.ceil(1.959963984540054**2 * 50)
