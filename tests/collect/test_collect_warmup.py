"""Warm-up classification on seeded synthetic throughput series (pure, no JVM)."""

from __future__ import annotations

import numpy as np
import pytest

from jvmlab.collect import warmup
from jvmlab.collect.warmup import WarmupParams, analyze_warmup

N = 60
TIMES = [float(i) for i in range(N)]


def _noisy(levels: list[tuple[int, float]], sd: float, seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    base = np.concatenate([np.full(n, level) for n, level in levels])
    return list(base + rng.normal(0, sd, len(base)))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_flat_series_has_no_changepoint(seed: int) -> None:
    result = analyze_warmup(TIMES, _noisy([(N, 100.0)], 3.0, seed))
    assert result.klass == warmup.FLAT
    assert result.changepoints_s == ()
    assert result.steady_rate == pytest.approx(100.0, abs=2.0)
    assert result.warmup_s == TIMES[1]  # the first window is skipped


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_step_up_is_warmup_with_steady_state_after_the_step(seed: int) -> None:
    result = analyze_warmup(TIMES, _noisy([(15, 60.0), (45, 100.0)], 3.0, seed))
    assert result.klass == warmup.WARMUP
    assert result.changepoints_s == (15.0,)
    assert result.warmup_s == 15.0
    assert result.steady_rate == pytest.approx(100.0, abs=2.0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_step_down_is_slowdown(seed: int) -> None:
    result = analyze_warmup(TIMES, _noisy([(40, 100.0), (20, 70.0)], 3.0, seed))
    assert result.klass == warmup.SLOWDOWN
    assert result.changepoints_s == (40.0,)
    assert result.steady_rate == pytest.approx(70.0, abs=3.0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_change_near_the_end_means_no_steady_state(seed: int) -> None:
    result = analyze_warmup(TIMES, _noisy([(52, 100.0), (8, 60.0)], 3.0, seed))
    assert result.klass == warmup.NO_STEADY_STATE
    assert result.steady_rate is None and result.warmup_s is None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_oscillating_series_has_no_steady_state(seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = 100 + 40 * np.sign(np.sin(np.arange(N) / 2.5)) + rng.normal(0, 3, N)
    result = analyze_warmup(TIMES, list(values))
    assert result.klass == warmup.NO_STEADY_STATE


def test_small_shift_within_tolerance_is_flat() -> None:
    # A 2 % shift is below the 5 % relative tolerance even when noise is tiny.
    result = analyze_warmup(TIMES, _noisy([(30, 100.0), (30, 102.0)], 0.1, 5))
    assert result.klass == warmup.FLAT


def test_dip_then_recovery_is_warmup() -> None:
    # The first segment is equivalent to the last and ignored; the dip between is the only
    # non-equivalent earlier segment, and it is slower: warm-up (Barrett et al.'s rule).
    result = analyze_warmup(TIMES, _noisy([(20, 100.0), (10, 50.0), (30, 100.0)], 2.0, 6))
    assert result.klass == warmup.WARMUP
    assert result.steady_rate == pytest.approx(100.0, abs=2.0)


def test_too_few_windows_are_unclassified() -> None:
    result = analyze_warmup([0.0, 1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0])
    assert result.klass == warmup.UNCLASSIFIED
    assert result.steady_rate is None


def test_skip_points_is_respected() -> None:
    values = _noisy([(N, 100.0)], 1.0, 9)
    values[0:5] = [10.0] * 5  # start-up windows: excluded when skipping 5
    assert analyze_warmup(TIMES, values, WarmupParams(skip_points=5)).klass == warmup.FLAT
    assert analyze_warmup(TIMES, values, WarmupParams(skip_points=0)).klass == warmup.WARMUP


def test_result_has_class_and_segments() -> None:
    result = analyze_warmup(TIMES, _noisy([(15, 60.0), (45, 100.0)], 3.0, 1))
    assert result.klass == "warmup"
    assert [s.windows for s in result.segments] == [14, 44]  # first and last windows skipped
    assert result.changepoints_s == (15.0,)


def test_late_lines_do_not_make_changepoints() -> None:
    # Timing jitter: a line printed late makes one window low and the next one high (the
    # units are conserved). Real runs on a loaded machine look like this.
    values = _noisy([(N, 800.0)], 2.0, 11)
    for i in (20, 41, 55):
        values[i], values[i + 1] = 700.0, 900.0
    values[-1] = 545.0  # the run's last window, cut short at shutdown
    result = analyze_warmup(TIMES, values)
    assert result.klass == warmup.FLAT, result
