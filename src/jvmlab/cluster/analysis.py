"""A cluster run's node view, through the results layer: the experiment is loaded once
(:func:`jvmlab.results.load_experiment`, nodes included) and analysed by
:func:`jvmlab.results.nodes.analyze_nodes`; this module reads no store table itself."""

from __future__ import annotations

from jvmlab.results.load import load_experiment
from jvmlab.results.nodes import NodeAnalysis, NodeComparison
from jvmlab.results.nodes import analyze_nodes as analyze_loaded
from jvmlab.store.protocol import Store

ClusterAnalysis = NodeAnalysis  # the name this module's callers know


def analyze_nodes(store: Store, experiment_id: int, metric: str = "wall_s") -> ClusterAnalysis:
    """Load the experiment (values only) and pair each cell with the baseline within node."""
    analysis = analyze_loaded(load_experiment(store, experiment_id, documents=False), metric)
    if analysis is None:
        return NodeAnalysis(metric, {}, {}, [], [])
    return analysis


__all__ = ["ClusterAnalysis", "NodeComparison", "analyze_nodes"]
