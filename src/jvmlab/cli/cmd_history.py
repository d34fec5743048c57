"""`jvmlab history SERIES`: a benchmark over time (commits, JDK builds), its change points,
and a gate on the newest segment."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from jvmlab.cli.apps import app
from jvmlab.cli.storeargs import STORE_HELP

HISTORY_FAIL_IF_HELP = ('Gate: "METRIC > +N%", "METRIC < -N%" or "METRIC worse N%"; exit 1 when the newest '
                        "segment differs from the one before significantly and its whole 95% CI lies beyond "
                        "N%, 3 (inconclusive) when the newest label differs but stands alone. Repeatable.")


@app.command()
def history(
    series: str | None = typer.Argument(None, help="Series name (default: list the series)."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    metric: list[str] = typer.Option([], "--metric", help="Metric (a glob: 'jmh.*'); default: the newest run's "
                                     "(with --fail-if: the metrics it names). Repeatable."),
    cell: list[str] = typer.Option([], "--cell", help="Only these cells (a glob). Repeatable."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    html_out: Path | None = typer.Option(None, "--html", help="Write the timeline page to this file."),
    fail_if: list[str] = typer.Option([], "--fail-if", help=HISTORY_FAIL_IF_HELP),
    summary_md: Path | None = typer.Option(None, "--summary-md", help="With --fail-if: write a Markdown summary "
                                           "(for a pull-request comment) to this file."),
    inconclusive: str = typer.Option("fail", "--inconclusive", help="With --fail-if: what an inconclusive gate "
                                     "does: fail (exit 3, the default) or pass (exit 0; the line still says it)."),
    spread: str | None = typer.Option(None, "--between-run-sd", help="The between-run spread of a series too short "
                                      "for its own (fewer than 8 labels), e.g. 3%; default 2%."),
) -> None:
    """A series of labelled runs (`run --label`): each label's estimate, the change points across labels
    (with where they start, their size and p-value), a one-line summary per cell, and a gate."""
    from jvmlab.analyze.gate import parse_condition
    from jvmlab.cli.cmd_export import check_inconclusive, spread_option
    from jvmlab.errors import UserError
    from jvmlab.store import open_store

    check_inconclusive(inconclusive)
    sd = spread_option(spread)
    conditions = [parse_condition(text) for text in fail_if]
    if summary_md is not None and not conditions:
        raise UserError("--summary-md goes with --fail-if: it writes the gate's verdict")
    db = open_store(store, must_exist=True)
    if series is None:
        _list(db.series_names(), as_json)
        return
    from jvmlab.report.history import gate_line, gate_markdown, history_json, render_text
    from jvmlab.results.history import load_history
    from jvmlab.results.history_gate import gate_history

    metrics = list(metric) + [c.metric for c in conditions if c.metric not in metric]
    loaded = load_history(db, series, metrics, cell, between_run_sd=sd)
    gate = gate_history(loaded, conditions) if conditions else None
    if as_json:
        typer.echo(json.dumps(history_json(loaded, gate), indent=2, default=str))
    else:
        render_text(loaded, typer.echo)
    if html_out is not None:
        from jvmlab.report.history_html import write_history_html

        typer.echo(f"wrote {write_history_html(loaded, html_out, gate)}", err=as_json)
    if gate is not None:
        typer.echo(gate_line(gate), err=as_json)
        if summary_md is not None:
            from jvmlab.report.page import write_text

            write_text(summary_md, gate_markdown(gate, loaded))
        raise typer.Exit(gate.exit_code_for(inconclusive))


def _list(names: dict[str, int], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(names, indent=2))
        return
    if not names:
        typer.echo("no series yet: run a spec with --label LABEL (or --label-from git)")
    for name, count in sorted(names.items()):
        typer.echo(f"{name}  ({count} experiment{'s' if count != 1 else ''})")
