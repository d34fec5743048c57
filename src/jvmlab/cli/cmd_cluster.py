"""`jvmlab cluster local` (a LocalCluster on 127.0.0.1 to try `run --cluster`) and the node
section printed after a cluster run."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import typer

from jvmlab.cli.apps import app
from jvmlab.errors import UserError

if TYPE_CHECKING:
    from jvmlab.execute.session import RunObserver, RunOptions
    from jvmlab.plan.prepare import Plan
    from jvmlab.store.protocol import Store

cluster_app = typer.Typer(help="Run experiments on a Dask cluster (see docs/cluster.md).", no_args_is_help=True)
app.add_typer(cluster_app, name="cluster")


@cluster_app.command("local")
def local(workers: int = typer.Option(2, "--workers", "-n", min=1, max=64, help="Workers (nodes) to start."),
          port: int = typer.Option(8786, "--port", help="Scheduler port on 127.0.0.1.")) -> None:
    """Start a scheduler and N quiet single-thread workers (one `jvm` slot each) on 127.0.0.1; Ctrl-C stops them."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UserError("`jvmlab cluster` needs Dask: pip install 'jvmlab[cluster]'") from None
    from jvmlab.cluster.local import start_local_cluster, stop_local_cluster

    try:
        cluster = start_local_cluster(workers, port=port)
    except (OSError, RuntimeError) as err:
        raise UserError(f"cannot start a local cluster on 127.0.0.1:{port}: {err}; try another --port") from None
    try:
        typer.echo(f"scheduler {cluster.scheduler_address} with {workers} quiet worker(s) (no dashboard, "
                   f"no work stealing, no spilling)")
        typer.echo(f"run with: jvmlab run SPEC --cluster {cluster.scheduler_address} --store postgresql+psycopg://...")
        typer.echo("Ctrl-C stops the cluster")
        while True:
            time.sleep(1.0)
    except KeyboardInterrupt:
        typer.echo("stopping the cluster", err=True)
    finally:
        stop_local_cluster(cluster)  # the workers first: no CommClosedError traceback


def check_artifacts_url(artifacts_url: str | None, cluster: str | None) -> None:
    """--artifacts-url is where cluster nodes leave artifacts: checked before any work starts."""
    if artifacts_url is None:
        return
    if cluster is None:
        raise UserError("--artifacts-url is for --cluster runs (one machine writes to --artifacts)")
    from jvmlab.cluster.share import parse_artifacts_url

    parse_artifacts_url(artifacts_url)


def refuse_machine_only(plan: Plan, command: str) -> None:
    """One line, exit 2: what is set up on this machine only would be silently missing on the nodes."""
    from jvmlab.machine.environment import machine_only

    local = machine_only(plan)
    if local:
        raise UserError(f"{command}: {', '.join(local)} is prepared on this machine only, not on the "
                        "cluster's nodes; run it without --cluster")


def run_cluster_plan(plan: Plan, db: Store, options: RunOptions, observer: RunObserver, address: str,
                     artifacts_url: str | None = None) -> int:
    """`run --cluster`: connect, run on the cluster, close the client (the cluster keeps running)."""
    from jvmlab.cluster.run import connect, run_on_cluster

    refuse_machine_only(plan, "run --cluster")
    client = connect(address)
    try:
        return run_on_cluster(plan, db, options, observer, client, artifacts_url=artifacts_url)
    finally:
        client.close()
