"""A cluster run's nodes, loaded once with the experiment, and their analysis.

The machine is a blocking factor: every block ran whole on one node, so each cell is paired
with the baseline inside its block (within node), the interval comes from the hierarchical
bootstrap (nodes, then blocks: :mod:`jvmlab.analyze.hierarchical`), and each node's level is
compared with the median node's so a node with a systematic offset is named.

Loaded by :func:`load_nodes` (the only store read here); :func:`analyze_nodes` takes the loaded
results, so the report, the JSON export and the cluster run's own summary share one analysis.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.drift import drift
from jvmlab.analyze.hierarchical import (
    HierarchicalRatio,
    NodeBlocks,
    NodeOffset,
    hierarchical_ratio,
    node_offsets,
)
from jvmlab.analyze.model import Clean, DriftResult
from jvmlab.results.node_records import NodeRecords
from jvmlab.results.records import ExperimentResults
from jvmlab.store.protocol import Store

Values = dict[tuple[int, int], tuple[str, float]]  # (cell idx, block) -> (node, value)


@dataclass(frozen=True)
class NodeComparison:
    """One cell against the baseline, paired within node; ``within_node`` is None without pairs."""

    cell: str
    baseline: str
    within_node: HierarchicalRatio | None


@dataclass(frozen=True)
class NodeAnalysis:
    """The node view of one metric: counts, refusals, within-node comparisons, node offsets."""

    metric: str
    nodes: dict[str, int]  # node -> measured ok invocations with a value
    refused: dict[str, str]
    comparisons: list[NodeComparison]
    offsets: list[NodeOffset]
    fingerprints: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def systematic(self) -> list[NodeOffset]:
        """The nodes whose level differs from the median node's (interval excludes 1, >= 1%)."""
        return [o for o in self.offsets if o.systematic]

    @property
    def judged(self) -> bool:
        """Whether node offsets could be judged (2+ nodes with 2+ blocks each)."""
        return any(o.ci is not None for o in self.offsets)


def load_nodes(store: Store, experiment_id: int) -> NodeRecords | None:
    """The experiment's node records; None for an experiment not run on a cluster."""
    node_of = {inv: node for inv, node in store.invocation_nodes(experiment_id).items() if node}
    stored = store.nodes(experiment_id)
    if not node_of and not stored:
        return None
    return NodeRecords(node_of=node_of, fingerprints={n: dict(fp or {}) for n, (fp, _) in stored.items()},
                       refused={n: why for n, (_, why) in stored.items() if why})


def analyze_nodes(results: ExperimentResults, metric: str = "wall_s") -> NodeAnalysis | None:
    """Pair each cell with the baseline inside every block; None when no node was recorded."""
    records = results.nodes
    if records is None:
        return None
    values, counts = _values(results, records, metric)
    by_idx = {c.idx: c for c in results.cells}
    base_idx = results.experiment.baseline_cell if results.experiment.baseline_cell is not None else 0
    rng = rng_for(results.experiment.seed, "cluster", metric)
    comparisons = [NodeComparison(c.name, by_idx[base_idx].name,
                                  hierarchical_ratio(_pairs(values, c.idx, base_idx), rng))
                   for c in sorted(by_idx.values(), key=lambda c: c.idx) if c.idx != base_idx and base_idx in by_idx]
    return NodeAnalysis(metric, dict(counts), dict(records.refused), comparisons,
                        node_offsets(_levels(values), rng), records.fingerprints)


def within_node_drift(results: ExperimentResults, metric: str) -> dict[str, DriftResult]:
    """Each cell's drift across blocks with every node's own level divided out. Pooled, a cell
    whose blocks moved from a slow node to a fast one mid-run shows a trend that is the nodes'
    offset, not the machine drifting; the within-node verdicts judge drift on these values."""
    records = results.nodes
    if records is None:
        return {}
    values, _ = _values(results, records, metric)
    level = {node: float(np.exp(np.mean(np.log(v)))) for node, v in _levels(values).items()
             if v.size and bool(np.all(v > 0))}
    out: dict[str, DriftResult] = {}
    for cell in results.cells:
        points = sorted((block, value / level[node]) for (idx, block), (node, value) in values.items()
                        if idx == cell.idx and node in level)
        blocks = np.array([b for b, _ in points], dtype=np.int64)
        adjusted = np.array([v for _, v in points], dtype=float)
        out[cell.name] = drift(cell.name, Clean(adjusted, blocks, np.arange(adjusted.size), 0))
    return out


def _values(results: ExperimentResults, records: NodeRecords, metric: str) -> tuple[Values, dict[str, int]]:
    idx_of = {c.id: c.idx for c in results.cells}
    values: Values = {}
    counts: dict[str, int] = defaultdict(int)
    for inv in results.invocations:
        node = records.node_of.get(inv.id)
        value = inv.value(metric)
        if node is None or inv.status != "ok" or value is None or inv.block < 0 or not np.isfinite(value):
            continue
        values[(idx_of[inv.cell_id], inv.block)] = (node, float(value))
        counts[node] += 1
    return values, counts


def _pairs(values: Values, cell: int, base: int) -> list[NodeBlocks]:
    per_node: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for (idx, block), (node, value) in values.items():
        other = values.get((base, block))
        if idx == cell and other is not None and other[0] == node:
            per_node[node][0].append(value)
            per_node[node][1].append(other[1])
    return [NodeBlocks(n, np.array(a), np.array(b)) for n, (a, b) in sorted(per_node.items())]


def _levels(values: Values) -> dict[str, np.ndarray]:
    """Each node's block means of its values relative to their cell's mean: the node's own level.
    Relative, so a block missing a cell (a failed slot) does not move its node's level by that
    cell's effect: a node whose blocks lack the fast baseline would otherwise look slow."""
    by_cell: dict[int, list[float]] = defaultdict(list)
    for (cell, _), (_, value) in values.items():
        by_cell[cell].append(value)
    cell_mean = {cell: float(np.mean(vals)) for cell, vals in by_cell.items()}
    blocks: dict[tuple[str, int], list[float]] = defaultdict(list)
    for (cell, block), (node, value) in values.items():
        if cell_mean[cell] > 0:
            blocks[(node, block)].append(value / cell_mean[cell])
    levels: dict[str, list[float]] = defaultdict(list)
    for (node, _), vals in sorted(blocks.items()):
        levels[node].append(float(np.mean(vals)))
    return {n: np.array(v) for n, v in levels.items()}


__all__ = ["NodeAnalysis", "NodeComparison", "NodeRecords", "analyze_nodes", "load_nodes", "within_node_drift"]
