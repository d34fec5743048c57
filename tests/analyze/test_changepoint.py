"""Change points across labels (analyze/changepoint.py): seeded series with known steps.

Noise sd means the per-run sd; each label has its own runs, as a jvmlab series does."""

from __future__ import annotations

import numpy as np
import pytest

from jvmlab.analyze.changepoint import between_label_var, label_stats, segment

SEEDS = 200


def _series(rng: np.random.Generator, steps: dict[int, float], labels: int, runs: int,
            tau: float = 0.0, level: float = 100.0) -> list[list[float]]:
    out = []
    for i in range(labels):
        shift = sum(size for at, size in steps.items() if i >= at)
        out.append(list(level + shift + rng.normal(0, tau) + rng.normal(0, 1.0, runs)))
    return out


@pytest.mark.parametrize(("before", "after", "runs"), [(5, 5, 5), (5, 5, 3), (5, 20, 5), (20, 5, 5),
                                                        (20, 5, 1), (5, 30, 1)])
def test_a_step_of_3_sd_is_found_in_90_percent_within_one_label(before: int, after: int, runs: int) -> None:
    found = 0
    for seed in range(SEEDS):
        rng = np.random.default_rng(seed)
        seg = segment(_series(rng, {before: 3.0}, before + after, runs), rng=np.random.default_rng(10_000 + seed))
        found += any(abs(c.index - before) <= 1 for c in seg.changes)
    assert found / SEEDS >= 0.90, found


@pytest.mark.parametrize(("runs", "tau"), [(1, 0.0), (5, 0.0), (5, 1.0), (2, 2.0)])
def test_a_flat_series_of_50_labels_gives_at_most_5_percent_false_alarms(runs: int, tau: float) -> None:
    alarms = 0
    for seed in range(SEEDS):
        rng = np.random.default_rng(seed)
        seg = segment(_series(rng, {}, 50, runs, tau), rng=np.random.default_rng(20_000 + seed))
        alarms += bool(seg.changes)
    assert alarms / SEEDS <= 0.05, alarms


def test_a_step_and_its_return_are_both_found_with_intervals_that_cover_the_truth() -> None:
    """Up 3 sd at label 15, back at 30 (a change that is undone): both found within one label in
    >= 90% of series; the 95% intervals of the ratios cover the true ratios in >= 90%."""
    both = covered = trials = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        seg = segment(_series(rng, {15: 3.0, 30: -3.0}, 45, 5), rng=np.random.default_rng(seed))
        match = {truth: next((c for c in seg.changes if abs(c.index - at) <= 1), None)
                 for at, truth in ((15, 103.0 / 100.0), (30, 100.0 / 103.0))}
        both += all(c is not None for c in match.values())
        for truth, change in match.items():
            if change is not None:
                assert change.ci95 is not None and change.ci95[0] > 0
                trials += 1
                covered += change.ci95[0] <= truth <= change.ci95[1]
    assert both >= 90, both
    assert covered / trials >= 0.90, (covered, trials)


def test_a_noisy_label_of_few_runs_weighs_less_than_tight_ones() -> None:
    """The per-run data at work: one label whose 2 runs are far apart (mean off by 6 sd of
    the labels' means) is not a change; the same mean from tight runs in 6 labels is."""
    rng = np.random.default_rng(1)
    series = _series(rng, {}, 30, 10)
    series[20] = [100.0 - 8.0, 100.0 + 20.0]  # mean 106, but its own runs say +-14
    seg = segment(series)
    assert not seg.changes
    stats = label_stats(series)
    assert stats[20].var_of_mean is not None and stats[20].var_of_mean > 50 * stats[0].var_of_mean


def test_the_newest_label_alone_is_a_tail_not_a_change() -> None:
    rng = np.random.default_rng(2)
    series = _series(rng, {29: 5.0}, 30, 5)
    seg = segment(series)
    assert not seg.changes and seg.tail is not None
    assert seg.tail.ratio is not None and seg.tail.ci95 is not None and seg.tail.ci95[0] > 1.0


def test_between_label_variance_is_estimated_despite_a_step() -> None:
    rng = np.random.default_rng(3)
    labels = label_stats(_series(rng, {50: 10.0}, 100, 5, tau=2.0))
    assert 1.0 < between_label_var(labels) ** 0.5 < 3.0


def test_a_single_run_label_borrows_the_pooled_variance_and_identical_runs_do_not_divide_by_zero() -> None:
    stats = label_stats([[1.0, 3.0], [2.0]])
    assert stats[1].var_of_mean == pytest.approx(2.0)
    seg = segment([[5.0, 5.0]] * 6 + [[6.0, 6.0]] * 6)
    assert [c.index for c in seg.changes] == [6]
    assert segment([[5.0]] * 8).changes == ()
