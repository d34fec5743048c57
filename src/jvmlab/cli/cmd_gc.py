"""`jvmlab gc analyze`: summarise GC logs of any modern format."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from jvmlab.cli.main import gc_app


@gc_app.command("analyze")
def analyze(
    logs: list[Path] = typer.Argument(..., help="GC log files (rotated sets, .gz and .zip are fine)."),
    as_json: bool = typer.Option(False, "--json", help="Print the JSON summary."),
    html: Path = typer.Option(None, "--html", help="Also write a self-contained HTML report."),
) -> None:
    """Parse GC logs (unified -Xlog, JDK 8 PrintGCDetails, OpenJ9 XML) and summarise pauses."""
    from jvmlab.gclog import analyze_paths
    from jvmlab.report.gcterm import render_gc

    summaries = analyze_paths(list(logs))
    if html is not None:
        from jvmlab.report.html import write_gc_html

        write_gc_html(summaries, html)
    if as_json:
        typer.echo(json.dumps({"logs": [s.to_json() for s in summaries]}, indent=2, default=str))
    else:
        render_gc(summaries)
