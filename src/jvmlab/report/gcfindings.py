"""Findings of GC logs as rows and details: the terminal, the HTML page and `gc compare`.

Reads the ``findings`` of summary documents (``jvmlab.gclog.findings``); never a log file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from jvmlab.gclog.findings_compare import APPEARS, DISAPPEARS, FindingChange
from jvmlab.gclog.findings_model import Finding, findings_of
from jvmlab.report.gcrows import fmt_ms, fmt_s

HEADER = ["severity", "finding", "count", "total", "worst", "first..last"]
CHANGE_HEADER = ["finding", "severity", "A: logs (events)", "B: logs (events)", "status"]
_STYLE = {"error": "bold red", "warn": "yellow", "info": "cyan"}
_CHANGE_STYLE = {APPEARS: "red", DISAPPEARS: "green"}


def row(f: Finding) -> list[str]:
    e = f.evidence
    # durations and uptimes in the unit that fits them (a log of days says 4.8 d, never 6.85e+03)
    return [f.severity, f.id, str(e.count), fmt_ms(e.total_ms), fmt_ms(e.worst_ms),
            f"{fmt_s(e.first_t_s)}..{fmt_s(e.last_t_s)}"]


def details(f: Finding) -> list[str]:
    """The lines under a finding's row: explanation, examples, fixes, advice."""
    lines = [f"{f.id}: {f.explanation}"]
    lines += [f"  log: {x}" for x in f.evidence.examples]
    lines += [f"  try {' '.join(x.flags)}: {x.reason}" for x in f.fixes]
    if f.advice:
        lines.append(f"  {f.advice}")
    return lines


def render(console: Console, doc: dict[str, Any], name: str) -> None:
    """A log's findings table and the details of each (nothing when it has none)."""
    found = findings_of(doc)
    if found is None:
        if doc.get("findings_error"):
            console.print(Text(f"{name}: findings not computed: {doc['findings_error']}", style="yellow"))
        return
    if not found:
        console.print(Text(f"{name}: no findings", style="green"))
        return
    table = Table(title=escape(f"{name}: findings"), header_style="bold")
    for i, col in enumerate(HEADER):
        table.add_column(col, justify="right" if i >= 2 else "left", overflow="fold")
    for f in found:
        cells = row(f)
        table.add_row(Text(cells[0], style=_STYLE.get(f.severity, "")), *[Text(c) for c in cells[1:]])
    console.print(table)
    for f in found:
        for k, line in enumerate(details(f)):
            console.print(Text(line, style="bold" if k == 0 else "dim" if line.startswith("  log:") else ""))


def html_findings(doc: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The page's findings of one log (the template escapes every string)."""
    found = findings_of(doc)
    if found is None:
        return None
    return [{"row": row(f), "severity": f.severity, "title": f.title, "explanation": f.explanation,
             "examples": list(f.evidence.examples), "advice": f.advice,
             "fixes": [(" ".join(x.flags), x.reason) for x in f.fixes]} for f in found]


def change_rows(changes: Sequence[FindingChange]) -> list[list[str]]:
    return [[c.id, c.severity, f"{c.logs_a}/{c.n_a} ({c.count_a})", f"{c.logs_b}/{c.n_b} ({c.count_b})", c.status]
            for c in changes]


def render_changes(console: Console, changes: Sequence[FindingChange]) -> None:
    if not changes:
        return
    table = Table(title="Findings: which appear or disappear from A to B", header_style="bold")
    for i, col in enumerate(CHANGE_HEADER):
        table.add_column(col, justify="right" if i in (2, 3) else "left")
    for c, cells in zip(changes, change_rows(changes), strict=True):
        table.add_row(*[Text(v) for v in cells[:4]], Text(cells[4], style=_CHANGE_STYLE.get(c.status, "")))
    console.print(table)
