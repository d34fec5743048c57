"""`jvmlab gc compare` rendered: terminal table, JSON document and HTML page context.

Takes results (the two sides' names and the per-metric comparisons), never a store. One
notation everywhere: B/A ratio ``0.82x [0.74x, 0.91x]`` and the means in the unit that
fits them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from jvmlab import metrics as registry
from jvmlab.gclog.compare import BETTER, WORSE, MetricComparison, interval_note
from jvmlab.gclog.findings_compare import FindingChange
from jvmlab.report import gcfindings, plots
from jvmlab.report.page import figure_entries

_STYLE = {BETTER: "green", WORSE: "red"}


def fmt_value(c: MetricComparison, value: float | None) -> str:
    """A side's mean as the metric registry writes ``gc.<metric>`` in GC tables."""
    return registry.get(f"gc.{c.metric}").compact(value)


def fmt_ratio(c: MetricComparison) -> str:
    if c.ratio is None:
        return "-"
    text = f"{c.ratio:.3g}x"
    if c.ci is not None:
        text += f" [{c.ci[0]:.3g}x, {c.ci[1]:.3g}x]"
    return text


def rows(comparisons: Sequence[MetricComparison]) -> list[list[str]]:
    return [[registry.get(f"gc.{c.metric}").title, f"{fmt_value(c, c.mean_a)} (n={c.n_a})",
             f"{fmt_value(c, c.mean_b)} (n={c.n_b})",
             fmt_ratio(c), c.verdict + (f": {c.reason}" if c.reason else "")] for c in comparisons]


HEADER = ["metric", "A mean", "B mean", "B/A [95% CI]", "verdict"]


def render_terminal(label_a: str, label_b: str, comparisons: Sequence[MetricComparison],
                    notes: Sequence[str] = (), console: Console | None = None,
                    findings: Sequence[FindingChange] = ()) -> None:
    console = console or Console()
    table = Table(title=escape(f"GC compare: A = {label_a}, B = {label_b}"), header_style="bold")
    for i, col in enumerate(HEADER):
        table.add_column(col, justify="left" if i in (0, 4) else "right", overflow="fold")
    for c, row in zip(comparisons, rows(comparisons), strict=True):
        table.add_row(*[Text(v) for v in row[:4]], Text(row[4], style=_STYLE.get(c.verdict, "")))
    console.print(table)
    gcfindings.render_changes(console, findings)
    for note in notes:
        console.print(Text(note, style="dim"))


def to_json(side_a: dict[str, Any], side_b: dict[str, Any], comparisons: Sequence[MetricComparison],
            notes: Sequence[str] = (), findings: Sequence[FindingChange] = ()) -> dict[str, Any]:
    return {"a": side_a, "b": side_b, "ratio": f"mean(B) / mean(A); {interval_note(comparisons)}",
            "metrics": [c.to_json() for c in comparisons], "findings": [f.to_json() for f in findings],
            "notes": list(notes)}


def _error_x(c: MetricComparison) -> dict[str, Any]:
    """The interval around the ratio as plotly error bars (none without an interval)."""
    if c.ci is None or c.ratio is None:
        return {"visible": False}
    return {"type": "data", "symmetric": False, "array": [c.ci[1] - c.ratio], "arrayminus": [c.ratio - c.ci[0]]}


def forest(comparisons: Sequence[MetricComparison]) -> dict[str, Any] | None:
    """B/A per metric with its interval, coloured by better/worse (grey: no verdict)."""
    shown = [c for c in comparisons if c.ratio is not None and c.ratio > 0]
    if not shown:
        return None
    colors = {BETTER: "#2b8a3e", WORSE: "#c92a2a"}
    data = [{
        "type": "scatter", "mode": "markers", "showlegend": False,
        "x": [c.ratio], "y": [plots.esc(c.label)],
        "error_x": _error_x(c),
        "marker": {"color": colors.get(c.verdict, "#868e96"), "size": 9},
        "hovertemplate": plots.esc(f"{c.label}: {fmt_ratio(c)} ({c.verdict})") + "<extra></extra>"}
        for c in shown]
    layout = plots._layout("B / A per metric (95% CI)", "ratio B/A (log axis)", "",
                           height=max(260, 34 * len(shown) + 90))
    layout["xaxis"]["type"] = "log"
    layout["yaxis"]["autorange"] = "reversed"
    layout["shapes"] = [{"type": "line", "x0": 1, "x1": 1, "yref": "paper", "y0": 0, "y1": 1,
                         "line": {"color": "#495057", "dash": "dot", "width": 1}}]
    return {"data": data, "layout": layout}


def html_context(label_a: str, names_a: Sequence[str], label_b: str, names_b: Sequence[str],
                 comparisons: Sequence[MetricComparison], notes: Sequence[str],
                 findings: Sequence[FindingChange] = ()) -> dict[str, Any]:
    return {"title": f"jvmlab: GC compare {label_a} vs {label_b}", "label_a": label_a, "label_b": label_b,
            "names_a": list(names_a), "names_b": list(names_b), "header": HEADER, "rows": rows(comparisons),
            "figures": figure_entries([forest(comparisons)], "gccmp"), "notes": list(notes),
            "findings_header": gcfindings.CHANGE_HEADER, "findings": gcfindings.change_rows(findings)}
