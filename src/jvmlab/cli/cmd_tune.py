"""`jvmlab tune SPEC [--resume]` and `jvmlab apply EXP`."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from jvmlab.cli.apps import app
from jvmlab.cli.storeargs import STORE_HELP, default_artifacts, provenance_command_line
from jvmlab.errors import Interrupted, UserError

if TYPE_CHECKING:
    from jvmlab.plan.prepare import Plan
    from jvmlab.store.protocol import Store
    from jvmlab.tune.model import Trial
    from jvmlab.tune.space import TuneConfig
    from jvmlab.tune.tuning import Tuning


@app.command("tune")
def tune_cmd(
    spec: Path = typer.Argument(..., help="A spec with a \\[tune] section (docs/tuning.md)."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
    resume: bool = typer.Option(False, "--resume", help="Continue the newest tuning run of this spec."),
    html: Path | None = typer.Option(None, "--html",
                                     help="Also write the tuning report (history, Pareto, importances)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No live progress."),
    cluster: str | None = typer.Option(None, "--cluster", help="Run the trials' invocations on a Dask scheduler, "
                                       "e.g. tcp://HOST:8786: each block whole on one node (docs/cluster.md)."),
    optuna_storage: str | None = typer.Option(None, "--optuna-storage", help="Also keep the Optuna study "
                                              "in this RDB URL (sqlite:///optuna.db) for optuna-dashboard."),
) -> None:
    """Search the \\[tune] space with Optuna, racing candidates in paired blocks; confirm the winner."""
    from jvmlab.plan.prepare import prepare
    from jvmlab.spec.load import load_spec
    from jvmlab.store import open_store, store_url
    from jvmlab.tune.flow import open_experiment

    parsed, text = load_spec(spec)
    if parsed.tune is None:
        raise UserError(f"{spec} has no [tune] section (see docs/tuning.md)")
    plan = prepare(parsed, text, spec)
    check_tune(plan)  # bad input: one line before anything runs or is stored
    if optuna_storage is not None:  # a bad URL: one line before anything runs
        from jvmlab.tune.sampler import open_storage

        open_storage(optuna_storage, None)
    db = open_store(store)
    artifacts = default_artifacts(store_url(store)).absolute()
    if cluster is not None:
        _refuse_machine_only(plan)
    client = _cluster_client(cluster, db.url)  # no worker, or SQLite with remote ones: refused before anything
    try:
        exp_id = open_experiment(plan, db, artifacts, resume, provenance_command_line())
        run_and_show(db, plan, exp_id, artifacts, html, quiet, client, optuna_storage)
    finally:
        if client is not None:
            client.close()


def _refuse_machine_only(plan: Plan) -> None:
    """What is prepared on this machine only (environment, archives) would be missing on the nodes."""
    from jvmlab.cluster.run import refuse_machine_only
    from jvmlab.tune.cells import space_prepares

    refuse_machine_only(plan, "tune --cluster")
    if space_prepares(plan):
        raise UserError("tune --cluster: a [tune] value asks for an archive (prepare), made on this machine "
                        "only, not on the cluster's nodes; tune it without --cluster")


def _cluster_client(address: str | None, store_url: str) -> Any:
    if address is None:
        return None
    from jvmlab.cluster.run import connect, wait_for_workers

    client = connect(address)
    try:
        wait_for_workers(client, store_url)
    except BaseException:
        client.close()
        raise
    return client


def check_tune(plan: Plan) -> TuneConfig:
    """What `tune` checks before it runs (types, ranges, measured metrics, flags on the JDK):
    bad input is one line before anything runs."""
    from jvmlab.tune.flow import check_space, read_config
    from jvmlab.tune.jvm import FlagChecker

    config = read_config(plan)
    check_space(config, FlagChecker(plan), next(iter(plan.spec.jvms)))
    return config


def tune_here(plan: Plan, store: str | None, resume: bool, quiet: bool) -> tuple[Store, int]:
    """Check the space, then tune on this machine with live progress (`demo tune`, `gc advise
    --tune`); the store and the experiment's id."""
    from jvmlab.store import open_store
    from jvmlab.tune.flow import open_experiment

    check_tune(plan)
    db = open_store(store)
    artifacts = default_artifacts(db.url).absolute()
    exp_id = open_experiment(plan, db, artifacts, resume, provenance_command_line())
    run_and_show(db, plan, exp_id, artifacts, None, quiet)
    return db, exp_id


def run_and_show(db: Store, plan: Plan, exp_id: int, artifacts: Path, html: Path | None, quiet: bool,
                 client: Any = None, optuna_storage: str | None = None) -> None:
    """Run (or replay and continue) the tuning, live progress on stderr, summary on stdout;
    with a Dask ``client`` the invocations run on the cluster's nodes."""
    from jvmlab.cli.running import tune_plan
    from jvmlab.model.documents import TuneDocument
    from jvmlab.report.tune_html import write_tune_html
    from jvmlab.tune.progress import Heartbeat, TuneProgress
    from jvmlab.tune.summary import progress_line, resume_text, summary_text

    err = Console(stderr=True)
    started = time.monotonic()
    measurer: Any = None

    def on_measurer(given: Any) -> None:
        nonlocal measurer
        measurer = given
        if client is not None and not quiet:
            refused = f", {len(given.refused)} refused" if given.refused else ""
            err.print(f"cluster: {len(given.nodes)} node(s) accepted{refused}; {given.width} block(s) at a time",
                      highlight=False)

    def on_trial(trial: Trial, session: Tuning) -> None:
        if not quiet:
            elapsed = time.monotonic() - started
            nodes = (f"  nodes {len(measurer.nodes)}, {measurer.measured / elapsed:.2f} inv/s"
                     if client is not None and elapsed > 0 else "")
            err.print(progress_line(trial, session, elapsed) + nodes, highlight=False)

    progress = TuneProgress(None if quiet else lambda line: err.print(line, highlight=False, soft_wrap=True))
    try:
        # a line at least every 10 s in every phase, TTY or not; the session runs the spec's hooks
        with Heartbeat(progress):
            config, result, measurer = tune_plan(plan, db, exp_id, artifacts, client=client,
                                                 on_measurer=on_measurer, on_trial=on_trial, progress=progress,
                                                 optuna_storage=optuna_storage)
    except KeyboardInterrupt:  # the session marked the experiment interrupted
        spec = str(plan.spec_path) if plan.spec_path else None
        raise Interrupted(signal.SIGINT, resume_text(spec, db.url, len(db.invocations(exp_id)),
                                                     optuna_storage)) from None
    typer.echo(summary_text(config, result, exp_id, measurer.replayed))
    if client is not None:
        typer.echo(_cluster_line(measurer, time.monotonic() - started))
    if html is not None:
        write_tune_html(html, db.record(exp_id, TuneDocument), plan.spec.name or "tune")
        typer.echo(f"HTML report: {html}")


def _cluster_line(measurer: Any, elapsed_s: float) -> str:
    """What the cluster gave: nodes' busy time over the wall time is the parallel speed-up."""
    nodes = len(measurer.nodes) + len(measurer.refused)
    speedup = (f", speed-up {measurer.busy_s / elapsed_s:.2f}x over one node"
               if elapsed_s > 0 and measurer.busy_s else "")
    return (f"Cluster: {measurer.measured} invocations run on {len(measurer.nodes)} of {nodes} node(s), "
            f"{measurer.width} block(s) at a time; nodes busy {measurer.busy_s:.1f} s in {elapsed_s:.1f} s{speedup}")


def tune_demo(quick: bool, store: str | None) -> None:
    """`jvmlab demo tune`: tune the built-in spec, then print the confirmed winner's `apply`."""
    from jvmlab.plan.prepare import prepare
    from jvmlab.scenarios.tune import tune_spec
    from jvmlab.spec.load import parse_spec
    from jvmlab.tune.apply import apply_for

    text = tune_spec(quick)
    db, exp_id = tune_here(prepare(parse_spec(text, "scenario tune"), text, None), store, resume=False, quiet=False)
    typer.echo(f"\n$ jvmlab apply {exp_id}")
    typer.echo(apply_for(db, exp_id))


@app.command("apply")
def apply_cmd(
    experiment: int | None = typer.Argument(None, help="A tuning experiment's id (`jvmlab results`); "
                                            "default: the latest tuning experiment."),
    store: str | None = typer.Option(None, "--store", help=STORE_HELP),
) -> None:
    """Print the tuned winner as a java command line, env exports, Dockerfile ENV, systemd drop-in
    (a `rightsize` search: the Kubernetes resources and env of the size it chose)."""
    from jvmlab.model.documents import RightsizeDocument, TuneDocument
    from jvmlab.store import open_store
    from jvmlab.tune.apply import apply_for, latest_tuning

    db = open_store(store, must_exist=True)
    if experiment is not None and (sized := db.record(db.experiment(experiment).id, RightsizeDocument)) is not None \
            and db.record(experiment, TuneDocument) is None:
        from jvmlab.report.rightsize import k8s_text

        typer.echo(k8s_text(sized, experiment), nl=False)
        return
    if experiment is None:
        experiment = latest_tuning([(e.id, db.record(e.id, TuneDocument) is not None)
                                    for e in db.experiments()])
        typer.echo(f"jvmlab apply: the latest tuning experiment, {experiment}", err=True)
    typer.echo(apply_for(db, experiment))
