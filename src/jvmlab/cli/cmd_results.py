"""`jvmlab results`, `jvmlab report` and `jvmlab metrics`."""

from __future__ import annotations

import datetime as dt
import json
import tempfile
import webbrowser
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from jvmlab.cli.apps import app
from jvmlab.cli.console import show_report, stdout_console
from jvmlab.cli.storeargs import STORE_HELP


@app.command()
def results(
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List the experiments in the store."""
    from jvmlab.store import open_store

    db = open_store(store, must_exist=True)
    counts = db.invocation_counts()
    rows: list[dict[str, Any]] = []
    for exp in db.experiments():
        n, failed = counts.get(exp.id, (0, 0))
        rows.append({"id": exp.id, "name": exp.name, "status": exp.status, "created_at": exp.created_at,
                     "cells": len(db.cells(exp.id)), "invocations": n, "failures": failed})
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(header_style="bold")
    for col in ("id", "name", "status", "created", "cells", "invocations", "failures"):
        # Only the name may wrap (at spaces): the short columns keep their values whole.
        table.add_column(col, justify="right" if col in ("id", "cells", "invocations", "failures") else "left",
                         no_wrap=col != "name", overflow="fold")
    for r in rows:
        created = dt.datetime.fromtimestamp(r["created_at"]).strftime("%Y-%m-%d %H:%M")
        table.add_row(str(r["id"]), r["name"], r["status"], created, str(r["cells"]), str(r["invocations"]),
                      str(r["failures"]))
    stdout_console().print(table)


@app.command()
def report(
    experiment: int | None = typer.Argument(None, help="Experiment id (default: the latest)."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    metric: str | None = typer.Option(None, "--metric", help="Metric to compare (default: the one the run used, "
                                                     "else wall_s)."),
    as_json: bool = typer.Option(False, "--json", help="Print the JSON summary."),
    html: Path | None = typer.Option(None, "--html", help="Also write a self-contained HTML report to this file."),
    open_: bool = typer.Option(False, "--open", help="Open the HTML report in a browser (a temporary file "
                                                     "unless --html is given)."),
) -> None:
    """Report an experiment: cells with CIs, verdicts, effects, GC, warnings."""
    from jvmlab.report.summary import REPORT_TIMELINES, summary_of
    from jvmlab.results import analyze_experiment, load_experiment
    from jvmlab.results.why import load_why
    from jvmlab.store import open_store

    db = open_store(store, must_exist=True)
    exp_id = experiment if experiment is not None else db.latest_experiment().id
    # load -> compare -> render: the store is read here, once; renderers take the results.
    drawn = REPORT_TIMELINES if html is not None or open_ else None
    summary = summary_of(analyze_experiment(load_experiment(db, exp_id, timelines=drawn), metric))
    why_records = load_why(db, exp_id, summary.invocations)
    if html is not None or open_:
        from jvmlab.report.html import write_html
        from jvmlab.report.why import build_why

        target = html if html is not None else Path(tempfile.mkdtemp(prefix="jvmlab-")) / f"report-{exp_id}.html"
        written = write_html(summary, target, why=build_why(summary, why_records))
        typer.echo(f"HTML report: {written}", err=True)
        if open_:
            webbrowser.open(written.resolve().as_uri())
    show_report(summary, why_records, as_json)


@app.command("metrics")
def list_metrics() -> None:
    """List the metrics that can be compared (--metric)."""
    from jvmlab.metrics import REGISTRY

    table = Table(header_style="bold")
    for col in ("metric", "unit", "better", "what"):
        table.add_column(col, no_wrap=col != "what")  # names whole; descriptions wrap at spaces
    for m in REGISTRY.values():
        table.add_row(m.name, m.unit, "lower" if m.lower_is_better else "higher", m.description)
    stdout_console().print(table)
    typer.echo("Workload-reported metrics appear as workload.NAME.")
