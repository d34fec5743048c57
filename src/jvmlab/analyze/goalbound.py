"""Is a goal met? One-sided 95% bounds of a mean, looked at a few times as values arrive.

A goal is ``mean(metric) < bound`` (or ``>``, ``<=``, ``>=``). After ``n`` invocations the
mean's one-sided bounds are the ends of a Student-t interval (for a metric that is never
negative, the log-scale t interval of :func:`jvmlab.analyze.smallsample.log_t_interval`, so
a lower bound never goes below 0). The goal is

* **met** when the bound on the goal's side clears it (``<``: the upper bound is below),
* **missed** when the other bound is on the wrong side (``<``: the lower bound is at or above),
* **undecided** otherwise (the interval holds the bound; more invocations may decide).

The caller looks after each round of invocations, at most ``looks`` times. Each look spends
``alpha / looks`` of the error on each side (Bonferroni), so over the whole sequence the
chance of calling "met" for a mean that does not meet the goal (or "missed" for one that
does) stays at most ``alpha`` = 5% for normal values: the seeded simulation in
``tests/size/test_rightsize_pure.py`` checks it at the boundary. With 2 values a t bound is
wide (its quantile at 1 degree of freedom is large), as it must be.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from jvmlab.analyze.smallsample import log_t_interval, t_interval

ALPHA = 0.05
COMPARISONS = ("<=", ">=", "<", ">")


class GoalVerdict(StrEnum):
    MEETS = "meets"
    MISSES = "misses"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class GoalCheck:
    """One goal on one candidate's values: the mean, the one-sided bounds used (each at
    1 - alpha/looks), a plain two-sided 95% interval for display, and the verdict."""

    n: int
    mean: float | None
    lower: float | None
    upper: float | None
    ci95: tuple[float, float] | None
    verdict: GoalVerdict


def one_sided_level(looks: int, alpha: float = ALPHA) -> float:
    """The two-sided level whose ends are one-sided (1 - alpha / looks) bounds."""
    return 1.0 - 2.0 * alpha / max(1, looks)


def _interval(x: np.ndarray, level: float, never_negative: bool) -> tuple[float, float] | None:
    if x.size >= 2 and float(x.std(ddof=1)) == 0.0:
        value = float(x.mean())
        return (value, value)
    if never_negative:
        found = log_t_interval(x, level)
        if found is not None or float(x.mean()) > 0:
            return found
        return (0.0, 0.0) if not x.any() else None
    return t_interval(x, level)


def check_goal(values: Sequence[float], comparison: str, bound: float, *, looks: int,
               never_negative: bool, alpha: float = ALPHA) -> GoalCheck:
    """The verdict of ``mean <comparison> bound`` on ``values`` at one of ``looks`` looks."""
    if comparison not in COMPARISONS:
        raise ValueError(f"unknown comparison {comparison!r}")
    x = np.asarray([v for v in values if math.isfinite(v)], dtype=np.float64)
    if x.size == 0:
        return GoalCheck(0, None, None, None, None, GoalVerdict.UNDECIDED)
    mean = float(x.mean())
    bounds = _interval(x, one_sided_level(looks, alpha), never_negative)
    ci95 = _interval(x, 0.95, never_negative)
    if bounds is None:
        return GoalCheck(int(x.size), mean, None, None, ci95, GoalVerdict.UNDECIDED)
    lower, upper = bounds
    return GoalCheck(int(x.size), mean, lower, upper, ci95, _verdict(lower, upper, comparison, bound))


def _verdict(lower: float, upper: float, comparison: str, bound: float) -> GoalVerdict:
    if comparison == "<":
        met, missed = upper < bound, lower >= bound
    elif comparison == "<=":
        met, missed = upper <= bound, lower > bound
    elif comparison == ">":
        met, missed = lower > bound, upper <= bound
    else:
        met, missed = lower >= bound, upper < bound
    return GoalVerdict.MEETS if met else GoalVerdict.MISSES if missed else GoalVerdict.UNDECIDED
