"""Statistics for runs spread over several machines (cluster nodes).

The machine is a blocking factor: every block runs whole on one node, so a cell and its baseline
are compared within a node, and the node-to-node spread is reported, not averaged away unseen.

Why a hierarchical (two-stage) bootstrap: blocks on one node share that node's offset, so they are
not independent draws from "the machines this could run on". Resampling nodes with replacement,
then blocks within each chosen node, puts both levels of variation into the interval (Davison &
Hinkley 1997, *Bootstrap Methods and their Application*, sec. 3.8, "hierarchical data"; Saravanan
et al. 2020, "Application of the hierarchical bootstrap to multi-level data", Neurons Behav. Data
Anal. Theory 3). With one node it reduces to the ordinary block bootstrap.

Pure functions over numbers: no store, no wording.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.special import stdtr, stdtrit  # Student t cdf and quantile (lighter than scipy.stats)

from jvmlab.analyze.bootstrap import DEFAULT_RESAMPLES, LEVEL, percentile_interval
from jvmlab.analyze.model import Interval

FloatArray = npt.NDArray[np.float64]
OFFSET_MIN_REL = 0.01  # a node's offset below 1% is not called systematic, however precise


@dataclass(frozen=True)
class NodeBlocks:
    """One node's blocks: the cell's and the baseline's value in each block (same length)."""

    node: str
    cell_s: FloatArray
    base_s: FloatArray


@dataclass(frozen=True)
class HierarchicalRatio:
    """mean(cell)/mean(baseline) compared within node, with its two-stage bootstrap interval and
    the two-sided p-value of "ratio 1" from the same t (None without an interval)."""

    ratio: float
    ci: Interval | None
    n_nodes: int
    n_blocks: int
    p_value: float | None = None

    @property
    def significant(self) -> bool:
        return self.ci is not None and not self.ci[0] <= 1.0 <= self.ci[1]


@dataclass(frozen=True)
class NodeOffset:
    """How one node's level compares with the other nodes' (all cells of its blocks)."""

    node: str
    ratio_to_others: float  # mean of its blocks / mean of the others' blocks
    ci: Interval | None
    systematic: bool


def _node_sums(group: NodeBlocks, rng: np.random.Generator, n_boot: int, k: int) -> tuple[FloatArray, FloatArray]:
    """Block-resampled sums of one node, one column per position a node can be drawn into."""
    n = group.cell_s.size
    idx = rng.integers(0, n, size=(n_boot, k, n))
    return group.cell_s[idx].sum(axis=2), group.base_s[idx].sum(axis=2)


def hierarchical_ratio(groups: Sequence[NodeBlocks], rng: np.random.Generator,
                       n_boot: int = DEFAULT_RESAMPLES, level: float = LEVEL) -> HierarchicalRatio | None:
    """The within-node paired ratio; its CI from resampling nodes, then blocks within nodes.

    The two-stage bootstrap gives the spread of log(ratio); the interval is t-based on it
    (df = blocks - 1, the bootstrap's (n-1)/n shrinkage undone), not the percentile one: with
    3-5 blocks per node the percentiles of a few distinct resamples excluded "no difference" far
    too often (A/A false positives 14-24% at 1-2 nodes x 3 blocks; 2.5-4% with the t form,
    tests/cluster/test_node_offsets.py)."""
    groups = [g for g in groups if g.cell_s.size > 0]
    if not groups:
        return None
    cell = np.concatenate([g.cell_s for g in groups])
    base = np.concatenate([g.base_s for g in groups])
    ratio = float(cell.sum() / base.sum())
    k, n = len(groups), int(cell.size)
    if n < 2 or not ratio > 0:
        return HierarchicalRatio(ratio, None, k, n)
    sums = [_node_sums(g, rng, n_boot, k) for g in groups]
    cell_sums = np.stack([s[0] for s in sums])  # (node, boot, position)
    base_sums = np.stack([s[1] for s in sums])
    chosen = rng.integers(0, k, size=(n_boot, k)) if k > 1 else np.zeros((n_boot, 1), dtype=int)
    boot_rows = np.arange(n_boot)[:, None]
    positions = np.arange(k)[None, :]
    num = cell_sums[chosen, boot_rows, positions].sum(axis=1)
    den = base_sums[chosen, boot_rows, positions].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(num / den)
    logs = logs[np.isfinite(logs)]
    if logs.size < 2:
        return HierarchicalRatio(ratio, None, k, n)
    se = float(logs.std(ddof=1)) * float(np.sqrt(n / (n - 1)))
    ci, p_value = _t_interval(float(np.log(ratio)), se, n - 1, level)
    return HierarchicalRatio(ratio, ci, k, n, p_value)


def _t_interval(log_ratio: float, se: float, df: int, level: float) -> tuple[Interval, float]:
    """exp(log ratio +- t * se) and the two-sided p-value of log ratio 0 (1.0 when se is 0 and
    the ratio is 1; 0.0 when se is 0 and it is not)."""
    q = float(stdtrit(df, 1 - (1 - level) / 2))
    ci = (float(np.exp(log_ratio - q * se)), float(np.exp(log_ratio + q * se)))
    if se <= 0:
        return ci, 1.0 if log_ratio == 0 else 0.0
    return ci, float(2 * stdtr(df, -abs(log_ratio) / se))


def node_offsets(levels: dict[str, FloatArray], rng: np.random.Generator,
                 n_boot: int = DEFAULT_RESAMPLES, level: float = LEVEL) -> list[NodeOffset]:
    """Each node's block level (e.g. mean of all cells in a block) against the median node.

    The median of the node means is the reference, so one odd node does not drag it (with two
    nodes it is their midpoint, and both look offset by half: two nodes cannot say which is odd).
    Systematic: the node's interval excludes 1 and the offset is at least 1%.

    Why not the block bootstrap within each node: with 2-4 blocks per node it resamples from only
    a handful of distinct means and shrinks their spread by (n-1)/n, so its intervals were far too
    narrow (a normal node was marked in 17-50% of quiet 3-block runs). Here, on the log scale, each
    node's mean is drawn from its t distribution (Student, with the block SD pooled over the nodes,
    or the node's own when larger, on the pooled degrees of freedom), the median node is taken in
    every draw (its correlation with each node comes along), and the intervals are simultaneous over
    the nodes (Bonferroni: each at 1 - (1 - level) / nodes), so a quiet run marks any node at most
    about 1 - level of the time (seeded simulation in tests/cluster/test_node_offsets.py)."""
    usable = {n: np.log(v) for n, v in levels.items() if v.size >= 2 and np.all(v > 0)}
    df = sum(v.size - 1 for v in usable.values())
    if len(usable) < 2 or df < 2:
        return [NodeOffset(n, float("nan"), None, False) for n in levels]
    names = list(usable)
    means = np.array([usable[n].mean() for n in names])
    pooled_sd = float(np.sqrt(sum(((v - v.mean()) ** 2).sum() for v in usable.values()) / df))
    se = np.array([max(pooled_sd, float(usable[n].std(ddof=1))) / np.sqrt(usable[n].size) for n in names])
    draws = means + se * rng.standard_t(df, size=(n_boot, len(names)))
    diffs = draws - np.median(draws, axis=1)[:, None]  # (draw, node): log level against the median node
    estimate = means - float(np.median(means))
    each = 1 - (1 - level) / len(names)
    out = []
    for i, node in enumerate(names):
        ratio = float(np.exp(estimate[i]))
        ci = percentile_interval(np.exp(diffs[:, i]), each)
        systematic = ci is not None and not ci[0] <= 1.0 <= ci[1] and abs(ratio - 1) >= OFFSET_MIN_REL
        out.append(NodeOffset(node, ratio, ci, systematic))
    return out + [NodeOffset(n, float("nan"), None, False) for n in levels if n not in usable]
