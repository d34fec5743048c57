"""`jvmlab gc analyze`: summarise GC logs of any modern format."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from jvmlab.cli.apps import gc_app


@gc_app.command("analyze")
def analyze(
    logs: list[str] = typer.Argument(..., help="GC log files (rotated sets, .gz and .zip are fine), or stored "
                                               "experiments (N or N:CELL: one column per invocation)."),
    as_json: bool = typer.Option(False, "--json", help="Print the JSON summary."),
    html: Path = typer.Option(None, "--html", help="Also write a self-contained HTML report."),
    store: str = typer.Option(None, "--store", help="Store for experiment ids (default: ./jvmlab.db or "
                                                    "$JVMLAB_STORE)."),
) -> None:
    """Parse GC logs (unified -Xlog, JDK 8 PrintGCDetails, OpenJ9 XML) and summarise pauses."""
    from jvmlab.report.gc_sides import analyze_views
    from jvmlab.report.gcterm import render_gc

    views = analyze_views(list(logs), store, with_series=html is not None)
    if html is not None:
        from jvmlab.report.html import write_gc_html

        write_gc_html(views, html)
    if as_json:
        typer.echo(json.dumps({"logs": [v.doc for v in views]}, indent=2, default=str))
    else:
        render_gc(views)


@gc_app.command("compare")
def compare(
    side_a: str = typer.Argument(..., metavar="A", help="GC log, folder of GC logs, or experiment id (N or N:CELL)."),
    side_b: str = typer.Argument(..., metavar="B", help="The same kind of thing to compare against A."),
    as_json: bool = typer.Option(False, "--json", help="Print the comparison as JSON."),
    html: Path | None = typer.Option(None, "--html", help="Also write a self-contained HTML page."),
    store: str | None = typer.Option(None, "--store", help="Store for experiment ids (default: ./jvmlab.db or "
                                                    "$JVMLAB_STORE)."),
    seed: int = typer.Option(1, "--seed", help="Bootstrap seed (the same seed gives the same intervals)."),
) -> None:
    """Compare two GC logs or two sets of them metric by metric: B/A with bootstrap CIs and a verdict."""
    from jvmlab.gclog.compare import compare_sets, interval_note
    from jvmlab.gclog.findings_compare import compare_findings
    from jvmlab.report import gccompare
    from jvmlab.report.gc_sides import resolve

    a = resolve(side_a, store)
    b = resolve(side_b, store)
    comparisons = compare_sets(a.docs, b.docs, seed=seed)
    changes = compare_findings(a.docs, b.docs)
    notes = [f"skipped in {s.label}: {why}" for s in (a, b) for why in s.skipped]
    notes.append(interval_note(comparisons))
    if len(a.docs) < 2 or len(b.docs) < 2:
        notes.append("one log on a side: ratios are shown without an interval or verdict; "
                     "pass a folder (or experiment) with one log per JVM run for CIs")
    if html is not None:
        from jvmlab.report.page import render_page, write_text

        ctx = gccompare.html_context(a.label, a.names, b.label, b.names, comparisons, notes, changes)
        write_text(html, render_page("gc_compare.html.j2", ctx))
    if as_json:
        doc = gccompare.to_json({"label": a.label, "logs": a.names}, {"label": b.label, "logs": b.names},
                                comparisons, notes, changes)
        typer.echo(json.dumps(doc, indent=2))
    else:
        gccompare.render_terminal(a.label, b.label, comparisons, notes, findings=changes)
