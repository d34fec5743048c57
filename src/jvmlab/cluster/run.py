"""``jvmlab run SPEC --cluster tcp://HOST:8786``: the experiment loop of ``execute.runner`` with
the slots run on a Dask cluster. The plan, the store, resume and the failure budget are the
runner's own; only who runs each slot differs.
"""

from __future__ import annotations

from typing import Any

from jvmlab.cluster.dispatch import Dispatcher
from jvmlab.cluster.nodes import check_store
from jvmlab.cluster.share import parse_artifacts_url
from jvmlab.cluster.until import PrecisionCheck, run_until
from jvmlab.errors import Interrupted, UserError
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import RunObserver
from jvmlab.execute.runner import Runner
from jvmlab.plan.prepare import Plan
from jvmlab.plan.schedule import Slot
from jvmlab.results.node_precision import node_precision_reached
from jvmlab.store.protocol import Store


def connect(address: str) -> Any:
    """A Dask client for the scheduler at ``address``; one clear line when it cannot be reached."""
    try:
        from distributed import Client
    except ImportError:
        raise UserError("--cluster needs Dask: pip install 'jvmlab[cluster]'") from None
    try:
        return Client(address, timeout="10s")
    except (OSError, TimeoutError) as err:
        raise UserError(f"cannot reach the Dask scheduler at {address}: {err}; start one with "
                        f"`dask scheduler` or `jvmlab cluster local`") from None


def node_blocks(plan: Plan, done: set[tuple[int, int]]) -> list[list[Slot]]:
    """Each block (warm-ups included) as one unit of work: a block runs whole on one node."""
    shape = plan.shape
    blocks = [b for b in range(-shape.warmup, shape.invocations)]
    added = sorted({block for _, block in done if block >= shape.invocations})
    out = []
    for block in [*blocks, *added]:
        slots = shape.block(len(plan.cells), block)
        out.append([s for s in slots if (s.cell_index, s.block) not in done])
    return out


def next_block(plan: Plan, done: set[tuple[int, int]]) -> int:
    """The first block ``--until`` adds: after the planned ones and any an earlier session added."""
    return max([plan.shape.invocations - 1, *(block for _, block in done)]) + 1


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
                   executor: object | None = None, artifacts_url: str | None = None,
                   precision_check: PrecisionCheck = node_precision_reached) -> int:
    """Run (or resume) the plan's experiment on the cluster; return its id.

    Ctrl-C cancels the outstanding tasks; every finished invocation is already stored. With
    ``options.until_rel`` blocks are added after the planned ones (:mod:`jvmlab.cluster.until`);
    with ``artifacts_url`` nodes leave their artifacts on that share (:mod:`jvmlab.cluster.share`)."""
    share = parse_artifacts_url(artifacts_url) if artifacts_url is not None else None
    runner = Runner(store, plan, options, observer)
    runner.resolve()  # a refused resume (a changed cell) is refused before waiting for workers
    wait_for_workers(client, store.url)
    state = runner.open()
    done = runner.done()
    blocks = node_blocks(runner.plan, done)
    observer.planned(state.experiment_id, sum(map(len, blocks)) + len(done), len(done),
                     options.until_rel is not None)
    dispatcher = Dispatcher(client, runner, executor, share=share)
    try:
        dispatcher.run(blocks)
        if options.until_rel is not None:
            run_until(dispatcher, runner, next_block(runner.plan, done), precision_check)
    except KeyboardInterrupt:
        runner.interrupted(2)
    except Interrupted as err:
        runner.interrupted(err.signum)
    store.set_status(state.experiment_id, "done", finished=True)
    return state.experiment_id
