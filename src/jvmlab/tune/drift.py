"""Did the machine drift while a trial was measured? A check over the blocks of one race.

Paired blocks cancel what is common to both runs of a block, but a promotion decided while
the machine changed under the race (a neighbour started, the CPU throttled, a JDK update
landed) rests on blocks that do not measure the same thing: the incumbent's level moved, or
the candidate's advantage did. Two series are checked, each block one point:

- the *level*: the block's mean log value of the pair (what the machine does to both);
- the *difference*: the block's paired log ratio (what the race decides on).

On each, a linear trend (the t test of the least-squares slope against block order) and a
single step change (the best split's two-sample t, Bonferroni-corrected over the splits, as
a binary-segmentation change-point test does for its first cut). Each series' own residual
spread is the noise, so random block-to-block jitter is not drift; only a systematic move
is. A move must also be large (``MIN_SHIFT``) to count: a 0.5% trend with a tiny spread is
significant and harmless. Fewer than ``MIN_BLOCKS`` blocks: no verdict (None).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

MIN_BLOCKS = 6  # a step needs 3 blocks on each side to be told from noise
ALPHA = 0.01  # per test; 4 tests (2 series x trend/step): about 4% false alarms at most
MIN_SHIFT = 0.03  # 3% over the trial (on the log scale): smaller moves are not flagged


@dataclass(frozen=True)
class Drift:
    series: str  # "level" or "difference"
    kind: str  # "trend" or "step"
    shift: float  # the size of the move, as a ratio - 1 (0.2 = 20% up)
    p_value: float
    at_block: int | None = None  # a step: the first block after it (0-based within the trial)

    def text(self) -> str:
        where = f" after block {self.at_block}" if self.at_block is not None else " over the trial"
        what = "the machine's level" if self.series == "level" else "the candidate/incumbent ratio"
        return f"{what} moved {self.shift:+.0%} ({self.kind}{where}, p = {self.p_value:.2g})"


def _trend(x: np.ndarray) -> tuple[float, float]:
    """Total move over the series (log scale) and the two-sided p of the slope's t test."""
    n = x.size
    t = np.arange(n, dtype=float)
    fit = stats.linregress(t, x)
    if not math.isfinite(fit.stderr) or fit.stderr == 0.0:
        return float(fit.slope * (n - 1)), (0.0 if fit.slope != 0.0 else 1.0)
    return float(fit.slope * (n - 1)), float(fit.pvalue)


def _step(x: np.ndarray) -> tuple[float, float, int]:
    """The best single split: its move (log scale), Bonferroni p over the splits, where."""
    n = x.size
    best = (0.0, 1.0, 0)
    for k in range(2, n - 1):  # at least 2 blocks on each side
        a, b = x[:k], x[k:]
        resid = np.concatenate([a - a.mean(), b - b.mean()])
        sd = math.sqrt(float(resid @ resid) / (n - 2))
        move = float(b.mean() - a.mean())
        if sd == 0.0:
            p = 0.0 if move != 0.0 else 1.0
        else:
            tstat = move / (sd * math.sqrt(1 / k + 1 / (n - k)))
            p = float(2 * stats.t.sf(abs(tstat), n - 2))
        p = min(1.0, p * (n - 3))
        if p < best[1]:
            best = (move, p, k)
    return best


def block_drift(candidate: Sequence[float], incumbent: Sequence[float]) -> Drift | None:
    """The clearest drift over a race's blocks (per-block objective values of the pair,
    in block order), None when there is none or too few blocks to tell."""
    c = np.log(np.maximum(np.asarray(candidate, dtype=float), 1e-3))
    i = np.log(np.maximum(np.asarray(incumbent, dtype=float), 1e-3))
    if c.size < MIN_BLOCKS or c.size != i.size:
        return None
    found: list[Drift] = []
    for series, x in (("level", (c + i) / 2), ("difference", c - i)):
        move, p = _trend(x)
        if p < ALPHA and abs(move) >= MIN_SHIFT:
            found.append(Drift(series, "trend", math.expm1(move), p))
        move, p, k = _step(x)
        if p < ALPHA and abs(move) >= MIN_SHIFT:
            found.append(Drift(series, "step", math.expm1(move), p, k))
    return min(found, key=lambda d: d.p_value) if found else None  # the clearest account
