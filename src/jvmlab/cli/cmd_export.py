"""`jvmlab export` and `jvmlab compare`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from jvmlab.cli.apps import app
from jvmlab.cli.console import stdout_console
from jvmlab.cli.storeargs import STORE_HELP
from jvmlab.errors import UserError

if TYPE_CHECKING:
    from jvmlab.analyze.gate import GateCondition
    from jvmlab.store.protocol import Store

FAIL_IF_HELP = ('CI gate: "METRIC > +N%", "METRIC < -N%" or "METRIC worse N%" (METRIC may be a glob: '
                '"jmh.*"); exit 1 '
                "when a change is significant and its whole 95% CI lies beyond N%, 0 when the whole CI is on "
                "the good side, 3 when it cannot tell (inconclusive). Repeatable.")
INCONCLUSIVE_HELP = ("With --fail-if: what an inconclusive gate (the 95% CI reaches past the threshold) does: "
                     "fail (exit 3, the default) or pass (exit 0; the line still says INCONCLUSIVE).")
SUMMARY_MD_HELP = "With --fail-if: also write a Markdown summary (for a pull-request comment) to this file."
BETWEEN_RUN_SD_HELP = ("How much a run's level moves from run to run beyond its own invocations (e.g. 3%; default "
                       "2%, the stated prior): it widens every interval across runs, so a change smaller than it "
                       "can explain is not called. Measure it: compare two runs of an unchanged spec.")


def spread_option(text: str | None) -> float:
    """``--between-run-sd`` as the model's log sd per run (None: the prior); bad: one line, exit 2."""
    from jvmlab.analyze.interference import BETWEEN_RUN_PRIOR, parse_between_run_sd

    return BETWEEN_RUN_PRIOR if text is None else parse_between_run_sd(text)


@app.command()
def export(
    experiment: int | None = typer.Argument(None, help="Experiment id (default: the latest)."),
    fmt: str = typer.Option("json", "--format", "-f", help="json, csv, markdown or hyperfine."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write to this file (default: stdout)."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    metric: str | None = typer.Option(None, "--metric", help="Metric to compare (default: the one the run used, "
                                                     "else wall_s)."),
) -> None:
    """Export an experiment: full JSON, CSV per invocation, a Markdown table, or hyperfine JSON."""
    from jvmlab.report.export import check_format, export_text
    from jvmlab.report.page import write_text
    from jvmlab.report.summary import summary_of
    from jvmlab.results import analyze_experiment, load_experiment
    from jvmlab.store import open_store

    check_format(fmt)
    db = open_store(store, must_exist=True)
    exp_id = experiment if experiment is not None else db.latest_experiment().id
    text = export_text(summary_of(analyze_experiment(load_experiment(db, exp_id, documents=fmt != "csv"), metric)),
                       fmt)
    if output is None:
        sys.stdout.write(text)
    else:
        write_text(output, text)


@app.command("compare")
def compare_cmd(
    experiment_a: int = typer.Argument(..., help="The 'before' experiment id (baseline)."),
    experiment_b: int = typer.Argument(..., help="The 'after' experiment id."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    metric: str = typer.Option("wall_s", "--metric", help="Metric to compare."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    fail_if: list[str] = typer.Option([], "--fail-if", help=FAIL_IF_HELP),
    summary_md: Path | None = typer.Option(None, "--summary-md", help=SUMMARY_MD_HELP),
    inconclusive: str = typer.Option("fail", "--inconclusive", help=INCONCLUSIVE_HELP),
    spread: str | None = typer.Option(None, "--between-run-sd", help=BETWEEN_RUN_SD_HELP),
) -> None:
    """Compare the same cells (matched by name) across two experiments, with CIs.
    With --fail-if it is a CI gate: exit 1 on a significant change beyond the threshold,
    3 when it cannot tell (see --inconclusive)."""
    from jvmlab.analyze.gate import parse_condition
    from jvmlab.report.compare import compare_experiments, render_comparison
    from jvmlab.results import load_experiment
    from jvmlab.store import open_store

    if experiment_a == experiment_b:
        raise UserError(f"compare needs two different experiments (got {experiment_a} twice); "
                        f"`jvmlab results` lists them, `jvmlab report {experiment_a}` shows one")
    conditions = [parse_condition(text) for text in fail_if]
    check_inconclusive(inconclusive)
    sd = spread_option(spread)
    db = open_store(store, must_exist=True)
    if conditions:
        raise typer.Exit(run_gate(db, experiment_a, experiment_b, conditions, summary_md, inconclusive=inconclusive,
                                  between_run_sd=sd))
    result = compare_experiments(load_experiment(db, experiment_a, documents=False),
                                 load_experiment(db, experiment_b, documents=False), metric, between_run_sd=sd)
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2, default=str))
    else:
        render_comparison(result, stdout_console())


def check_inconclusive(value: str) -> str:
    """``--inconclusive`` is fail or pass (else one line, exit 2)."""
    if value not in ("fail", "pass"):
        raise UserError(f"--inconclusive {value!r}: choose fail (exit 3, the default) or pass (exit 0)")
    return value


def run_gate(db: Store, baseline_id: int, new_id: int, conditions: list[GateCondition], summary_md: Path | None,
             to_stderr: bool = False, inconclusive: str = "fail", between_run_sd: float | None = None) -> int:
    """Judge the gate, print its one-line summary (on stderr when stdout carries JSON), write
    the Markdown one; return the exit code (0 pass, 1 fail, 3 inconclusive unless
    ``inconclusive="pass"``). ``between_run_sd``: ``--between-run-sd`` (None: the prior)."""
    from jvmlab.report.gate import gate_experiments, summary_line, summary_markdown
    from jvmlab.report.page import write_text
    from jvmlab.results import load_experiment

    sd = spread_option(None) if between_run_sd is None else between_run_sd
    result = gate_experiments(load_experiment(db, baseline_id, documents=False),
                              load_experiment(db, new_id, documents=False), conditions, sd)
    typer.echo(summary_line(result, baseline_id, new_id, inconclusive), err=to_stderr)
    if summary_md is not None:
        write_text(summary_md, summary_markdown(result, baseline_id, new_id, inconclusive))
    return result.exit_code_for(inconclusive)
