"""The nodes of a cluster run in the report: terminal lines, the HTML section's rows and the JSON
export's ``nodes`` key, all from the loaded results (:func:`jvmlab.results.nodes.analyze_nodes`).

For a run spread over two or more nodes the within-node comparison with its hierarchical interval
(nodes resampled, then blocks within node) is the verdict of the report's "Verdicts" list
(:mod:`jvmlab.results.node_verdicts`); this section adds the node offsets and, for reference, the
pooled comparison that ignores the nodes (every invocation as if from one machine). Values stay
plain strings here: the template escapes them, and the terminal prints them as ``Text``.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from jvmlab.analyze.model import Comparison, Interval
from jvmlab.report.summary import Summary
from jvmlab.results.nodes import NodeAnalysis, NodeComparison, analyze_nodes

VERDICT_NOTE = ("Each block ran whole on one node, so every cell is compared with the baseline within node; "
                "the interval resamples nodes, then blocks within each node (hierarchical bootstrap, t-based), and "
                "is the verdict for a run spread over nodes. The pooled line ignores the nodes: a node that ran "
                "more of one cell biases it; it is shown for reference, never as the verdict. Node offsets: each "
                "node's block level against the median node's, intervals simultaneous over the nodes.")
NOT_JUDGED = "node offsets not judged: needs 2 or more nodes with 2 or more blocks each"
FINGERPRINT_KEYS = ("host", "cpu_model", "cpu_count", "kernel", "thp_enabled", "governor", "loadavg_1m")


def node_analysis(summary: Summary) -> NodeAnalysis | None:
    """The summary's node view on its compared metric; None when the run used no cluster."""
    if summary.results is None or summary.results.nodes is None:
        return None
    return analyze_nodes(summary.results, summary.metric)


def _pct(ci: Interval) -> str:
    return f"[{ci[0] - 1:+.1%}, {ci[1] - 1:+.1%}]"


def comparison_line(c: NodeComparison) -> str:
    """``B vs A within node (2 nodes, 8 blocks): +3.1% [+1.0%, +5.2%]: differs``."""
    h = c.within_node
    if h is None or h.ci is None:
        return f"{c.cell} vs {c.baseline}: not enough blocks paired within a node"
    word = "differs" if h.significant else "no difference shown"
    return (f"{c.cell} vs {c.baseline} within node ({h.n_nodes} nodes, {h.n_blocks} blocks): "
            f"{h.ratio - 1:+.1%} {_pct(h.ci)}: {word}")


def pooled_line(c: Comparison) -> str:
    """``B vs A pooled, nodes ignored (n=12 vs 12): +14.0% [+9.0%, +19.0%]``."""
    if c.ratio is None or c.ci95 is None:
        return f"{c.cell} vs {c.baseline} pooled, nodes ignored: not enough data"
    return (f"{c.cell} vs {c.baseline} pooled, nodes ignored (n={c.n_cell} vs {c.n_baseline}): "
            f"{c.ratio - 1:+.1%} {_pct(c.ci95)}")


def pooled(summary: Summary) -> tuple[Comparison, ...]:
    """The pooled comparisons the verdicts replaced (empty: the verdicts are the pooled ones)."""
    return () if summary.comparison is None else summary.comparison.pooled


def offset_rows(analysis: NodeAnalysis) -> list[dict[str, str]]:
    """One row per node: invocations, level against the median node, systematic or not."""
    rows = []
    for o in sorted(analysis.offsets, key=lambda o: o.node):
        rows.append({"node": o.node, "invocations": str(analysis.nodes.get(o.node, 0)),
                     "offset": "-" if o.ci is None else f"{o.ratio_to_others - 1:+.1%}",
                     "ci": "-" if o.ci is None else _pct(o.ci),
                     "mark": "systematic offset" if o.systematic else "",
                     "fingerprint": _fingerprint(analysis.fingerprints.get(o.node, {}))})
    return rows


def _fingerprint(fp: Any) -> str:
    if not isinstance(fp, dict):
        return ""
    return "; ".join(f"{k} {fp[k]}" for k in FINGERPRINT_KEYS if fp.get(k) not in (None, ""))


def html_context(summary: Summary) -> dict[str, Any]:
    """The template's ``nodes`` entry (None: no cluster section)."""
    analysis = node_analysis(summary)
    if analysis is None:
        return {"nodes": None}
    return {"nodes": {
        "metric": analysis.metric, "rows": offset_rows(analysis), "judged": analysis.judged,
        "not_judged": NOT_JUDGED, "systematic": [o.node for o in analysis.systematic],
        "refused": sorted(analysis.refused.items()), "comparisons": [comparison_line(c) for c in analysis.comparisons],
        "pooled": [pooled_line(c) for c in pooled(summary)], "note": VERDICT_NOTE}}


def render(summary: Summary, console: Console) -> None:
    """The terminal's node section (nothing for a run on one machine)."""
    analysis = node_analysis(summary)
    if analysis is None:
        return
    used = ", ".join(f"{n} {c}" for n, c in sorted(analysis.nodes.items()))
    console.print(Text(f"Nodes ({len(analysis.nodes)} used): {used}", style="bold"))
    for node, why in sorted(analysis.refused.items()):
        console.print(Text(f"  refused {node}: {why}", style="yellow"))
    if not analysis.judged:
        console.print(Text(f"  {NOT_JUDGED}", style="dim"))
    for row in offset_rows(analysis):
        if row["ci"] != "-":
            line = f"  {row['node']}: {row['offset']} vs the median node {row['ci']}"
            console.print(Text(line + (f"  {row['mark']}" if row["mark"] else ""),
                               style="red" if row["mark"] else ""))
    for c in analysis.comparisons:
        console.print(Text(f"  {comparison_line(c)}"))
    for p in pooled(summary):
        console.print(Text(f"  {pooled_line(p)}", style="dim"))
    console.print(Text(f"  {VERDICT_NOTE}", style="dim"))


def _ci(ci: Interval | None) -> list[float] | None:
    return None if ci is None else [float(ci[0]), float(ci[1])]


def nodes_json(summary: Summary) -> dict[str, Any] | None:
    """The export's ``nodes`` key: counts, refusals, offsets, within-node comparisons (ratios)."""
    analysis = node_analysis(summary)
    if analysis is None:
        return None
    return {
        "metric": analysis.metric, "invocations": dict(sorted(analysis.nodes.items())),
        "refused": dict(sorted(analysis.refused.items())),
        "fingerprints": {n: dict(fp) for n, fp in sorted(analysis.fingerprints.items())},
        "offsets": [{"node": o.node, "ratio_to_median_node": None if o.ci is None else o.ratio_to_others,
                     "ci95": _ci(o.ci), "systematic": o.systematic} for o in analysis.offsets],
        "systematic_offset_nodes": [o.node for o in analysis.systematic],
        "comparisons": [{"cell": c.cell, "baseline": c.baseline,
                         "ratio": None if c.within_node is None else c.within_node.ratio,
                         "ci95": None if c.within_node is None else _ci(c.within_node.ci),
                         "n_nodes": None if c.within_node is None else c.within_node.n_nodes,
                         "n_blocks": None if c.within_node is None else c.within_node.n_blocks,
                         "significant": None if c.within_node is None else c.within_node.significant,
                         "p_value": None if c.within_node is None else c.within_node.p_value,
                         "ci_kind": "hierarchical bootstrap: nodes, then blocks within node (t-based)"}
                        for c in analysis.comparisons],
        "verdicts": ("within node" if pooled(summary) else
                     "no comparisons" if not analysis.comparisons else "pooled: measured on one node"),
        "pooled_comparisons": [{**p.to_json(), "ci_kind": f"pooled, nodes ignored ({p.ci_kind})"}
                               for p in pooled(summary)],
    }


def nodes_part(summary: Summary) -> dict[str, Any]:
    """``{"nodes": ...}`` for a JSON document of a cluster run (``report --json``, ``run --json``); {} otherwise."""
    doc = nodes_json(summary)
    return {} if doc is None else {"nodes": doc}
