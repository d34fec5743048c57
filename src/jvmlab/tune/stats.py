"""Paired statistics on per-block log ratios: the racing test and the confirmation CI.

Within a block the candidate and the incumbent run back to back in random order, so the
block's log ratio cancels what drifted between blocks. Racing uses Student's t on those
ratios (conservative for few blocks); confirmation resamples blocks (paired bootstrap by
block, as `analyze` does for `run`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

Z_CONF = 0.95
# Values below this (in the metric's unit) count as this much on the log scale: a collector's
# metric can be 0 (no GC pause at all), and log(0) would make one block decide a race alone.
LOG_FLOOR = 1e-3


def log_value(x: float) -> float:
    """The log a paired ratio is built from, with zero floored (see LOG_FLOOR)."""
    return math.log(max(x, LOG_FLOOR))


def t_interval(diffs: Sequence[float] | np.ndarray, conf: float = Z_CONF) -> tuple[float, float]:
    """``conf`` (95%) t interval of the mean of per-block log ratios (needs 2+ blocks)."""
    d = np.asarray(diffs, dtype=float)
    if d.size < 2:
        return (-math.inf, math.inf)
    half = stats.t.ppf(0.5 + conf / 2, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    return (float(d.mean() - half), float(d.mean() + half))


def bootstrap_ratio(diffs: Sequence[float], seed: int, resamples: int = 4000) -> tuple[float, tuple[float, float]]:
    """Ratio (geometric mean of paired ratios) and its 95% percentile CI, blocks resampled."""
    d = np.asarray(diffs, dtype=float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, d.size, size=(resamples, d.size))
    means = d[idx].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - Z_CONF) / 2, (1 + Z_CONF) / 2])
    # a bootstrap of few blocks is too narrow: never narrower than the t interval
    tlo, thi = t_interval(d)
    return float(math.exp(d.mean())), (float(math.exp(min(lo, tlo))), float(math.exp(max(hi, thi))))


def stein_blocks(first: Sequence[float], target_half_log: float, conf: float = Z_CONF) -> int:
    """Stein's two-stage rule: the blocks needed so that a ``conf`` interval of the mean log
    ratio has half-width ``target_half_log``, from the spread of the first stage's blocks.
    Unlike stopping when the running CI first looks narrow (which stops on a lucky small
    spread, and then undercovers), the second stage's size is fixed by the first stage alone,
    so the interval below has its nominal coverage for normal block ratios."""
    d = np.asarray(first, dtype=float)
    if d.size < 2:
        raise ValueError("Stein's rule needs a first stage of 2 or more blocks")
    t = stats.t.ppf(0.5 + conf / 2, d.size - 1)
    return max(int(d.size), math.ceil(float((t * d.std(ddof=1) / target_half_log) ** 2)))


def stein_interval(diffs: Sequence[float], first_n: int, conf: float = Z_CONF) -> tuple[float, float]:
    """Stein's interval of the mean log ratio: the mean of all ``diffs``, the spread of the
    first ``first_n`` (the stage that fixed the sample size), t with ``first_n - 1`` df."""
    d = np.asarray(diffs, dtype=float)
    s0 = np.asarray(d[:first_n]).std(ddof=1)
    half = stats.t.ppf(0.5 + conf / 2, first_n - 1) * s0 / math.sqrt(d.size)
    return (float(d.mean() - half), float(d.mean() + half))
