"""How much a busy machine or a drift could have moved a ratio: a margin a verdict must clear.

Why: a run during which other processes were busy, or whose cells drifted across blocks,
used to have every significant comparison withheld ("not called a difference"), even
"9.4x slower (95% CI 6.9-12.6x)" when the busy blocks could at most have made a JVM some
tens of percent slower. An effect far larger than anything the interference could produce
is real; one that is not is withheld. So instead of a veto, an estimate:

* **busy blocks**: a block during which other processes used a share ``s`` of the machine's
  CPU could have slowed an invocation by at most ``1 / (1 - s)`` (the CPU left to it), and
  by no more than the block itself shows: its **own spread**, the largest
  ``|log(cell's mean in the block / the cell's median over blocks)|`` over the cells (a
  block that ran everything 30% slow shows 30%, whatever share was recorded). Each busy
  block's factor is the larger of the two (``BlockLoad.factor``); a quiet block's is 1.
  Steal time, when a caller records it, counts as CPU taken by others (added to ``s``).
  The worst case for a ratio of means over blocks is that the whole slowdown fell on one
  side of the comparison in every busy block, which moves the ratio by the blocks' mean
  factor: ``margin = 1 + sum(factor - 1) / n_blocks`` (:func:`busy_margin`);
* **drift**: a trend the two cells share (the machine drifting) cancels in a ratio but for
  the time between their slots, less than one block: at most ``max |slope|``. A trend of the
  ratio itself (``slope_cell - slope_baseline``) makes the run's average ratio differ from the
  one at its start by up to half the run's trend, ``|slope_cell - slope_baseline| x
  (n_blocks - 1) / 2``. ``drift_margin`` is 1 plus both: a drift of -0.70% per block cannot
  explain a 96% difference; a cell that climbs 1% per block from the baseline's level can
  explain its whole 7% "difference" over 15 blocks;
* **the call**: a significant comparison is called when its 95% CI lies wholly beyond the
  combined margin (``busy x drift``, the same on both sides, :func:`clears`); otherwise it
  is withheld, saying the margin. When enough blocks were quiet
  (``QUIET_BLOCKS_ENOUGH``, the paired test's own minimum), the results layer analyses the
  quiet blocks alone instead and says so (:mod:`jvmlab.results.compare`).

The margin is a worst case, so it costs power only on disturbed runs and only for effects
near it; the seeded simulation (``tests/results/test_interference_simulation.py``, figures
in docs/statistics.md "Busy machines and drift") injects busy blocks that slow random
invocations and a per-block drift and checks false calls <= 5% and a 2x effect called in
>= 90% of runs. Pure: numbers in, numbers out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from jvmlab.analyze.model import Clean, Interval

MAX_SHARE = 0.9  # a recorded share above this is taken as 90%: a factor of at most 10x per block
QUIET_BLOCKS_ENOUGH = 8  # the paired comparison's own minimum of blocks (compare.MIN_PAIRED_BLOCKS)


@dataclass(frozen=True)
class BlockLoad:
    """What disturbed one measured block: other processes' share of the CPU (0-1), steal
    (0-1, None when not recorded) and the block's own spread (a factor >= 1)."""

    block: int
    other_share: float | None
    steal_share: float | None = None
    spread_factor: float = 1.0

    @property
    def factor(self) -> float:
        """The most this block could have slowed one invocation (>= 1)."""
        taken = (self.other_share or 0.0) + (self.steal_share or 0.0)
        return max(1.0 / (1.0 - min(max(taken, 0.0), MAX_SHARE)), self.spread_factor, 1.0)


def block_spread(values: Mapping[str, Clean], block: int) -> float:
    """The block's own spread as a factor: the largest ``exp|log(mean in block / median of
    the cell's block means)|`` over cells with values there and in 2+ blocks (1 when none)."""
    worst = 0.0
    for data in values.values():
        if data.blocks is None or data.values.size == 0:
            continue
        ids = np.unique(data.blocks)
        if ids.size < 2 or block not in ids:
            continue
        means = np.array([data.values[data.blocks == b].mean() for b in ids])
        centre = float(np.median(means))
        here = float(means[int(np.searchsorted(ids, block))])
        if centre > 0 and here > 0:
            worst = max(worst, abs(math.log(here / centre)))
    return math.exp(worst)


def block_loads(busy: Iterable[tuple[int, float | None, float | None]],
                values: Mapping[str, Clean]) -> tuple[BlockLoad, ...]:
    """One :class:`BlockLoad` per busy block ``(block id, other processes' share 0-1 or None,
    steal share 0-1 or None)``, each with its own spread read from ``values``; a block named
    twice keeps the larger of each share."""
    shares: dict[int, tuple[float | None, float | None]] = {}
    for block, share, steal in busy:
        old = shares.get(block)
        shares[block] = (share, steal) if old is None else (_larger(old[0], share), _larger(old[1], steal))
    return tuple(BlockLoad(b, s, t, block_spread(values, b)) for b, (s, t) in sorted(shares.items()))


def _larger(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


def busy_margin(loads: Sequence[BlockLoad], n_blocks: int) -> float:
    """The most the busy blocks could have moved a ratio of means over ``n_blocks`` blocks:
    ``1 + sum(factor - 1) / n_blocks`` (1 when nothing was busy)."""
    if not loads or n_blocks <= 0:
        return 1.0
    return 1.0 + sum(load.factor - 1.0 for load in loads) / max(n_blocks, len(loads))


def drift_margin(slope_cell: float | None, slope_baseline: float | None, n_blocks: int) -> float:
    """The most drifts of the cell and the baseline (fractions of their level per block; None:
    not measured, taken as 0) could have moved the ratio of their means over ``n_blocks``
    blocks: ``1 + max(|s_c|, |s_b|) + |s_c - s_b| x (n_blocks - 1) / 2``."""
    sc = slope_cell if slope_cell is not None and math.isfinite(slope_cell) else 0.0
    sb = slope_baseline if slope_baseline is not None and math.isfinite(slope_baseline) else 0.0
    return 1.0 + max(abs(sc), abs(sb)) + abs(sc - sb) * max(n_blocks - 1, 0) / 2.0


def clears(ci: Interval | None, margin: float) -> bool:
    """The interval lies wholly beyond ``margin`` on one side (above it, or below 1/margin)."""
    return ci is not None and (ci[0] > margin or ci[1] < 1.0 / margin)
