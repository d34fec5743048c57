"""`jvmlab cluster local` (a LocalCluster on 127.0.0.1 to try `run --cluster`) and the node
section printed after a cluster run."""

from __future__ import annotations

import time

import typer

from jvmlab.cli.apps import app
from jvmlab.errors import UserError

cluster_app = typer.Typer(help="Run experiments on a Dask cluster (see docs/cluster.md).", no_args_is_help=True)
app.add_typer(cluster_app, name="cluster")


@cluster_app.command("local")
def local(workers: int = typer.Option(2, "--workers", "-n", min=1, max=64, help="Workers (nodes) to start."),
          port: int = typer.Option(8786, "--port", min=0, max=65535,
                                   help="Scheduler port on 127.0.0.1 (0: any free one).")) -> None:
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

