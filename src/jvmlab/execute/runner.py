"""The experiment loop: store the plan, run each slot in order, store each invocation the
moment it finishes, check the machine between blocks, and stop when the answer is clear
(``--until``) or the budget is spent. Resume skips what is already stored.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from jvmlab import __version__, hazards
from jvmlab.collect.base import Collected, Collector, ProbeContext
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.errors import Interrupted, UserError
from jvmlab.execute.budget import FailureBudget
from jvmlab.execute.load import BUSY_SHARE, LoadWatch
from jvmlab.execute.local import LocalExecutor
from jvmlab.execute.records import InvocationPlan, ProcessResult, Status
from jvmlab.hazards import Hazard
from jvmlab.machine.environment import Environment
from jvmlab.machine.fingerprint import changes, fingerprint
from jvmlab.plan.metric_choice import MetricChoice, remember_metric
from jvmlab.plan.prepare import Plan, PreparedCell
from jvmlab.plan.schedule import Slot, schedule
from jvmlab.store.sql import SqlStore


@dataclass(frozen=True)
class RunOptions:
    artifacts_root: Path
    resume: bool = False
    command_line: str = ""
    collect_overrides: dict[str, bool] = field(default_factory=dict)
    until_rel: float | None = None  # stop when every CI half-width <= this share of the baseline mean
    max_invocations: int | None = None  # measured invocations, all cells together
    budget_s: float | None = None
    metric: str = "wall_s"
    metric_reason: str = ""  # recorded with the metric so `report` compares the same one


class RunObserver(Protocol):
    def planned(self, experiment_id: int, total: int, already_done: int) -> None: ...
    def starting(self, cell: PreparedCell, slot: Slot) -> None: ...
    def finished(self, cell: PreparedCell, slot: Slot, result: ProcessResult) -> None: ...
    def warn(self, hazard: Hazard) -> None: ...
    def extended(self, added: int, note: str) -> None: ...


class Executor(Protocol):
    def run(self, plan: InvocationPlan, probes: list) -> ProcessResult: ...


# A function deciding, from the store, whether the comparisons are precise enough.
# Whether the comparisons are precise enough; the answer may also carry an estimate of
# invocations per cell still needed (``remaining_per_cell``) for the progress bar.
PrecisionCheck = Callable[[SqlStore, int, str, float], object]


@dataclass
class _State:
    experiment_id: int
    cell_ids: dict[int, int]
    fingerprint: dict
    budget: FailureBudget
    started: float = field(default_factory=time.monotonic)
    measured: int = 0
    environment: Environment | None = None


def run_experiment(plan: Plan, store: SqlStore, options: RunOptions, observer: RunObserver,
                   executor: Executor | None = None,
                   precision_check: PrecisionCheck | None = None) -> int:
    """Run (or resume) the plan's experiment; return its id. Raises Interrupted on Ctrl-C
    or SIGTERM after storing everything measured so far."""
    from jvmlab.machine.environment import build_environment

    executor = executor or LocalExecutor()
    environment = build_environment(plan, options.artifacts_root)
    try:
        plan = environment.setup(plan)
        return _run_prepared(plan, store, options, observer, executor, precision_check, environment)
    finally:
        environment.teardown()


def _run_prepared(plan: Plan, store: SqlStore, options: RunOptions, observer: RunObserver,
                  executor: Executor, precision_check: PrecisionCheck | None, environment: Environment) -> int:
    spec = plan.spec
    state = _open_experiment(plan, store, options)
    remember_metric(store, state.experiment_id, MetricChoice(options.metric, options.metric_reason or "recorded"))
    settings = CollectSettings.from_spec(spec.collect, options.collect_overrides)
    collectors = {pc.cell.index: build_collectors(settings, pc.launch.progress_regex, spec.workload.progress_mode)
                  for pc in plan.cells}
    done = store.done_slots(state.experiment_id)
    state.measured = sum(1 for _, block in done if block >= 0)
    blocks = spec.run.invocations
    slots = schedule(len(plan.cells), spec.run.warmup, range(blocks), spec.run.order, spec.run.seed)
    observer.planned(state.experiment_id, len(slots), sum(1 for s in slots if (s.cell_index, s.block) in done))
    state.environment = environment
    try:
        _run_slots(plan, store, options, observer, executor, collectors, state, slots, done)
        if options.until_rel is not None and precision_check is not None:
            _run_until(plan, store, options, observer, executor, collectors, state, blocks, precision_check)
    except KeyboardInterrupt:
        _interrupted(store, state, plan, options, 2)
    except Interrupted as err:
        _interrupted(store, state, plan, options, err.signum)
    store.set_status(state.experiment_id, "done", finished=True)
    return state.experiment_id


def _open_experiment(plan: Plan, store: SqlStore, options: RunOptions) -> _State:
    spec = plan.spec
    budget = FailureBudget(spec.run.max_consecutive_failures, spec.run.max_failures)
    print_fp = fingerprint(plan.jdk_homes)
    if options.resume:
        found = store.find_resumable(plan.spec_hash)
        if found is None:
            raise UserError("nothing to resume: no experiment of this exact spec in the store "
                            f"{store.url}; run it without --resume")
        cells = {c.idx: c.id for c in store.cells(found.id)}
        if len(cells) != len(plan.cells):
            raise UserError(f"experiment {found.id} has {len(cells)} cells but the spec now makes "
                            f"{len(plan.cells)}; run it as a new experiment")
        store.set_status(found.id, "running")
        return _State(found.id, cells, found.fingerprint, budget)
    exp_id = store.create_experiment(
        name=spec.name or (plan.spec_path.stem if plan.spec_path else "experiment"),
        spec_text=plan.spec_text, spec_hash=plan.spec_hash,
        spec_path=str(plan.spec_path) if plan.spec_path else None, fingerprint=print_fp,
        seed=spec.run.seed, command_line=options.command_line, jvmlab_version=__version__,
        artifacts_dir=str(options.artifacts_root))
    cell_ids = {}
    for pc in plan.cells:
        example = pc.launch.argv(pc.jdk, list(pc.flags), pc.cell.args)
        cell_ids[pc.cell.index] = store.add_cell(
            exp_id, idx=pc.cell.index, name=pc.cell.name, jvm=pc.cell.jvm, jdk=pc.jdk.to_json(),
            levels=dict(pc.cell.levels), requested_flags=list(pc.cell.flags), flags=list(pc.flags),
            final_flags=pc.final_flags, argv=example)
        for warning in pc.check_warnings:
            store.add_hazard(exp_id, Hazard(hazards.FLAG_NOT_IN_EFFECT, f"{warning} (the JVM said so when the "
                                            f"flags were checked)", hint="the flag is accepted but does not "
                                            "apply; fix the machine setting or drop the flag", cell=pc.cell.name))
        if pc.added_unlocks:
            store.add_hazard(exp_id, Hazard(hazards.UNLOCK_ADDED, f"added {' '.join(pc.added_unlocks)} for "
                                            f"diagnostic/experimental flags", cell=pc.cell.name))
    store.set_baseline(exp_id, plan.baseline_index)
    return _State(exp_id, cell_ids, print_fp, budget)


def _run_slots(plan: Plan, store: SqlStore, options: RunOptions, observer: RunObserver,
               executor: Executor, collectors: dict[int, list[Collector]], state: _State,
               slots: list[Slot], done: set[tuple[int, int]]) -> None:
    load = LoadWatch()
    current_block: int | None = None
    for slot in slots:
        if slot.block != current_block:
            if current_block is not None:
                _between_blocks(plan, store, observer, state, load, current_block)
            current_block = slot.block
            load.start()
        if (slot.cell_index, slot.block) in done or state.budget.cell_stopped(slot.cell_index):
            continue
        if state.budget.exhausted:
            _warn(store, observer, state, Hazard(hazards.FAILURE_BUDGET,
                  f"{state.budget.total} failures reached the limit of {state.budget.max_total}; stopped"))
            return
        if _out_of_budget(options, state):
            return
        _run_one(plan, store, options, observer, executor, collectors, state, slot)
    if current_block is not None:
        _between_blocks(plan, store, observer, state, load, current_block)


def _run_until(plan: Plan, store: SqlStore, options: RunOptions, observer: RunObserver,
               executor: Executor, collectors: dict[int, list[Collector]], state: _State,
               first_block: int, precision_check: PrecisionCheck) -> None:
    """Add blocks until every comparison's CI is narrow enough, or the budget is spent.

    The rule looks only at CI width, never at significance, so it cannot chase a p-value."""
    block = first_block
    target = options.until_rel or 0.0
    while not (precision := precision_check(store, state.experiment_id, options.metric, target)):
        if _out_of_budget(options, state):
            observer.extended(0, "budget spent before the target precision")
            _warn(store, observer, state, Hazard(hazards.PRECISION_NOT_REACHED,
                  f"stopped by the budget before every 95% CI was within {target:.1%}",
                  hint="raise --max-invocations or --budget"))
            return
        slots = schedule(len(plan.cells), 0, range(block, block + 1), plan.spec.run.order, plan.spec.run.seed)
        remaining = getattr(precision, "remaining_per_cell", None)
        estimate = f"; about {remaining} more per cell expected" if remaining else ""
        observer.extended(len(slots), f"block {block + 1} for a CI within {target:.1%}{estimate}")
        _run_slots(plan, store, options, observer, executor, collectors, state, slots, set())
        block += 1


def _out_of_budget(options: RunOptions, state: _State) -> bool:
    if options.max_invocations is not None and state.measured >= options.max_invocations:
        return True
    return options.budget_s is not None and time.monotonic() - state.started >= options.budget_s


def _run_one(plan: Plan, store: SqlStore, options: RunOptions, observer: RunObserver,
             executor: Executor, collectors: dict[int, list[Collector]], state: _State, slot: Slot) -> None:
    pc = plan.cells[slot.cell_index]
    spec = plan.spec
    tag = f"w{-slot.block}" if slot.warmup else f"b{slot.block}"
    artifacts = options.artifacts_root / f"exp-{state.experiment_id}" / f"cell-{pc.cell.index}" / tag
    artifacts.mkdir(parents=True, exist_ok=True)
    ctx = ProbeContext(jdk=pc.jdk, cell_name=pc.cell.name, flags=pc.flags, artifacts_dir=artifacts,
                       final_flags=pc.final_flags)
    probes = [c.probe(ctx) for c in collectors[pc.cell.index]]
    jvm_flags = list(pc.flags) + [arg for p in probes for arg in p.jvm_args()]
    argv = pc.launch.argv(pc.jdk, jvm_flags, pc.cell.args)
    env = {**os.environ, **spec.workload.env, **dict(pc.cell.env), "JAVA_HOME": str(pc.jdk.home)}
    cwd = Path(spec.workload.cwd).expanduser() if spec.workload.cwd else (
        plan.spec_path.parent if plan.spec_path else Path.cwd())
    invocation = InvocationPlan(
        argv=tuple(argv), env=env, cwd=cwd, timeout_s=spec.workload.timeout or spec.run.timeout,
        artifacts_dir=artifacts, ready_regex=spec.workload.ready,
        output_cap_bytes=spec.collect.output_cap_bytes)
    observer.starting(pc, slot)
    env_hazards = state.environment.before(pc) if state.environment is not None else []
    result = executor.run(invocation, probes)
    collected = Collected()
    for probe in probes:
        collected.merge(probe.finish(result))
    hazards_found = [Hazard(h.kind, h.detail, h.hint, h.cell or pc.cell.name)
                     for h in [*env_hazards, *collected.hazards]]
    collected.hazards = hazards_found
    store.record_invocation(state.experiment_id, state.cell_ids[pc.cell.index], block=slot.block,
                            position=slot.position, result=result, collected=collected, argv=argv,
                            artifacts_dir=str(artifacts))
    if not slot.warmup:
        state.measured += 1
    observer.finished(pc, slot, result)
    why = state.budget.record(pc.cell.index, result.status == Status.OK)
    if why:
        _warn(store, observer, state, Hazard(hazards.FAILURE_BUDGET, f"{pc.cell.name}: {why}",
              hint=f"last failure: {result.reason}", cell=pc.cell.name))


def _between_blocks(plan: Plan, store: SqlStore, observer: RunObserver, state: _State,
                    load: LoadWatch, block: int) -> None:
    share = load.other_share()
    if share is not None and share > BUSY_SHARE:
        _warn(store, observer, state, Hazard(hazards.BUSY_MACHINE,
              f"other processes used {share:.0%} of the CPU during block {block}",
              hint="stop other work on this machine, or rerun; see `jvmlab doctor`"))
    now = fingerprint(plan.jdk_homes)
    for change in changes(state.fingerprint, now):
        _warn(store, observer, state, Hazard(hazards.FINGERPRINT_CHANGED, f"after block {block}: {change}",
              hint="results before and after the change are not comparable; rerun the experiment"))
    state.fingerprint = now


def _warn(store: SqlStore, observer: RunObserver, state: _State, hazard: Hazard) -> None:
    store.add_hazard(state.experiment_id, hazard)
    observer.warn(hazard)


def _interrupted(store: SqlStore, state: _State, plan: Plan, options: RunOptions, signum: int) -> None:
    store.set_status(state.experiment_id, "interrupted")
    spec_arg = str(plan.spec_path) if plan.spec_path else "SPEC"
    raise Interrupted(signum, f"interrupted; {state.measured} measured invocations are stored in "
                              f"{store.url}; continue with: jvmlab run {spec_arg} --resume --store {store.url}")
