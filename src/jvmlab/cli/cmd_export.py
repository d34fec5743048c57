"""`jvmlab export` and `jvmlab compare`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console

from jvmlab.cli.cmd_run import STORE_HELP
from jvmlab.cli.main import app


@app.command()
def export(
    experiment: int = typer.Argument(None, help="Experiment id (default: the latest)."),
    fmt: str = typer.Option("json", "--format", "-f", help="json, csv, markdown or hyperfine."),
    output: Path = typer.Option(None, "--output", "-o", help="Write to this file (default: stdout)."),
    store: str = typer.Option(None, "--store", help=STORE_HELP),
    metric: str = typer.Option(None, "--metric", help="Metric to compare (default: the one the run used, "
                                                     "else wall_s)."),
) -> None:
    """Export an experiment: full JSON, CSV per invocation, a Markdown table, or hyperfine JSON."""
    from jvmlab.report.export import check_format, export_text
    from jvmlab.report.html import write_text
    from jvmlab.report.summary import summarize
    from jvmlab.store import open_store

    check_format(fmt)
    db = open_store(store, must_exist=True)
    exp_id = experiment if experiment is not None else db.latest_experiment().id
    text = export_text(summarize(db, exp_id, metric), db, fmt)
    if output is None:
        sys.stdout.write(text)
    else:
        write_text(output, text)


@app.command("compare")
def compare_cmd(
    experiment_a: int = typer.Argument(..., help="The 'before' experiment id (baseline)."),
    experiment_b: int = typer.Argument(..., help="The 'after' experiment id."),
    store: str = typer.Option(None, "--store", help=STORE_HELP),
    metric: str = typer.Option("wall_s", "--metric", help="Metric to compare."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Compare the same cells (matched by name) across two experiments, with CIs."""
    from jvmlab.report.compare import compare_experiments, render_comparison
    from jvmlab.store import open_store

    db = open_store(store, must_exist=True)
    result = compare_experiments(db, experiment_a, experiment_b, metric)
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2, default=str))
    else:
        render_comparison(result, Console())
