"""``jvmlab run SPEC --cluster tcp://HOST:8786``: the session (``execute.session``) with the
Dask block runner (``cluster.dispatch.Dispatcher``). The plan, the store, resume, ``--until``
and the budget are the session's own; only who runs each slot differs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from jvmlab.cluster.dispatch import Dispatcher, quiet_client_logs
from jvmlab.cluster.nodes import check_store
from jvmlab.cluster.share import parse_artifacts_url
from jvmlab.errors import UserError
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import RunObserver
from jvmlab.execute.session import Session
from jvmlab.machine.environment import machine_only
from jvmlab.plan.prepare import Plan
from jvmlab.results.node_precision import node_precision_reached
from jvmlab.store.protocol import Store


def connect(address: str) -> Any:
    """A Dask client for the scheduler at ``address``; one clear line when it cannot be reached."""
    try:
        from distributed import Client
    except ImportError:
        raise UserError("--cluster needs Dask: pip install 'jvmlab[cluster]'") from None
    quiet_client_logs()  # a lost scheduler is jvmlab's one line, not Dask's tracebacks
    try:
        return Client(address, timeout="10s")  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as err:
        raise UserError(f"cannot reach the Dask scheduler at {address}: {err}; start one with "
                        f"`dask scheduler` or `jvmlab cluster local`") from None


def wait_for_workers(client: Any, store_url: str, timeout_s: float = 60.0) -> list[str]:
    """Some worker must be there, and an SQLite store only with local workers: checked before the
    experiment is created, so a refusal leaves nothing behind. The workers there now."""
    try:
        client.wait_for_workers(1, timeout=timeout_s)
    except TimeoutError:
        raise UserError(f"no Dask worker joined the scheduler within {timeout_s:.0f} s; start one per machine "
                        f"with `dask worker SCHEDULER --nthreads 1 --resources jvm=1`") from None
    live = list(client.scheduler_info(n_workers=-1)["workers"])
    check_store(store_url, live)
    return live


def run_on_cluster(plan: Plan, store: Store, options: RunOptions, observer: RunObserver, client: Any,
                   executor: object | None = None, artifacts_url: str | None = None) -> int:
    """Run (or resume) the plan's experiment in a session whose block runner is the cluster.

    Ctrl-C cancels the outstanding tasks; every finished invocation is already stored. With
    ``options.until_rel`` rounds of blocks are added (:mod:`jvmlab.execute.until`); with
    ``artifacts_url`` nodes leave their artifacts on that share (:mod:`jvmlab.cluster.share`)."""
    share = parse_artifacts_url(artifacts_url) if artifacts_url is not None else None
    session = Session(store, plan, options, observer, precision_check=node_precision_reached)
    session.resolve()  # a refused resume (a changed cell) is refused before waiting for workers
    wait_for_workers(client, store.url)
    return session.run(Dispatcher(client, session, executor, share=share))


def refuse_machine_only(plan: Plan, command: str) -> None:
    """One line, exit 2: what is set up on this machine only would be silently missing on the nodes."""
    local = machine_only(plan)
    if local:
        raise UserError(f"{command}: {', '.join(local)} is prepared on this machine only, not on the "
                        "cluster's nodes; run it without --cluster")


def run_at(address: str, plan: Plan, store: Store, options: RunOptions, observer: RunObserver,
           artifacts_url: str | None = None) -> int:
    """`run --cluster ADDRESS`: refuse machine-only setup, connect, run the session on the cluster,
    close the client (the cluster keeps running)."""
    refuse_machine_only(plan, "run --cluster")
    client = connect(address)
    try:
        return run_on_cluster(plan, store, options, observer, client, artifacts_url=artifacts_url)
    finally:
        client.close()


@contextmanager
def on_cluster(address: str, plan: Plan, store: Store, command: str) -> Iterator[Callable[[Session], Dispatcher]]:
    """A driver's block runner on the cluster at ``address`` (``minheap --cluster``): refuse
    machine-only setup, connect, wait for a worker; the client is closed on the way out."""
    refuse_machine_only(plan, command)
    client = connect(address)
    try:
        wait_for_workers(client, store.url)
        yield lambda session: Dispatcher(client, session)
    finally:
        client.close()
