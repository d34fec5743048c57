"""The rules of a bisection, pure: which commit to measure next, and what a step's comparisons say.

A step measures a midpoint ``mid`` interleaved with the two ends of the range (``good``, the
last commit known like the good one; ``bad``, the first known like the bad one). Its verdict
comes from two comparisons made by :func:`jvmlab.results.compare_cells` (significance after
the Holm correction, 95% intervals, interference margins), read as:

* ``like-bad``: ``mid`` differs from ``good`` in the direction ``bad`` does (a partial
  change counts: the change has begun at ``mid``);
* ``like-good``: ``mid`` differs from ``bad`` in the direction ``good`` does, and not from
  ``good`` in ``bad``'s;
* neither (``None``): not decided yet; the step adds blocks up to its cap, then it is
  ``inconclusive`` and the bisection stops, saying which range is left.

The confirmation before any step compares ``bad`` with ``good`` the same way: a significant
difference gives the direction to look for; none (after the cap) means there is nothing to find.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from jvmlab.results.compare import VerdictKind

DECIDED = (VerdictKind.BETTER, VerdictKind.WORSE)
ALPHA = 0.05  # each step's error rate, spent over its looks
LOOK_EVERY = 4  # blocks between two looks at a step's data


@dataclass(frozen=True)
class Looks:
    """When a step looks at its data and at what level: after its planned blocks, every
    ``LOOK_EVERY`` blocks after, and at its cap. Looking again and again at growing data and
    stopping at the first significant result would call a difference that is not there more
    often than 5%; each look is made at ``ALPHA / looks`` instead (Bonferroni over the looks),
    so a step calls a change that is not there at most 5% of the time (a seeded simulation in
    tests/revisions/test_steps.py measures it)."""

    first: int  # the planned blocks
    cap: int  # blocks at most

    @property
    def count(self) -> int:
        return 1 + -(-max(0, self.cap - self.first) // LOOK_EVERY)

    @property
    def alpha(self) -> float:
        return ALPHA / self.count

    def at(self, blocks: int) -> bool:
        """Is ``blocks`` (measured blocks so far) a look?"""
        return blocks >= self.cap or (blocks >= self.first and (blocks - self.first) % LOOK_EVERY == 0)


class StepVerdict(StrEnum):
    LIKE_GOOD = "like-good"
    LIKE_BAD = "like-bad"
    INCONCLUSIVE = "inconclusive"  # the cap was reached before either
    SKIPPED = "skipped"  # the commit did not build (as `git bisect skip`)
    DIFFER = "differ"  # the confirmation: bad differs from good
    NO_DIFFERENCE = "no-difference"  # the confirmation: no difference found within the cap


def opposite(kind: VerdictKind) -> VerdictKind:
    return VerdictKind.BETTER if kind is VerdictKind.WORSE else VerdictKind.WORSE


def classify(mid_vs_good: VerdictKind | None, mid_vs_bad: VerdictKind | None,
             change: VerdictKind) -> StepVerdict | None:
    """A step's verdict from ``mid`` against ``good`` and against ``bad`` (``change``: how
    ``bad`` compared with ``good``, BETTER or WORSE); None: not decided yet."""
    if mid_vs_good is change:
        return StepVerdict.LIKE_BAD
    if mid_vs_bad is opposite(change):
        return StepVerdict.LIKE_GOOD
    return None


def confirmed(bad_vs_good: VerdictKind | None) -> VerdictKind | None:
    """The change to look for (BETTER or WORSE) once ``bad`` surely differs from ``good``."""
    return bad_vs_good if bad_vs_good in DECIDED else None


@dataclass(frozen=True)
class Range:
    """Commits ``0..n`` (0 = good, n = bad); the first bad one lies in ``(good, bad]``."""

    good: int
    bad: int
    skipped: frozenset[int] = frozenset()

    def candidates(self) -> list[int]:
        """The commits that may be the first bad one."""
        return list(range(self.good + 1, self.bad + 1))

    def next(self) -> int | None:
        """The commit to measure next: the untried one nearest the middle of ``(good, bad)``
        (the lower one on a tie), skipped commits passed over; None: nothing left to measure
        (found, or only skipped commits stand between the ends)."""
        inside = [i for i in range(self.good + 1, self.bad) if i not in self.skipped]
        if not inside:
            return None
        middle = (self.good + self.bad) / 2.0
        return min(inside, key=lambda i: (abs(i - middle), i))

    def after(self, index: int, verdict: StepVerdict) -> Range:
        if verdict is StepVerdict.LIKE_BAD:
            return Range(self.good, index, self.skipped)
        if verdict is StepVerdict.LIKE_GOOD:
            return Range(index, self.bad, self.skipped)
        if verdict is StepVerdict.SKIPPED:
            return Range(self.good, self.bad, self.skipped | {index})
        return self

    @property
    def found(self) -> bool:
        return self.bad == self.good + 1
