"""The bisection's rules, pure: the next commit, the range after a verdict, a step's verdict, and
(seeded simulation) how often a step with looks every few blocks calls a change that is not there."""

from __future__ import annotations

import numpy as np

from jvmlab.analyze.model import CellData
from jvmlab.commits.steps import ALPHA, Looks, Range, StepVerdict, classify, confirmed
from jvmlab.results import compare_cells
from jvmlab.results.compare import VerdictKind

WORSE, BETTER, NONE = VerdictKind.WORSE, VerdictKind.BETTER, VerdictKind.NO_CLEAR_DIFFERENCE


def test_next_is_the_middle_and_passes_over_skipped_commits() -> None:
    assert Range(0, 8).next() == 4
    assert Range(0, 7).next() == 3  # a tie: the lower one
    assert Range(0, 7, frozenset({3})).next() == 4
    assert Range(0, 7, frozenset({3, 4})).next() == 2
    assert Range(3, 4).next() is None and Range(3, 4).found
    assert Range(3, 5, frozenset({4})).next() is None  # only a skipped commit between: untestable


def test_the_range_narrows_by_the_verdict() -> None:
    r = Range(0, 8)
    assert r.after(4, StepVerdict.LIKE_BAD) == Range(0, 4)
    assert r.after(4, StepVerdict.LIKE_GOOD) == Range(4, 8)
    assert r.after(4, StepVerdict.SKIPPED) == Range(0, 8, frozenset({4}))
    assert r.after(4, StepVerdict.INCONCLUSIVE) == r
    assert r.candidates() == list(range(1, 9))


def test_a_step_is_like_bad_when_it_moved_from_good_the_way_bad_did() -> None:
    assert classify(WORSE, NONE, WORSE) is StepVerdict.LIKE_BAD
    assert classify(WORSE, BETTER, WORSE) is StepVerdict.LIKE_BAD  # half-way: the change has begun
    assert classify(NONE, BETTER, WORSE) is StepVerdict.LIKE_GOOD
    assert classify(NONE, NONE, WORSE) is None
    assert classify(BETTER, NONE, BETTER) is StepVerdict.LIKE_BAD  # an improvement bisected
    assert classify(VerdictKind.DISTURBED, None, WORSE) is None
    assert confirmed(WORSE) is WORSE and confirmed(VerdictKind.INCONCLUSIVE) is None


def test_looks_spend_alpha_over_every_look() -> None:
    looks = Looks(first=8, cap=30)
    assert [b for b in range(1, 31) if looks.at(b)] == [8, 12, 16, 20, 24, 28, 30]
    assert looks.count == 7 and abs(looks.alpha - ALPHA / 7) < 1e-12
    assert Looks(first=10, cap=10).count == 1


def test_a_step_without_a_change_is_called_at_most_about_5_percent_of_the_time() -> None:
    """Seeded simulation: two revisions with the same distribution (log-normal, 5% spread, a
    shared per-block load), looked at as a step looks (first 8 blocks, then every 4, cap 20).
    Stopping at the first significant look at alpha/looks calls a difference in at most
    ALPHA of the steps plus simulation error (60 steps: the bound is 0.15, 3 sd above 5%)."""
    rng = np.random.default_rng(43)
    looks = Looks(first=8, cap=20)
    called = 0
    steps = 60
    for _ in range(steps):
        load = rng.lognormal(0.0, 0.2, size=looks.cap)  # the machine's state hits both alike
        a = load * rng.lognormal(0.0, 0.05, size=looks.cap)
        b = load * rng.lognormal(0.0, 0.05, size=looks.cap)
        for n in (n for n in range(1, looks.cap + 1) if looks.at(n)):
            blocks = np.arange(n)
            compared = compare_cells({"good": CellData(a[:n], blocks), "mid": CellData(b[:n], blocks)}, "good",
                                     "wall_s", lower_is_better=True, seed=1).of("mid")
            assert compared is not None
            c = compared.comparison
            if c.significant and c.p_adjusted is not None and c.p_adjusted < looks.alpha:
                called += 1
                break
    assert called / steps <= 0.15
