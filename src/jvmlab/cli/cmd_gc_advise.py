"""`jvmlab gc advise LOG --spec SPEC` (or `N:CELL`): findings -> candidate flags -> a run that shows
whether each fix removes its finding, and at what cost (docs/gclog.md, "gc advise").

The experiment is a derived spec run through the same entry point as `jvmlab run`
(:func:`run_derived`, the one place to re-point when the run loop becomes a session);
`--tune` hands the candidates to `jvmlab tune` as a space instead.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from jvmlab.cli.apps import gc_app
from jvmlab.cli.storeargs import STORE_HELP

if TYPE_CHECKING:
    from jvmlab.gclog.findings_model import Finding
    from jvmlab.plan.prepare import Plan

DEFAULT_UNTIL = "5%"
# The derived spec is made again from the same log and spec, so the same command continues it.
RESUME_HINT = "the same `jvmlab gc advise` command with --resume"
DEFAULT_RUNS_PER_CELL = 10  # the budget --until gets per cell when --max-invocations is not given


@gc_app.command("advise")
def advise(
    log: str = typer.Argument(..., help="A GC log file, or a stored cell N:CELL (its GC logs and its spec)."),
    spec: Path | None = typer.Option(None, "--spec", help="The spec whose workload made the log (for a log file)."),
    until: str = typer.Option(DEFAULT_UNTIL, "--until",
                              help="Add blocks until every 95% CI half-width is within this."),
    max_invocations: int | None = typer.Option(None, "--max-invocations", min=1,
                                               help=f"Budget: measured invocations in all (default "
                                                    f"{DEFAULT_RUNS_PER_CELL} per fix)."),
    invocations: int | None = typer.Option(None, "--invocations", min=1,
                                           help="Invocations per cell before --until adds blocks "
                                                "(default: the spec's)."),
    metric: str | None = typer.Option(None, "--metric",
                                      help="The spec's metric to judge each fix on (default wall_s)."),
    tune: bool = typer.Option(False, "--tune", help="Hand the candidates to `jvmlab tune` as a space instead."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the advice as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    resume: bool = typer.Option(False, "--resume", help="Continue the interrupted advice run of this log and spec."),
) -> None:
    """Try each finding's candidate flags on the spec's workload: did the finding go away, at what cost?"""
    from jvmlab.cli.cmd_run import parse_until
    from jvmlab.cli.cmd_tune import tune_here
    from jvmlab.plan import advise as derive
    from jvmlab.plan.prepare import prepare
    from jvmlab.results.advise import advice_source

    until_rel = parse_until(until)
    findings, cell_spec, text, spec_path, label = advice_source(log, spec, store)
    fixable = [f for f in findings if f.fixes]
    if not fixable:
        listed = ", ".join(f.id for f in findings) or "none"
        typer.echo(f"{label}: no finding with candidate flags (findings: {listed}); nothing to run")
        return
    levels = derive.fix_levels(fixable, cell_spec.workload.jvm_args)
    if tune:
        trials = len(levels) + 1  # the space is small: about one trial per candidate
        budget = max_invocations or DEFAULT_RUNS_PER_CELL * trials
        derived = derive.tune_spec(cell_spec, levels, {"objective": metric or "wall_s",
                                                       "budget": {"trials": trials, "invocations": budget}})
        plan = prepare(derived, derive.provenance_text(text, label, fixable, levels), spec_path)
        tune_here(plan, store, resume, quiet)
        return
    derived = derive.advise_spec(cell_spec, levels, invocations)
    plan = prepare(derived, derive.provenance_text(text, label, fixable, levels), spec_path)
    budget = max_invocations or DEFAULT_RUNS_PER_CELL * len(plan.cells)
    exp_id, run_json = run_derived(plan, store, until_rel, budget, metric, quiet, as_json, resume)
    _report(store, exp_id, levels, fixable, metric, as_json, run_json, label)


def run_derived(plan: Plan, store: str | None, until_rel: float | None, max_invocations: int,
                metric: str | None, quiet: bool, as_json: bool, resume: bool = False) -> tuple[int, Any]:
    """Run the derived spec exactly as `jvmlab run` runs a spec (the gc collector on): the one
    call into the run loop. Returns the experiment id and, with ``as_json``, run's JSON."""
    from jvmlab.cli.running import run_plan
    from jvmlab.plan.metric_choice import run_metric_reason

    options: dict[str, Any] = {"store_value": store, "until_rel": until_rel, "max_invocations": max_invocations,
                               "metric": metric, "overrides": {"gc": True}, "quiet": quiet,
                               "metric_reason": run_metric_reason(metric or "wall_s", given=metric is not None),
                               "resume": resume, "resume_hint": RESUME_HINT}
    if not as_json:
        return run_plan(plan, **options), None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):  # one JSON document on stdout: run's goes inside it
        exp_id = run_plan(plan, as_json=True, **options)
    return exp_id, json.loads(out.getvalue())


def _report(store: str | None, exp_id: int, levels: list[Any], fixable: list[Finding], metric: str | None,
            as_json: bool, run_json: Any, label: str) -> None:
    from jvmlab.cli.console import stdout_console
    from jvmlab.report.gcadvise import advice_document, build_advice, render
    from jvmlab.store import open_store

    db = open_store(store)
    advice = build_advice(db, exp_id, levels, [f.id for f in fixable], metric)
    db.put_record(exp_id, advice_document(advice, label, fixable, levels))
    if as_json:
        typer.echo(json.dumps({"advice": advice.to_json(), "run": run_json}, indent=2, default=str))
    else:
        render(advice, stdout_console())
