"""`jvmlab gc analyze` in the terminal: one column per log, then per log its pause kinds
(with stalls and pacing), causes and concurrent phases, and a warning whenever stalls or
pacing held the application longer than its pauses did (throughput alone hides that)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from jvmlab.gclog import LogSummary
from jvmlab.gclog.points import GcLogView, view_of
from jvmlab.report import gcfindings, gcrows


def _table(title: str, header: list[str], rows: list[list[str]]) -> Table:
    t = Table(title=escape(title), header_style="bold")
    for i, col in enumerate(header):
        t.add_column(col, justify="left" if i == 0 else "right", overflow="fold")
    for row in rows:
        t.add_row(*[Text(c) for c in row])
    return t


def render_gc(logs: Sequence[LogSummary | GcLogView], console: Console | None = None) -> None:
    """Print each log's summary and its detail tables (from the summary documents only)."""
    console = console or Console()
    views = [log if isinstance(log, GcLogView) else view_of(log, with_points=False) for log in logs]  # no series
    labels, columns = gcrows.summary_columns(views)
    table = Table(title="GC logs", header_style="bold")
    table.add_column("")
    for v in views:
        table.add_column(escape(v.name), justify="right", overflow="fold")
    for k, label in enumerate(labels):
        table.add_row(label, *[Text(col[k]) for col in columns])
    console.print(table)
    for v in views:
        doc, name = v.doc, v.name
        kinds = gcrows.kind_rows(doc)
        if kinds:
            console.print(_table(f"{name}: pauses by kind, stalls and pacing", gcrows.KIND_HEADER, kinds))
        causes = gcrows.cause_rows(doc)
        if causes:
            console.print(_table(f"{name}: collections by cause", gcrows.CAUSE_HEADER, causes))
        phases = gcrows.phase_rows(doc)
        if phases:
            console.print(_table(f"{name}: concurrent phases", gcrows.PHASE_HEADER, phases))
        warning = gcrows.held_warning(doc, name)
        if warning:
            console.print(Text(warning, style="bold yellow"))
        if not v.pauses_logged:
            console.print(Text(f"{name}: this log shows GC cycles but not their pauses; "
                               "log with -Xlog:gc*,safepoint to see them", style="yellow"))
        gcfindings.render(console, doc, name)
        if doc.get("unparsed_lines"):
            console.print(Text(f"{name}: {doc['unparsed_lines']} line(s) not understood", style="dim"))
