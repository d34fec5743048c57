"""How sure a change of a frame's share is: a bootstrap over invocations.

Within one JVM, samples are not independent (a phase, a JIT decision, a GC storm moves many
at once), so the unit of resampling is the invocation: each cell's invocations are drawn
with replacement, the pooled share (frame weight over all weight, the estimate the tables
show) is recomputed for both cells, and the 2.5th and 97.5th percentiles of the difference
form the interval (Efron and Tibshirani 1993, ch. 13), at the level widened for small
samples as everywhere in jvmlab (Hesterberg's expanded percentile interval, see
:func:`jvmlab.analyze.bootstrap.expanded_level`). It needs at least two invocations
in each cell; with fewer the interval is None (not measured), never a made-up width.
"""

from __future__ import annotations

import numpy as np

from jvmlab.analyze.bootstrap import expanded_level

RESAMPLES = 2000


def run_weights(runs: list[dict[str, float]], frame: str) -> tuple[np.ndarray, np.ndarray]:
    """(weight of stacks with ``frame``, total weight) per invocation."""
    with_frame = [sum(w for s, w in run.items() if frame in s.split(";")) for run in runs]
    totals = [sum(run.values()) for run in runs]
    return np.asarray(with_frame, dtype=float), np.asarray(totals, dtype=float)


def _pooled_boot(frame_w: np.ndarray, total_w: np.ndarray, rng: np.random.Generator, n_boot: int) -> np.ndarray:
    idx = rng.integers(0, frame_w.size, size=(n_boot, frame_w.size))
    totals = total_w[idx].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(totals > 0, frame_w[idx].sum(axis=1) / totals, np.nan)


def share_change_interval(base_runs: list[dict[str, float]], cell_runs: list[dict[str, float]], frame: str,
                          rng: np.random.Generator, n_boot: int = RESAMPLES) -> tuple[float, float] | None:
    """95% percentile interval of (pooled share in the cell - pooled share in the baseline)."""
    if len(base_runs) < 2 or len(cell_runs) < 2:
        return None
    bf, bt = run_weights(base_runs, frame)
    cf, ct = run_weights(cell_runs, frame)
    diff = _pooled_boot(cf, ct, rng, n_boot) - _pooled_boot(bf, bt, rng, n_boot)
    diff = diff[np.isfinite(diff)]
    if diff.size < n_boot // 2:
        return None
    tail = (1.0 - expanded_level(min(len(base_runs), len(cell_runs)))) / 2.0 * 100
    low, high = np.percentile(diff, [tail, 100.0 - tail])
    return float(low), float(high)
