"""The smallest p-value a planned design can produce, before anything runs.

A permutation test can only give p-values that are multiples of one over the number of
relabellings: with 3 invocations per cell (unpaired) there are C(6, 3) = 20 ways to split
the six values, two of them as extreme as the most extreme data, so p >= 2/20 = 0.1 however
large the difference. Holm across m comparisons needs ``m * p < alpha`` for the first
rejection, so 5 comparisons at 3 invocations can never be significant. This module gives
those floors for exactly the tests :mod:`jvmlab.analyze.compare` runs (paired by block from
``MIN_PAIRED_BLOCKS`` common blocks, all 2^K label swaps up to ``EXACT_FLIP_LIMIT`` blocks,
Monte-Carlo p-values ``(1 + hits) / (1 + P)`` beyond), so a plan can be checked against
them (:mod:`jvmlab.plan.power`).
"""

from __future__ import annotations

import math

from jvmlab.analyze.compare import DEFAULT_PERMUTATIONS, EXACT_FLIP_LIMIT, MIN_PAIRED_BLOCKS
from jvmlab.analyze.model import Correction

MAX_BLOCKS_SEARCHED = 10_000  # no loop runs forever: a design that needs more is hopeless anyway


def smallest_p_value(blocks: int, n_perm: int = DEFAULT_PERMUTATIONS) -> float:
    """Smallest two-sided p-value of one comparison when both cells have ``blocks`` values
    (one invocation per cell per block), for the most extreme possible data.

    Paired (``blocks >= MIN_PAIRED_BLOCKS``): 2 of the 2^K sign flips are as extreme
    (the identity and the full swap). Unpaired: 2 of the C(2n, n) relabellings (the
    split and its mirror image). When the test is Monte-Carlo (more arrangements than
    permutations drawn), the p-value is ``(1 + hits) / (1 + P)`` with on average
    ``P * 2 / arrangements`` hits: never below ``1 / (1 + P)``.
    """
    if blocks < 2:
        return 1.0
    if blocks >= MIN_PAIRED_BLOCKS:
        arrangements = 2.0**blocks
        exact = blocks <= EXACT_FLIP_LIMIT and arrangements <= n_perm
    else:
        arrangements = float(math.comb(2 * blocks, blocks))
        exact = False  # the unpaired test always draws random relabellings
    share = 2.0 / arrangements
    if exact:
        return share
    return (1.0 + n_perm * share) / (1.0 + n_perm)


def smallest_adjusted(p: float, comparisons: int, correction: Correction = "holm") -> float:
    """The smallest adjusted p-value when every one of ``comparisons`` tests gives ``p``.

    Holm multiplies the smallest p-value by m; Benjamini-Hochberg, when all m p-values
    are equal, leaves them at p (its best case). Either way this is the most favourable
    outcome: if it is not below alpha, nothing in the experiment can be significant.
    """
    if comparisons <= 0:
        return p
    return min(1.0, p * comparisons) if correction == "holm" else p


def reachable(blocks: int, comparisons: int, alpha: float = 0.05, correction: Correction = "holm",
              n_perm: int = DEFAULT_PERMUTATIONS) -> bool:
    """Whether any data at all could give a significant result with this many blocks."""
    return smallest_adjusted(smallest_p_value(blocks, n_perm), comparisons, correction) < alpha


def blocks_needed(comparisons: int, alpha: float = 0.05, correction: Correction = "holm",
                  n_perm: int = DEFAULT_PERMUTATIONS) -> int | None:
    """The fewest blocks from which on a significant result is possible (for this count
    and every larger one), or None when no count up to ``MAX_BLOCKS_SEARCHED`` will do.

    "From which on" matters: the floor is not monotone in the number of blocks. At
    ``MIN_PAIRED_BLOCKS`` the test switches to pairing, whose 2^K sign flips are far fewer
    than the C(2n, n) relabellings of an unpaired test: at 7 blocks the unpaired floor is
    about 0.0008, at 8 paired blocks it is 2/256 = 0.0078. So 10 comparisons under Holm are
    reachable at 6-7 blocks, not at 8, and again from 9 on; adding blocks (``--until``)
    must not fall into such a gap.
    """
    paired_from = None
    for blocks in range(MIN_PAIRED_BLOCKS, MAX_BLOCKS_SEARCHED + 1):  # decreasing floor from here on
        if reachable(blocks, comparisons, alpha, correction, n_perm):
            paired_from = blocks
            break
        if blocks > EXACT_FLIP_LIMIT and smallest_p_value(blocks, n_perm) <= 1.001 / (1.0 + n_perm):
            return None  # the Monte-Carlo floor 1/(1+P) itself is too high for this family
    if paired_from is None:
        return None
    if paired_from > MIN_PAIRED_BLOCKS:
        return paired_from
    first = paired_from
    for blocks in range(MIN_PAIRED_BLOCKS - 1, 1, -1):  # unpaired floors also fall with n
        if not reachable(blocks, comparisons, alpha, correction, n_perm):
            break
        first = blocks
    return first
