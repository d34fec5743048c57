"""Difference of two cells' means with a bootstrap interval (for "+0.15 s per GB" verdicts).

Same resampling as the ratio in :mod:`jvmlab.analyze.compare`: whole blocks when the two
cells share blocks (so a slow moment of the machine that hits both cancels out), else each
cell independently; a BCa interval at Hesterberg's expanded level for small samples.
"""

from __future__ import annotations

import numpy as np

from jvmlab.analyze.bootstrap import (
    DEFAULT_RESAMPLES,
    acceleration,
    bca_interval,
    expanded_level,
    jackknife_means,
    resample_means,
)
from jvmlab.analyze.compare import BlockSums, block_sums
from jvmlab.analyze.model import Clean, Interval
from jvmlab.analyze.smallsample import MEAN_BCA_FROM_N, diff_t_interval


def _paired_difference(s: BlockSums, idx: np.ndarray | slice) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        cell = s.cell_sum[idx].sum(axis=-1) / s.cell_n[idx].sum(axis=-1)
        base = s.base_sum[idx].sum(axis=-1) / s.base_n[idx].sum(axis=-1)
    return np.asarray(cell - base, dtype=float)


def mean_difference(cell: Clean, base: Clean, rng: np.random.Generator,
                    n_boot: int = DEFAULT_RESAMPLES) -> tuple[float | None, Interval | None]:
    """mean(cell) - mean(base) and its 95% BCa bootstrap interval (None when n < 2)."""
    a, b = cell.values, base.values
    if a.size == 0 or b.size == 0:
        return None, None
    paired = block_sums(cell, base)
    if paired is not None:
        diff = float(_paired_difference(paired, slice(None)))
        k = paired.n_blocks
        boot = _paired_difference(paired, rng.integers(0, k, size=(n_boot, k)))
        with np.errstate(divide="ignore", invalid="ignore"):
            jk = ((paired.cell_sum.sum() - paired.cell_sum) / (paired.cell_n.sum() - paired.cell_n)
                  - (paired.base_sum.sum() - paired.base_sum) / (paired.base_n.sum() - paired.base_n))
        accel = acceleration([jk]) if np.all(np.isfinite(jk)) else 0.0
        return diff, bca_interval(diff, boot, accel, expanded_level(k))
    diff = float(a.mean() - b.mean())
    if a.size < 2 or b.size < 2:
        return diff, None
    if min(a.size, b.size) < MEAN_BCA_FROM_N:  # the bootstrap under-covers here: Welch t
        return diff, diff_t_interval(a, b)
    boot = resample_means(a, rng, n_boot) - resample_means(b, rng, n_boot)
    accel = acceleration([jackknife_means(a) - b.mean(), a.mean() - jackknife_means(b)])
    return diff, bca_interval(diff, boot, accel, expanded_level(min(a.size, b.size)))
