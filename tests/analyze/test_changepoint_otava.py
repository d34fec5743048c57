"""Cross-check of jvmlab's change points (analyze/changepoint.py) against Apache Otava 0.8.0
(``otava.analysis.compute_change_points``: E-divisive split in windows of 50, merge by a
t-test on the means at p < 0.001) on the same seeded series.

Where both apply they agree: a 3-sd step is found at the same label, and flat series give
as few false alarms. The differences, each asserted below, come from the design:

- Otava sees one number per label (its mean); jvmlab weighs each label by its runs'
  variance plus a between-label variance. On series whose labels are alike in runs this
  changes little, hence the agreement.
- A newest label that differs on its own: Otava calls it a change point (a segment of one);
  jvmlab needs two labels on each side and reports it as the series' tail (the gate says
  inconclusive): one label cannot tell a change from an outlier.
- jvmlab's p-values come from permuting labels, so they cannot go below about
  1/C(n, k); Otava's t-test p-values can. On very short series (3 + 3 labels) Otava can
  find a step jvmlab cannot (asserted too, so the limit stays known).
"""

from __future__ import annotations

import numpy as np
import pytest

from jvmlab.analyze.changepoint import segment

otava = pytest.importorskip("otava.analysis", reason="apache-otava (a test dependency) is not installed")


def _otava(runs: list[list[float]]) -> list[int]:
    points, _weak = otava.compute_change_points([float(np.mean(r)) for r in runs])
    return [int(p.index) for p in points]


def _ours(runs: list[list[float]]) -> list[int]:
    return [c.index for c in segment(runs).changes]


def _step(seed: int, before: int, after: int, runs: int, step: float = 3.0) -> list[list[float]]:
    rng = np.random.default_rng(seed)
    return [list(100.0 + (step if i >= before else 0.0) + rng.normal(0, 1.0, runs)) for i in range(before + after)]


def test_both_find_a_3_sd_step_at_the_same_label() -> None:
    same = found_o = found_j = 0
    for seed in range(60):
        runs = _step(seed, 20, 20, 5)
        o, j = _otava(runs), _ours(runs)
        found_o += 20 in o
        found_j += 20 in j
        same += o == j
    assert found_o >= 57 and found_j >= 57, (found_o, found_j)
    assert same >= 54, same


def test_both_rarely_alarm_on_flat_series_of_50_labels() -> None:
    alarms_o = alarms_j = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        runs = [[100.0 + float(rng.normal())] for _ in range(50)]
        alarms_o += bool(_otava(runs))
        alarms_j += bool(_ours(runs))
    assert alarms_o <= 5 and alarms_j <= 5, (alarms_o, alarms_j)


def test_a_newest_label_alone_is_a_change_for_otava_and_a_tail_for_jvmlab() -> None:
    otava_changes = tails = 0
    for seed in range(30):
        runs = _step(seed, 20, 1, 5)
        otava_changes += 20 in _otava(runs)
        seg = segment(runs)
        assert 20 not in [c.index for c in seg.changes]
        tails += seg.tail is not None
    assert otava_changes >= 27 and tails >= 27, (otava_changes, tails)


def test_on_3_plus_3_labels_both_find_the_step() -> None:
    """Label permutations of 6 labels give p >= 1/10, which cannot reach alpha: there jvmlab
    takes the t-based split test (Bonferroni over the splits), as Otava does (issue 40)."""
    otava_found = ours_found = 0
    for seed in range(20):
        runs = _step(seed, 3, 3, 20, step=5.0)
        otava_found += 3 in _otava(runs)
        ours_found += bool(_ours(runs))
    assert otava_found >= 18 and ours_found >= 18, (otava_found, ours_found)
