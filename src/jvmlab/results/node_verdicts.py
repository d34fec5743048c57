"""The verdicts of a run spread over nodes: the within-node comparisons, not the pooled ones.

Why: every block ran whole on one node, so a node's offset cancels inside a block, while the
pooled comparison (every invocation of a cell against every one of the baseline, whatever node
ran it) takes the node's offset for the cell's effect as soon as a node ran more of one cell
than of another (failures, a resumed run, blocks added by ``--until`` on whichever node was
free). Issue 18 asks for node as a blocking factor in the verdict: this module swaps the
comparisons :func:`jvmlab.results.compare_cells` made for the hierarchical ones of
:func:`jvmlab.results.nodes.analyze_nodes` (paired within node; nodes, then blocks resampled;
t-based p-values corrected together as before) whenever two or more nodes ran measured
invocations. The pooled comparisons stay in :attr:`CellsComparison.pooled` for the node section.
"""

from __future__ import annotations

from dataclasses import replace

from jvmlab.analyze.correction import adjust
from jvmlab.analyze.hierarchical import HierarchicalRatio
from jvmlab.analyze.model import Comparison, clean
from jvmlab.metrics import RUN_DELAY
from jvmlab.results.compare import ALL_CELLS, CellsComparison, ComparedCell, disturbances, verdict_kind
from jvmlab.results.nodes import NodeAnalysis, analyze_nodes, within_node_drift
from jvmlab.results.records import ExperimentResults

HIERARCHICAL = "hierarchical"  # Comparison.ci_kind of a within-node comparison
VERDICT_NOTE = ("Verdicts are within node (the run used {nodes} nodes): each cell is paired with the baseline "
                "inside every block, a block ran whole on one node, and the interval resamples nodes, then blocks "
                "(t-based, hierarchical bootstrap); the pooled comparison, nodes ignored, is in the node section.")


def nodes_used(results: ExperimentResults) -> int:
    """How many nodes ran measured, ok invocations (0 for a run on one machine)."""
    if results.nodes is None:
        return 0
    ok = {inv.id for inv in results.invocations if inv.status == "ok" and inv.block >= 0}
    return len({node for inv, node in results.nodes.node_of.items() if inv in ok})


def within_node_verdicts(results: ExperimentResults, pooled: CellsComparison, metric: str,
                         lower_is_better: bool) -> CellsComparison:
    """``pooled`` unchanged on one machine; on 2+ nodes, the same cells compared within node,
    their kinds decided again (a drift or a busy machine still disturbs them; drift judged on
    values with each node's level divided out), the pooled comparisons kept beside."""
    count = nodes_used(results)
    analysis = analyze_nodes(results, metric) if count >= 2 else None
    if analysis is None or not analysis.comparisons:
        return pooled
    within = adjust(tuple(_comparison(c, analysis, metric) for c in pooled.analysis.comparisons),
                    pooled.analysis.alpha, pooled.analysis.correction)
    note = VERDICT_NOTE.format(nodes=count)
    stats = replace(pooled.analysis, comparisons=within, notes=(*pooled.analysis.notes, note),
                    drift=within_node_drift(results, metric))
    # the one interference model, with each node's invocations' run-queue delays as its covariate
    delays = {c.name: clean(results.values(c, RUN_DELAY)) for c in results.cells}
    measured = all(d.values.size for d in delays.values())
    values = {c.name: clean(results.values(c, metric)) for c in results.cells} if measured else None
    disturbed = disturbances(stats, results.busy_blocks, results.measured_blocks(), values,
                             delays=delays if measured else None)
    compared = []
    for new in within:
        d = disturbed.get(new.cell) or disturbed.get(ALL_CELLS)
        compared.append(ComparedCell(new, verdict_kind(new, lower_is_better, d is not None and d.vetoes), False, d))
    return CellsComparison(stats, tuple(compared), pooled=pooled.analysis.comparisons)


def _comparison(pooled: Comparison, analysis: NodeAnalysis, metric: str) -> Comparison:
    """The within-node twin of one pooled comparison (no pairs within a node: no ratio)."""
    h: HierarchicalRatio | None = next((c.within_node for c in analysis.comparisons
                                        if c.cell == pooled.cell and c.baseline == pooled.baseline), None)
    if h is None or h.ci is None:
        return replace(pooled, ratio=None if h is None else h.ratio, ci95=None, rel_diff_pct=None, p_value=None,
                       p_adjusted=None, significant=False, n_cell=0 if h is None else h.n_blocks,
                       n_baseline=0 if h is None else h.n_blocks, paired=True, ci_kind=HIERARCHICAL)
    return Comparison(cell=pooled.cell, baseline=pooled.baseline, metric=metric, ratio=h.ratio, ci95=h.ci,
                      rel_diff_pct=(h.ratio - 1.0) * 100.0, p_value=h.p_value, p_adjusted=None, significant=False,
                      n_cell=h.n_blocks, n_baseline=h.n_blocks, paired=True, ci_kind=HIERARCHICAL)


__all__ = ["HIERARCHICAL", "VERDICT_NOTE", "nodes_used", "within_node_verdicts"]
