"""Issue 40 item 5: short series. A 2x step in 8 labels split 4+4 is found (the permutation
test of 8 labels cannot reach alpha = 0.02: its smallest p is 2/70; the t-based split test
takes over); a flat 8-label series stays quiet; the p said for "no change" is the p that
decided; the newest label "stands alone" only when the label before it differs."""

from __future__ import annotations

import numpy as np

from jvmlab.analyze.changepoint import ALPHA, segment, smallest_permutation_p

SEEDS = 200


def _labels(rng: np.random.Generator, levels: list[float], runs: int = 3, sd: float = 0.05) -> list[list[float]]:
    return [list(level * rng.lognormal(0.0, sd, runs)) for level in levels]


def test_a_2x_step_in_8_labels_split_4_4_is_found() -> None:
    assert smallest_permutation_p(8) > ALPHA  # why the permutation test alone could never find it
    found = 0
    for seed in range(SEEDS):
        rng = np.random.default_rng(seed)
        seg = segment(_labels(rng, [1.0] * 4 + [2.0] * 4), rng=np.random.default_rng(seed))
        found += [c.index for c in seg.changes] == [4]
    assert found / SEEDS >= 0.90, found


def test_a_flat_8_label_series_gives_at_most_5_percent_false_alarms() -> None:
    alarms = sum(bool(segment(_labels(np.random.default_rng(s), [1.0] * 8, sd=0.05),
                              rng=np.random.default_rng(s)).changes) for s in range(SEEDS))
    assert alarms / SEEDS <= 0.05, alarms


def test_the_p_said_for_no_change_is_the_p_that_decided() -> None:
    for seed in range(40):
        rng = np.random.default_rng(seed)
        seg = segment(_labels(rng, [1.0] * 5 + [1.04] * 4, sd=0.05), rng=np.random.default_rng(seed))
        if not seg.changes:
            assert seg.p_no_change is not None and seg.p_no_change >= ALPHA, (seed, seg.p_no_change)


def test_a_newest_label_equal_to_the_one_before_does_not_stand_alone() -> None:
    rng = np.random.default_rng(7)
    runs = [list(1.0 + rng.normal(0, 0.01, 5)) for _ in range(8)]
    same_as_before = [*runs[:-1], list(np.array(runs[-2]) + 1e-9)]
    same_as_before[-2] = list(np.array(runs[-2]) * 1.3)
    same_as_before[-1] = list(np.array(runs[-2]) * 1.3)
    seg = segment(same_as_before, rng=np.random.default_rng(1))
    assert seg.tail is None
    alone = [*runs[:-1], list(np.array(runs[-1]) * 1.3)]
    assert segment(alone, rng=np.random.default_rng(1)).tail is not None
