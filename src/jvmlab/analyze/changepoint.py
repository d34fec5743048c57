"""Change points in a series of labels (commits, JDK builds), each label with its own runs.

The method is binary segmentation with a permutation test, as in E-divisive (Matteson and
James 2014, "A nonparametric approach for multiple change point analysis of multivariate
data") and Apache Otava, but the statistic knows each point's uncertainty, which a tool that
sees one number per label cannot:

- each label is its mean over its runs with the variance of that mean (``s^2/n`` from the
  runs; a label with one run borrows the pooled within-label variance);
- labels also differ by more than their runs say (another day, another machine state): that
  between-label variance ``tau^2`` is estimated from the first differences of the label means
  (a median, so a few steps do not inflate it), and each label is weighted by
  ``1 / (se^2 + tau^2)``: a label of few, scattered runs counts less than a tight one;
- the statistic for a split is the weighted two-sample t (difference of the weighted segment
  means over its standard error, with the dispersion pooled over both sides); the candidate is
  the split that maximizes it;
- its p-value comes from permuting whole labels (mean and weight together) inside the
  segment: under "no change" the labels are exchangeable, so the test is valid whatever the
  noise's shape or the between-label variance. Permutations stop early once 10 exceed the
  observed statistic (Besag and Clifford 1991): a flat segment costs few.

Segments of at least ``min_labels`` (2) labels: one label on its own cannot tell a change from
an outlier. A newest label that differs from the segment before it is reported as a ``tail``
(the gate says ``inconclusive``). After splitting, each change point is re-tested on the two
segments beside it and the weakest above ``alpha`` is dropped until all pass (Otava's merge
step, with our test in place of its t-test on means).

Each change's magnitude is the ratio of the weighted means after/before with a 95% interval
on the log scale (t with the two segments' label count less 2 degrees of freedom), so the
interval of a ratio of positive means is never negative. The interval ignores that the split
was chosen to maximize the difference; for steps the test finds easily the bias is small.

Claims and the tests behind them (``tests/analyze/test_changepoint.py``): a step of 3 noise
sd with 5+ labels each side is found in >= 90% of seeded series, within one label of where it
is; a flat series of 50 labels gives a false alarm in <= 5%; the cross-check against Otava on
the same series is ``tests/analyze/test_changepoint_otava.py``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

ALPHA = 0.02
PERMUTATIONS = 999
EXCEEDANCES_TO_STOP = 10
MIN_LABELS = 2
WINDOW = 30
PRIOR_DOF = 8.0  # how many runs' worth of trust the pooled within-label variance gets
# Below this many labels the median of the first differences (between_label_var) is too noisy to
# be the series' own between-label spread on its own: the stated between-run spread
# (analyze.interference.BETWEEN_RUN_PRIOR, or --between-run-sd) is its floor.
OWN_SPREAD_LABELS = 8
TAIL_PREVIOUS_P = 0.05  # the newest label "stands alone" only if it differs from the previous at this level


@dataclass(frozen=True)
class LabelStats:
    """One label's runs summarized: mean, the variance of that mean, and the count."""

    n_runs: int
    mean: float
    var_of_mean: float | None  # None: one run, and no other label to borrow a variance from


@dataclass(frozen=True)
class Change:
    """A change point: the segment starting at label ``index`` differs from the one before."""

    index: int
    before_mean: float
    after_mean: float
    ratio: float | None  # after / before; None when a mean is not positive
    ci95: tuple[float, float] | None
    p_value: float
    before_labels: int
    after_labels: int


@dataclass(frozen=True)
class Tail:
    """The newest label against the segment before it, when it stands alone (too short to tell)."""

    ratio: float | None
    ci95: tuple[float, float] | None
    p_value: float


@dataclass(frozen=True)
class Segmentation:
    labels: tuple[LabelStats, ...]
    changes: tuple[Change, ...]
    tau: float  # between-label sd, in the metric's unit
    p_no_change: float | None  # the whole series' test when no change was found (None: too short)
    tail: Tail | None  # the newest label differs from its segment but stands alone
    # the stated between-run spread (a fraction of the level per run) when it, not the series' own
    # spread, set ``tau`` (fewer than OWN_SPREAD_LABELS labels); None: the series' own spread
    tau_prior: float | None = None

    @property
    def segments(self) -> list[tuple[int, int]]:
        """[start, stop) label ranges between the change points."""
        cuts = [0, *[c.index for c in self.changes], len(self.labels)]
        return list(itertools.pairwise(cuts))


def label_stats(runs: Sequence[Sequence[float]]) -> list[LabelStats]:
    """Mean and variance of the mean of each label's runs.

    A variance from a few runs is itself noisy, and weighting by its inverse trusts the labels
    whose runs happened to agree (with 4 degrees of freedom, E[sigma^2/s^2] = 2): each label's
    variance is moderated towards the pooled within-label variance as if the pool were
    ``PRIOR_DOF`` more runs (Smyth 2004, the moderated variance of limma). A label of one run
    takes the pooled variance; a label whose runs are far apart keeps most of its spread."""
    sizes = np.array([len(r) for r in runs])
    if sizes.size == 0:
        return []
    if np.any(sizes == 0):
        raise ValueError("a label without runs has no mean")
    values = np.concatenate([np.asarray(r, dtype=float) for r in runs])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    means = np.add.reduceat(values, starts) / sizes
    ss = np.add.reduceat((values - np.repeat(means, sizes)) ** 2, starts)
    dof = np.maximum(sizes - 1, 0)
    pooled = float(ss[dof > 0].sum() / dof.sum()) if dof.sum() else None
    out = []
    for n, mean, s2, d in zip(sizes.tolist(), means.tolist(), ss.tolist(), dof.tolist(), strict=True):
        var = None if pooled is None else (PRIOR_DOF * pooled + s2) / (PRIOR_DOF + d)
        out.append(LabelStats(n, mean, None if var is None else var / n))
    return out


def between_label_var(labels: Sequence[LabelStats]) -> float:
    """tau^2 from the first differences of the label means, robust to a few steps:
    Var(m_i - m_{i-1}) = se_i^2 + se_{i-1}^2 + 2 tau^2, the left side from the median |difference|."""
    if len(labels) < 3:
        return 0.0
    means = np.array([s.mean for s in labels])
    var_d = (np.median(np.abs(np.diff(means))) / 0.6744897501960817) ** 2
    se2 = np.array([s.var_of_mean or 0.0 for s in labels])
    return float(max(0.0, (var_d - np.median(se2[1:] + se2[:-1])) / 2.0))


def _weights(labels: Sequence[LabelStats], tau2: float) -> np.ndarray:
    v = np.array([(s.var_of_mean or 0.0) + tau2 for s in labels])
    if not np.any(v > 0):
        ones: np.ndarray = np.ones(len(labels))
        return ones
    floor = np.min(v[v > 0]) * 1e-6  # a zero-variance label (identical runs) weighs much, not infinitely
    weights: np.ndarray = 1.0 / np.maximum(v, floor)
    return weights


def split_statistics(x: np.ndarray, w: np.ndarray, min_labels: int = MIN_LABELS) -> np.ndarray:
    """The squared weighted two-sample t of every split of each row of ``x`` (labels in
    columns): column j is the split with ``min_labels + j`` labels on the left. Rows are
    permutations. Squared: the order is what matters, and a square root costs."""
    n = x.shape[1]
    center = (x * w).sum(axis=1, keepdims=True) / w.sum(axis=1, keepdims=True)
    xc = x - center  # centering avoids cancellation in the sums of squares
    wx = w * xc
    cw, cs, total_ss = np.cumsum(w, axis=1), np.cumsum(wx, axis=1), (wx * xc).sum(axis=1, keepdims=True)
    lo, hi = min_labels - 1, n - min_labels
    wl, sl = cw[:, lo:hi], cs[:, lo:hi]
    wr, sr = cw[:, -1:] - wl, -sl  # the centered sums add up to zero
    # The dispersion around the two segment means, never below 1: the weights already carry
    # each label's variance (its runs, plus tau^2), so a split that fits better than they say
    # is not more sure; a permutation that mixes the segments is judged by its own spread.
    within = total_ss - sl * sl / wl - sr * sr / wr
    phi = np.maximum(within / max(n - 2, 1), 1.0)
    diff = sl / wl - sr / wr
    squared: np.ndarray = diff * diff / (phi * (1.0 / wl + 1.0 / wr))
    return squared


def permutation_count(n_labels: int) -> int:
    """More permutations for short series (cheap, and their p-values sit near alpha), fewer
    for long ones (each costs n_labels): 999 up to 100 labels, 199 at 500, 99 from 1,000 on
    (p down to 0.01, still below alpha; a gate re-tests with more, ``retest``)."""
    return int(min(PERMUTATIONS, max(99, 100_000 // max(n_labels, 1))))


def permutation_p(x: np.ndarray, w: np.ndarray, observed: float, rng: np.random.Generator,
                  permutations: int | None = None, min_labels: int = MIN_LABELS,
                  accept_below: float | None = None) -> float:
    """P(max split statistic >= observed) over permutations of whole labels; stops early after
    ``EXCEEDANCES_TO_STOP`` exceedances (the p-value is then exceedances / permutations done),
    and, with ``accept_below``, once 99+ permutations put p at or below it (a search that only
    needs to know "significant": the reported p-values are re-tested in full)."""
    n, done, exceed = x.size, 0, 0
    total = permutations or permutation_count(n)
    batch = max(10, min(200, 20_000 // max(n, 1)))
    while done < total:
        size = min(batch, total - done)
        order = rng.permuted(np.broadcast_to(np.arange(n), (size, n)), axis=1)
        t = split_statistics(x[order], w[order], min_labels).max(axis=1)
        exceed += int(np.sum(t >= observed * (1 - 1e-12)))
        done += size
        if exceed >= EXCEEDANCES_TO_STOP:
            return exceed / done
        if accept_below is not None and done >= 99 and (exceed + 1) / (done + 1) <= accept_below:
            break
    return (exceed + 1) / (done + 1)


def _best_split(x: np.ndarray, w: np.ndarray, min_labels: int) -> tuple[int, float]:
    t = split_statistics(x[None, :], w[None, :], min_labels)[0]
    j = int(np.argmax(t))
    return min_labels + j, float(t[j])


def smallest_permutation_p(n: int) -> float:
    """The smallest p a permutation of ``n`` whole labels can give the best split: the most
    extreme arrangement and its mirror among the C(n, n/2) ways to fill a half-and-half split
    (8 labels: 2/70 = 0.029, above ``ALPHA``: a 4+4 step could never be found that way)."""
    return min(1.0, 2.0 / math.comb(n, n // 2)) if n >= 2 else 1.0


def split_t_p(t2: float, n: int, min_labels: int = MIN_LABELS) -> float:
    """The parametric p of the best split, for series too short for the permutation test to
    reach ``alpha``: the squared weighted t against Student's t with n - 2 degrees of freedom,
    two-sided, Bonferroni-corrected over the ``n - 2 min_labels + 1`` candidate splits (Otava's
    t-test on a split, made conservative for having picked the best one)."""
    splits = max(n - 2 * min_labels + 1, 1)
    one = float(special.stdtr(max(n - 2, 1), -math.sqrt(max(t2, 0.0))))
    return min(1.0, splits * 2.0 * one)


def _test(x: np.ndarray, w: np.ndarray, rng: np.random.Generator, permutations: int | None,
          min_labels: int, accept_below: float | None = None, alpha: float = ALPHA) -> tuple[int, float] | None:
    """(split, p) of the best split of one segment; None when too short to split. The p is
    the permutation test's, or the t-based one (:func:`split_t_p`) when no permutation of so few
    labels can reach ``alpha`` (an attainable test)."""
    if x.size < 2 * min_labels or x.size < 3:
        return None
    k, t = _best_split(x, w, min_labels)
    return k, _split_p(x, w, t, rng, permutations, min_labels, alpha, accept_below)


def segment(runs: Sequence[Sequence[float]], *, alpha: float = ALPHA, permutations: int | None = None,
            min_labels: int = MIN_LABELS, rng: np.random.Generator | None = None,
            prior_sd: float | None = None) -> Segmentation:
    """Change points of a series: ``runs[i]`` are label i's per-run values, labels in order.
    ``prior_sd``: the stated between-run spread (a fraction of the level per run), the floor of
    the between-label spread of a series of fewer than ``OWN_SPREAD_LABELS`` labels."""
    rng = rng or np.random.default_rng(0)
    labels = label_stats(runs)
    tau2 = between_label_var(labels)
    x = np.array([s.mean for s in labels])
    floor = (prior_sd * float(np.median(np.abs(x)))) ** 2 if prior_sd is not None and x.size else 0.0
    from_prior = len(labels) < OWN_SPREAD_LABELS and floor > tau2
    tau2 = floor if from_prior else tau2
    w = _weights(labels, tau2)
    cuts: set[int] = set()
    tested: dict[tuple[int, int], tuple[int, float]] = {}  # (start, stop) -> (cut, p): the merge reuses them
    for a, b in [(0, x.size), *_windows(x.size)]:
        cuts |= _bisect(x, w, a, b, rng, alpha, permutations, min_labels, tested)
    kept: list[int] = []
    for cut in sorted(cuts):  # two windows may place one change a label apart: keep the first
        if not kept or cut - kept[-1] >= min_labels:
            kept.append(cut)
    dropped: list[float] = []
    changes = _merge(kept, x, w, rng, alpha, permutations, min_labels, tested, dropped)
    # The p said for "no change" is the one that decided it: the last change the merge dropped,
    # else the whole series' first test (never a re-run with other permutations).
    first = tested.get((0, x.size))
    p_none = None if changes else dropped[-1] if dropped else first[1] if first else None
    return Segmentation(tuple(labels), tuple(changes), math.sqrt(tau2), p_none, _tail(x, w, changes, alpha),
                        prior_sd if from_prior else None)


def _windows(n: int) -> list[tuple[int, int]]:
    """Overlapping windows of WINDOW labels (half a window apart) over a longer series: a change
    that returns (up at label 15, back down at 30) hides from a split of the whole series, whose
    both sides mix levels; inside a window it stands alone (Otava splits in windows too)."""
    if n <= WINDOW:
        return []
    step = WINDOW // 2
    return [(a, min(a + WINDOW, n)) for a in range(0, n - step, step)]


def _bisect(x: np.ndarray, w: np.ndarray, a: int, b: int, rng: np.random.Generator, alpha: float,
            permutations: int | None, min_labels: int, tested: dict[tuple[int, int], tuple[int, float]]) -> set[int]:
    """Binary segmentation of labels [a, b): split where significant, then each side."""
    cuts: set[int] = set()
    pending = [(a, b)]
    while pending:
        lo, hi = pending.pop()
        found = _test(x[lo:hi], w[lo:hi], rng, permutations, min_labels, accept_below=alpha / 2, alpha=alpha)
        if found is not None:
            tested[(lo, hi)] = (lo + found[0], found[1])
        if found is not None and found[1] < alpha:
            cuts.add(lo + found[0])
            pending += [(lo, lo + found[0]), (lo + found[0], hi)]
    return cuts


def _merge(cuts: list[int], x: np.ndarray, w: np.ndarray, rng: np.random.Generator, alpha: float,
           permutations: int | None, min_labels: int,
           tested: dict[tuple[int, int], tuple[int, float]] | None = None,
           dropped: list[float] | None = None) -> list[Change]:
    """Re-place each cut where the two segments beside it split best, re-test it there; drop
    the weakest above alpha, repeat."""
    while True:
        changes = []
        for i in range(len(cuts)):
            a, b = cuts[i - 1] if i else 0, cuts[i + 1] if i + 1 < len(cuts) else x.size
            k, t = _best_split(x[a:b], w[a:b], min_labels)
            cut = cuts[i] = a + k
            known = (tested or {}).get((a, b))
            if known is not None and known[0] == cut:  # the search tested this very split already
                changes.append(_change(x, w, a, cut, b, known[1]))
                continue
            p = _split_p(x[a:b], w[a:b], t, rng, permutations, min_labels, alpha)
            changes.append(_change(x, w, a, cut, b, p))
        weakest = max(range(len(changes)), key=lambda i: changes[i].p_value, default=None)
        if weakest is None or changes[weakest].p_value < alpha:
            return changes
        if dropped is not None:
            dropped.append(changes[weakest].p_value)
        del cuts[weakest]


def _split_p(x: np.ndarray, w: np.ndarray, t: float, rng: np.random.Generator, permutations: int | None,
             min_labels: int, alpha: float, accept_below: float | None = None) -> float:
    """The p of a given split's statistic: permutation, or t-based when permutations cannot reach alpha."""
    if t <= 0:
        return 1.0
    if smallest_permutation_p(x.size) > alpha:
        return split_t_p(t, x.size, min_labels)
    return permutation_p(x, w, t, rng, permutations, min_labels, accept_below)


def _ratio_interval(x: np.ndarray, w: np.ndarray, left: slice, right: slice
                    ) -> tuple[float, float, float | None, tuple[float, float] | None]:
    """Weighted means before/after, their ratio and its 95% interval on the log scale."""
    xl, wl, xr, wr = x[left], w[left], x[right], w[right]
    ml, mr = float(np.average(xl, weights=wl)), float(np.average(xr, weights=wr))
    if ml <= 0 or mr <= 0:
        return ml, mr, None, None
    dof = xl.size + xr.size - 2
    ss = float(np.sum(wl * (xl - ml) ** 2) + np.sum(wr * (xr - mr) ** 2))
    phi = max(ss / dof, 1.0) if dof > 0 else 1.0  # as in split_statistics: never surer than the weights
    if dof <= 0:
        return ml, mr, mr / ml, None
    se_log = math.sqrt(phi * (1.0 / (wl.sum() * ml * ml) + 1.0 / (wr.sum() * mr * mr)))
    half = float(special.stdtrit(dof, 0.975)) * se_log
    ratio = mr / ml
    return ml, mr, ratio, (ratio * math.exp(-half), ratio * math.exp(half))


def _change(x: np.ndarray, w: np.ndarray, a: int, cut: int, b: int, p: float) -> Change:
    ml, mr, ratio, ci = _ratio_interval(x, w, slice(a, cut), slice(cut, b))
    return Change(cut, ml, mr, ratio, ci, p, cut - a, b - cut)


def _tail(x: np.ndarray, w: np.ndarray, changes: Sequence[Change],
          alpha: float) -> Tail | None:
    """The newest label against the rest of its segment: a z on its weight and the segment's
    (the between-label variance included); reported only when it differs (p < alpha)."""
    start = changes[-1].index if changes else 0
    if x.size - start < 2:
        return None
    rest = slice(start, x.size - 1)
    m_rest = float(np.average(x[rest], weights=w[rest]))
    var = 1.0 / w[-1] + 1.0 / float(w[rest].sum())
    if var <= 0 or not math.isfinite(var):
        return None
    z = (x[-1] - m_rest) / math.sqrt(var)
    p = float(2 * special.ndtr(-abs(z)))
    if p >= alpha:
        return None
    # "stands alone" only if the label before it differs from it too: a newest label that
    # repeats the one before is the start of a segment, not an outlier (said as no change yet)
    z_prev = (x[-1] - x[-2]) / math.sqrt(1.0 / w[-1] + 1.0 / w[-2])
    if float(2 * special.ndtr(-abs(z_prev))) >= TAIL_PREVIOUS_P:
        return None
    ratio = ci = None
    if m_rest > 0 and x[-1] > 0:
        ratio = float(x[-1] / m_rest)
        se_log = math.sqrt(1.0 / (w[-1] * x[-1] ** 2) + 1.0 / (float(w[rest].sum()) * m_rest ** 2))
        ci = (ratio * math.exp(-1.96 * se_log), ratio * math.exp(1.96 * se_log))
    return Tail(ratio, ci, p)


def retest(seg: Segmentation, which: int, permutations: int, rng: np.random.Generator,
           min_labels: int = MIN_LABELS) -> float:
    """The p-value of change ``which`` on the two segments beside it, with ``permutations``
    permutations (a gate corrected across many cells needs finer p-values than detection)."""
    change = seg.changes[which]
    a = seg.changes[which - 1].index if which else 0
    b = seg.changes[which + 1].index if which + 1 < len(seg.changes) else len(seg.labels)
    x = np.array([s.mean for s in seg.labels])[a:b]
    w = _weights(seg.labels, seg.tau ** 2)[a:b]
    t = float(split_statistics(x[None, :], w[None, :], min_labels)[0][change.index - a - min_labels])
    return _split_p(x, w, t, rng, permutations, min_labels, ALPHA)
