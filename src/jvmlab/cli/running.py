"""Running a prepared plan from the CLI: the one place a command hands a plan to the session
(`run`, `demo`, `heapsweep`, `demo size`, `gc advise`), with a progress bar, then the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from jvmlab.cli.console import stdout_console
from jvmlab.cli.storeargs import default_artifacts, provenance_command_line

if TYPE_CHECKING:
    from jvmlab.model.stored import SeriesTag
    from jvmlab.plan.prepare import Plan
    from jvmlab.store.protocol import Store


def run_plan(plan: Plan, store_value: str | None, *, as_json: bool = False, resume: bool = False,
             until_rel: float | None = None, budget_s: float | None = None,
             max_invocations: int | None = None, metric: str | None = None, artifacts: Path | None = None,
             overrides: dict[str, bool | int | str] | None = None, quiet: bool = False,
             metric_reason: str = "", cluster: str | None = None, artifacts_url: str | None = None,
             series: SeriesTag | None = None, db: Store | None = None, report_on_stderr: bool = False,
             resume_hint: str | None = None) -> int:
    """Run a prepared plan with a progress bar, then print the report (or JSON). ``db``: a store
    the caller has open already; ``report_on_stderr``: the report goes to stderr and nothing to
    stdout (a command that prints its own document there, e.g. `heapsweep --json`)."""
    from jvmlab.cli.progress import ProgressObserver
    from jvmlab.execute.options import RunOptions, ready_artifacts
    from jvmlab.execute.session import run_experiment
    from jvmlab.report.summary import summarize
    from jvmlab.report.terminal import render
    from jvmlab.results.adaptive import store_precision_reached
    from jvmlab.store import open_store, store_url

    artifacts_root = ready_artifacts(artifacts or default_artifacts(db.url if db is not None
                                                                    else store_url(store_value)))
    db = db if db is not None else open_store(store_value)
    _warn_power(plan, until_rel, max_invocations)
    options = RunOptions(
        artifacts_root=artifacts_root, resume=resume,
        command_line=provenance_command_line(), collect_overrides=overrides or {},
        until_rel=until_rel, max_invocations=max_invocations, budget_s=budget_s, metric=metric,
        metric_reason=metric_reason, series=series, resume_hint=resume_hint)
    err_console = Console(stderr=True)
    with ProgressObserver(err_console, quiet=quiet or (not err_console.is_terminal and as_json)) as observer:
        if cluster is not None:
            from jvmlab.cluster.run import run_at

            exp_id = run_at(cluster, plan, db, options, observer, artifacts_url)
        else:
            exp_id = run_experiment(plan, db, options, observer, precision_check=store_precision_reached)
    # The metric just recorded (on --resume without --metric: the run's own), with its reason.
    summary = summarize(db, exp_id, metric)
    from jvmlab.results.why import load_why

    why_records = load_why(db, exp_id, summary.invocations)
    if report_on_stderr:
        from jvmlab.report.why import render_why

        render(summary, err_console)
        render_why(summary, why_records, err_console)
    elif as_json:
        from jvmlab.report.nodes import nodes_part
        from jvmlab.report.why import why_json

        typer.echo(json.dumps({**summary.to_json(), **why_json(summary, why_records), **nodes_part(summary)},
                              indent=2, default=str))
    else:
        from jvmlab.report.why import render_why

        render(summary, stdout_console())
        render_why(summary, why_records, stdout_console())
    return exp_id


def _warn_power(plan: Plan, until_rel: float | None, max_invocations: int | None) -> None:
    """Say before any JVM starts when no verdict of this plan can be significant."""
    from jvmlab.plan.power import plan_power

    check = plan_power(plan, until=until_rel is not None, max_invocations=max_invocations)
    if check.warn:
        typer.echo(f"jvmlab: warning: {check.message()}", err=True)
