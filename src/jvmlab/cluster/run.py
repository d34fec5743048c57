"""``jvmlab run SPEC --cluster tcp://HOST:8786``: the experiment loop of ``execute.runner`` with
the slots run on a Dask cluster. The plan, the store, resume and the failure budget are the
runner's own; only who runs each slot differs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from jvmlab.cluster.dispatch import Dispatcher
from jvmlab.cluster.nodes import check_store
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.errors import Interrupted, UserError
from jvmlab.execute.runner import RunObserver, RunOptions, _interrupted, _open_experiment, _remember_options
from jvmlab.plan.prepare import Plan
from jvmlab.plan.schedule import Slot, schedule
from jvmlab.store.sql import SqlStore


@dataclass
class ClusterContext:
    """What the dispatcher needs from the runner, in one object."""

    plan: Plan
    store: SqlStore
    options: RunOptions
    observer: RunObserver
    collectors: dict
    state: Any
    settings: CollectSettings


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
    spec = plan.spec
    blocks = [b for b in range(-spec.run.warmup, spec.run.invocations)]
    added = sorted({block for _, block in done if block >= spec.run.invocations})
    out = []
    for block in [*blocks, *added]:
        slots = schedule(len(plan.cells), 0, range(block, block + 1), spec.run.order, spec.run.seed) \
            if block >= 0 else [replace(s, block=block) for s in
                                schedule(len(plan.cells), 0, range(0, 1), spec.run.order, spec.run.seed)]
        out.append([s for s in slots if (s.cell_index, s.block) not in done])
    return out


def _wait_for_workers(client: Any, store: SqlStore, timeout_s: float = 60.0) -> None:
    """Some worker must be there, and an SQLite store only with local workers: checked before the
    experiment is created, so a refusal leaves nothing behind."""
    try:
        client.wait_for_workers(1, timeout=timeout_s)
    except TimeoutError:
        raise UserError(f"no Dask worker joined the scheduler within {timeout_s:.0f} s; start one per machine "
                        f"with `dask worker SCHEDULER --nthreads 1 --resources jvm=1`") from None
    check_store(store.url, list(client.scheduler_info(n_workers=-1)["workers"]))


def run_on_cluster(plan: Plan, store: SqlStore, options: RunOptions, observer: RunObserver, client: Any,
                   executor: object | None = None) -> int:
    """Run (or resume) the plan's experiment on the cluster; return its id.

    Ctrl-C cancels the outstanding tasks; every finished invocation is already stored."""
    if options.until_rel is not None:
        raise UserError("--until is not supported with --cluster yet: give a number of invocations")
    options = replace(options, artifacts_root=options.artifacts_root.absolute())
    _wait_for_workers(client, store)
    state = _open_experiment(plan, store, options)
    options = _remember_options(store, state.experiment_id, options, plan)
    # RunOptions.collect_overrides says dict[str, bool] (execute/runner.py) but the CLI also passes str values
    settings = CollectSettings.from_spec(plan.spec.collect, options.collect_overrides)  # type: ignore[arg-type]
    collectors = {pc.cell.index: build_collectors(settings, pc.launch.progress_regex, plan.spec.workload.progress_mode,
                                                  jmh=pc.launch.kind == "jmh") for pc in plan.cells}
    done = store.done_slots(state.experiment_id)
    state.measured = sum(1 for _, block in done if block >= 0)
    blocks = node_blocks(plan, done)
    observer.planned(state.experiment_id, sum(map(len, blocks)) + len(done), len(done))
    context = ClusterContext(plan, store, options, observer, collectors, state, settings)
    dispatcher = Dispatcher(client, context, executor)
    try:
        dispatcher.run(blocks)
    except KeyboardInterrupt:
        _interrupted(store, state, plan, options, 2)
    except Interrupted as err:
        _interrupted(store, state, plan, options, err.signum)
    store.set_status(state.experiment_id, "done", finished=True)
    return state.experiment_id
