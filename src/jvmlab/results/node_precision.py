"""Adaptive stopping for a run spread over nodes: the width rule on the interval that is the
verdict there, the within-node comparison's hierarchical one (nodes, then blocks).

Beside :mod:`jvmlab.results.adaptive` (one machine), in the results layer for the same reason:
it loads what is stored and runs the statistics; the cluster loop only calls it back."""

from __future__ import annotations

from jvmlab.results.adaptive import Precision, store_precision_reached
from jvmlab.results.load import load_experiment
from jvmlab.results.nodes import NodeAnalysis, analyze_nodes
from jvmlab.store.protocol import Store

# A hierarchical interval from one or two blocks per node can come out far too narrow (seen: a
# 4-block, 2-node run judged precise at 2% where 40 blocks were needed): no stop before this.
MIN_BLOCKS_PER_NODE = 3


def enough_blocks(analysis: NodeAnalysis) -> bool:
    """Every within-node comparison rests on at least MIN_BLOCKS_PER_NODE blocks per node."""
    return all(c.within_node is not None and c.within_node.n_blocks >= MIN_BLOCKS_PER_NODE * c.within_node.n_nodes
               for c in analysis.comparisons)


def half_widths(analysis: NodeAnalysis) -> list[float | None]:
    """Each comparison's CI half-width on the ratio (a share of the baseline); None: no interval."""
    out: list[float | None] = []
    for c in analysis.comparisons:
        ci = c.within_node.ci if c.within_node is not None else None
        out.append(None if ci is None else (ci[1] - ci[0]) / 2)
    return out


def node_precision_reached(store: Store, experiment_id: int, metric: str, target_rel: float) -> Precision:
    """Every within-node comparison's 95% CI half-width <= ``target_rel``, on at least
    MIN_BLOCKS_PER_NODE blocks per node. An experiment with one
    cell (nothing to compare) or no node records falls back to the one-machine rule."""
    results = load_experiment(store, experiment_id, documents=False)
    analysis = analyze_nodes(results, metric)
    if analysis is None or not analysis.comparisons:
        return store_precision_reached(store, experiment_id, metric, target_rel)
    widths = half_widths(analysis)
    return Precision(enough_blocks(analysis) and all(w is not None and w <= target_rel for w in widths), None)


__all__ = ["MIN_BLOCKS_PER_NODE", "enough_blocks", "half_widths", "node_precision_reached"]
