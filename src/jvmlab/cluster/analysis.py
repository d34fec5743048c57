"""A cluster run's node view, loaded from the store: each comparison made within node with its
hierarchical-bootstrap interval, and each node's offset against the median node."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.hierarchical import (
    HierarchicalRatio,
    NodeBlocks,
    NodeOffset,
    hierarchical_ratio,
    node_offsets,
)
from jvmlab.store.protocol import Store


@dataclass(frozen=True)
class NodeComparison:
    cell: str
    baseline: str
    within_node: HierarchicalRatio | None


@dataclass(frozen=True)
class ClusterAnalysis:
    metric: str
    nodes: dict[str, int]  # node -> measured invocations stored
    refused: dict[str, str]  # node -> why it was refused
    comparisons: list[NodeComparison]
    offsets: list[NodeOffset]

    @property
    def systematic(self) -> list[NodeOffset]:
        return [o for o in self.offsets if o.systematic]


def analyze_nodes(store: Store, experiment_id: int, metric: str = "wall_s") -> ClusterAnalysis:
    """Pair each cell with the baseline inside every block (a block ran whole on one node)."""
    exp = store.experiment(experiment_id)
    cells = {c.id: c for c in store.cells(experiment_id)}
    node_of = store.invocation_nodes(experiment_id)
    values: dict[tuple[int, int], tuple[str, float]] = {}  # (cell idx, block) -> (node, value)
    counts: dict[str, int] = defaultdict(int)
    for inv in store.invocations(experiment_id):
        node = node_of.get(inv.id)
        value = inv.value(metric)
        if node is None or inv.status != "ok" or value is None:
            continue
        values[(cells[inv.cell_id].idx, inv.block)] = (node, value)
        counts[node] += 1
    by_idx = {c.idx: c for c in cells.values()}
    base_idx = exp.baseline_cell if exp.baseline_cell is not None else 0
    rng = rng_for(exp.seed, "cluster", metric)
    comparisons = [NodeComparison(c.name, by_idx[base_idx].name,
                                  hierarchical_ratio(_pairs(values, c.idx, base_idx), rng))
                   for c in sorted(by_idx.values(), key=lambda c: c.idx) if c.idx != base_idx]
    refused = {name: why for name, (_, why) in store.nodes(experiment_id).items() if why}
    return ClusterAnalysis(metric, dict(counts), refused, comparisons, node_offsets(_levels(values), rng))


def _pairs(values: dict[tuple[int, int], tuple[str, float]], cell: int, base: int) -> list[NodeBlocks]:
    per_node: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for (idx, block), (node, value) in values.items():
        other = values.get((base, block))
        if idx == cell and other is not None and other[0] == node:
            per_node[node][0].append(value)
            per_node[node][1].append(other[1])
    return [NodeBlocks(n, np.array(a), np.array(b)) for n, (a, b) in sorted(per_node.items())]


def _levels(values: dict[tuple[int, int], tuple[str, float]]) -> dict[str, np.ndarray]:
    """Each node's block means (mean over the cells of the block): the node's own level."""
    blocks: dict[tuple[str, int], list[float]] = defaultdict(list)
    for (_, block), (node, value) in values.items():
        blocks[(node, block)].append(value)
    levels: dict[str, list[float]] = defaultdict(list)
    for (node, _), vals in sorted(blocks.items()):
        levels[node].append(float(np.mean(vals)))
    return {n: np.array(v) for n, v in levels.items()}
