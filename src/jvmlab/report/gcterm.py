"""`jvmlab gc analyze` in the terminal: one rich table row per log, then its pause kinds."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from jvmlab.gclog import LogSummary
from jvmlab.report.gcpage import HEADER, log_name, summary_row


def render_gc(summaries: list[LogSummary], console: Console | None = None) -> None:
    """Print each log's summary (pauses, percentiles, throughput, cycles) as tables."""
    console = console or Console()
    # Measures as rows, logs as columns: readable in a narrow terminal.
    table = Table(title="GC logs", header_style="bold")
    table.add_column("")
    rows = [summary_row(s) for s in summaries]
    for row in rows:
        table.add_column(escape(row[0]), justify="right", overflow="fold")
    for k, label in enumerate(HEADER[1:], start=1):
        table.add_row(label, *[Text(row[k]) for row in rows])
    console.print(table)
    for s in summaries:
        doc = s.to_json()
        kinds = (doc["pauses"].get("by_kind") or {})
        used = {k: v for k, v in kinds.items() if v and v.get("count")}
        if used:
            kt = Table(title=escape(f"{log_name(s)}: pauses by kind"), header_style="bold")
            for col in ("kind", "count", "total (ms)"):
                kt.add_column(col, justify="left" if col == "kind" else "right")
            for kind, st in used.items():
                kt.add_row(kind, str(st["count"]), f"{st['total_ms']:.2f}")
            console.print(kt)
        if not s.pauses_logged:
            console.print(Text(f"{log_name(s)}: this log shows GC cycles but not their pauses; "
                               "log with -Xlog:gc*,safepoint to see them", style="yellow"))
        if s.unparsed_lines:
            console.print(Text(f"{log_name(s)}: {s.unparsed_lines} line(s) not understood", style="dim"))
