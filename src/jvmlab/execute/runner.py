"""The experiment loop: store the plan, run each slot in order, store each invocation the
moment it finishes, check the machine between blocks, and stop when the answer is clear
(``--until``) or the budget is spent. Resume skips what is already stored.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from jvmlab import __version__, hazards
from jvmlab.collect.base import Collected, Collector, ProbeContext
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.errors import Interrupted, UserError
from jvmlab.execute.budget import FailureBudget
from jvmlab.execute.load import BUSY_SHARE, LoadWatch
from jvmlab.execute.windows import default_executor
from jvmlab.execute.records import InvocationPlan, ProcessResult, Status
from jvmlab.execute.resume import DEFAULT_METRIC, merge_stored, options_record, resume_command
from jvmlab.hazards import Hazard
from jvmlab.machine.environment import Environment
from jvmlab.machine.fingerprint import changes, fingerprint
from jvmlab.plan.metric_choice import MetricChoice, remember_metric
from jvmlab.plan.prepare import Plan, PreparedCell, archive_document
from jvmlab.plan.schedule import Slot, schedule
from jvmlab.store.sql import SqlStore


@dataclass(frozen=True)
class RunOptions:
    artifacts_root: Path
    resume: bool = False
    command_line: str = ""
    collect_overrides: dict[str, bool | int | str] = field(default_factory=dict)  # collect/registry.py
    until_rel: float | None = None  # stop when every CI half-width <= this share of the baseline mean
    max_invocations: int | None = None  # measured invocations, all cells together
    budget_s: float | None = None
    metric: str | None = None  # None: the stored one on resume, else wall_s
    metric_reason: str = ""  # recorded with the metric so `report` compares the same one; "" keeps the stored


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
BUSY_HINT = "stop other work on this machine, or rerun; see `jvmlab doctor`"
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
    busy_shares: list[float] = field(default_factory=list)  # one per busy block, told once at the end


def run_experiment(plan: Plan, store: SqlStore, options: RunOptions, observer: RunObserver,
                   executor: Executor | None = None,
                   precision_check: PrecisionCheck | None = None) -> int:
    """Run (or resume) the plan's experiment; return its id. Raises Interrupted on Ctrl-C
    or SIGTERM after storing everything measured so far."""
    from jvmlab.machine.environment import build_environment

    executor = executor or default_executor()  # wait4 on POSIX, psutil on Windows
    if plan.spec.load is not None:  # a server under load (docs/servers.md): checked before anything runs
        from jvmlab.execute.server import wrap_server

        executor = wrap_server(plan, executor)
    # Every path handed to a JVM is absolute: the JVM starts in the spec's folder, not here.
    options = replace(options, artifacts_root=options.artifacts_root.absolute())
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
    archives = archive_document(plan.cells)
    if archives is not None:  # how each cell's CDS/AOT archive was made, for every report
        store.put_experiment_document(state.experiment_id, "archives", archives)
    options = _remember_options(store, state.experiment_id, options, plan)
    if options.metric_reason:
        remember_metric(store, state.experiment_id, MetricChoice(options.metric or "wall_s", options.metric_reason))
    settings = CollectSettings.from_spec(spec.collect, options.collect_overrides)
    collectors = {pc.cell.index: build_collectors(settings, pc.launch.progress_regex, spec.workload.progress_mode,
                                                  jmh=pc.launch.kind == "jmh")
                  for pc in plan.cells}
    done = store.done_slots(state.experiment_id)
    state.measured = sum(1 for _, block in done if block >= 0)
    blocks = spec.run.invocations
    slots = schedule(len(plan.cells), spec.run.warmup, range(blocks), spec.run.order, spec.run.seed)
    # Blocks an earlier --until session added beyond the planned ones (resume completes them).
    added = sorted({block for _, block in done if block >= blocks})
    slots += schedule(len(plan.cells), 0, added, spec.run.order, spec.run.seed) if added else []
    observer.planned(state.experiment_id, len(slots), len(done), options.until_rel is not None)
    state.environment = environment
    try:
        _run_slots(plan, store, options, observer, executor, collectors, state, slots, done)
        if options.until_rel is not None and precision_check is not None:
            _run_until(plan, store, options, observer, executor, collectors, state,
                       max([blocks - 1, *added]) + 1, precision_check)
    except KeyboardInterrupt:
        _busy_summary(observer, state)
        _interrupted(store, state, plan, options, 2)
    except Interrupted as err:
        _busy_summary(observer, state)
        _interrupted(store, state, plan, options, err.signum)
    _busy_summary(observer, state)
    store.set_status(state.experiment_id, "done", finished=True)
    return state.experiment_id


def _remember_options(store: SqlStore, experiment_id: int, options: RunOptions, plan: Plan) -> RunOptions:
    """Merge how this run was started into the store; a resumed run takes what it was not given.
    The JVMs' working directory is kept too (provenance: relative paths in arguments depend on it)."""
    stored = store.experiment(experiment_id).run_options
    if options.resume:
        options = merge_stored(options, stored)
    workdir = {"workdir": str(plan.workdir)} if plan.workdir is not None else {}
    store.set_run_options(experiment_id, {**stored, **options_record(options), **workdir})
    return options


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
    settings = CollectSettings.from_spec(spec.collect, options.collect_overrides)
    for pc in plan.cells:
        example = _first_block_argv(plan, pc, settings, options.artifacts_root / f"exp-{exp_id}")
        cell_ids[pc.cell.index] = store.add_cell(
            exp_id, idx=pc.cell.index, name=pc.cell.name, jvm=pc.cell.jvm, jdk=pc.jdk.to_json(),
            levels=dict(pc.cell.levels), requested_flags=list(pc.cell.flags), flags=list(pc.flags),
            final_flags=pc.final_flags, argv=example)
        for warning in pc.check_warnings:
            store.add_hazard(exp_id, Hazard(hazards.FLAG_NOT_IN_EFFECT, f"{warning} (the JVM said so when the "
                                            f"flags were checked)", hint="the flag is accepted but does not "
                                            "apply; fix the machine setting or drop the flag", cell=pc.cell.name))
        for warning in pc.heap_warnings:
            store.add_hazard(exp_id, Hazard(hazards.HEAP_EXCEEDS_MEMORY, warning, cell=pc.cell.name,
                                            hint="lower -Xmx, or run on a machine with more memory"))
        if pc.added_unlocks:
            store.add_hazard(exp_id, Hazard(hazards.UNLOCK_ADDED, f"added {' '.join(pc.added_unlocks)} for "
                                            f"diagnostic/experimental flags", cell=pc.cell.name))
    store.set_baseline(exp_id, plan.baseline_index)
    return _State(exp_id, cell_ids, print_fp, budget)


def _first_block_argv(plan: Plan, pc: PreparedCell, settings: CollectSettings, exp_dir: Path) -> list[str]:
    """The cell's command line as its first measured invocation runs it, with the flags the
    collectors add (GC log, class-load log): what the provenance section shows."""
    collectors = build_collectors(settings, pc.launch.progress_regex, plan.spec.workload.progress_mode)
    ctx = ProbeContext(jdk=pc.jdk, cell_name=pc.cell.name, flags=pc.flags,
                       artifacts_dir=exp_dir / f"cell-{pc.cell.index}" / "b0", final_flags=pc.final_flags,
                       workload_kind=pc.launch.kind)
    added = [arg for c in collectors for arg in c.probe(ctx).jvm_args()]
    return pc.launch.argv(pc.jdk, [*pc.flags, *added], pc.cell.args)


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
    metric = options.metric or DEFAULT_METRIC
    while not (precision := precision_check(store, state.experiment_id, metric, target)):
        if _out_of_budget(options, state):
            observer.extended(0, "budget spent before the target precision")
            _warn(store, observer, state, Hazard(hazards.PRECISION_NOT_REACHED,
                  f"stopped by the budget before every 95% CI was within {target:.1%}",
                  hint="raise --max-invocations or --budget"))
            return
        unreachable = _unreachable(plan, state)
        if unreachable:
            observer.extended(0, "the target precision cannot be reached")
            _warn(store, observer, state, Hazard(hazards.PRECISION_NOT_REACHED,
                  f"stopped before every 95% CI was within {target:.1%}: {unreachable}",
                  hint="see the failures with `jvmlab report`; fix the failing cell or drop it, then rerun"))
            return
        slots = schedule(len(plan.cells), 0, range(block, block + 1), plan.spec.run.order, plan.spec.run.seed)
        remaining = getattr(precision, "remaining_per_cell", None)
        estimate = f"; about {remaining} more per cell expected" if remaining else ""
        observer.extended(len(slots), f"block {block + 1} for a CI within {target:.1%}{estimate}")
        measured_before = state.measured
        _run_slots(plan, store, options, observer, executor, collectors, state, slots, set())
        block += 1
        if state.measured == measured_before and not _out_of_budget(options, state):
            # Nothing could run (every slot was skipped): another block would not either.
            _warn(store, observer, state, Hazard(hazards.PRECISION_NOT_REACHED,
                  f"stopped before every 95% CI was within {target:.1%}: block {block} measured nothing"))
            return


def _unreachable(plan: Plan, state: _State) -> str | None:
    """Why no further block can bring every comparison to the target, or None.

    The width rule needs every cell (each comparison is a cell against the baseline); a cell
    stopped by the failure budget never gets another value, so its comparison, and thus the
    rule, can never be satisfied. Measuring the healthy cells further would only spin."""
    if state.budget.exhausted:
        return (f"no comparison can reach it: {state.budget.total} failures reached the failure "
                f"budget's limit of {state.budget.max_total}")
    dead = [pc.cell.name for pc in plan.cells if state.budget.cell_stopped(pc.cell.index)]
    if not dead:
        return None
    if len(dead) == len(plan.cells):
        return "no comparison can reach it: every cell was stopped by the failure budget"
    baseline = plan.cells[plan.baseline_index].cell.name
    if baseline in dead:
        return (f"no comparison can reach it: the baseline {baseline} was stopped by the failure budget, "
                f"so no cell can be compared with it")
    names = ", ".join(dead)
    verb = "was" if len(dead) == 1 else "were"
    return (f"no comparison can reach it while {names} {verb} stopped by the failure budget "
            f"(its comparison with the baseline can never be made)")


def _out_of_budget(options: RunOptions, state: _State) -> bool:
    if options.max_invocations is not None and state.measured >= options.max_invocations:
        return True
    return options.budget_s is not None and time.monotonic() - state.started >= options.budget_s


def _run_one(plan: Plan, store: SqlStore, options: RunOptions, observer: RunObserver,
             executor: Executor, collectors: dict[int, list[Collector]], state: _State, slot: Slot) -> None:
    work = prepare_slot(plan, options, collectors, state, slot)
    observer.starting(work.cell, slot)
    env_hazards = state.environment.before(work.cell) if state.environment is not None else []
    invocation = work.invocation
    if state.environment is not None:  # CPU/memory limits: the same JVM argv, run inside a cgroup
        invocation = replace(invocation, argv=tuple(state.environment.wrap_argv(work.cell, list(invocation.argv))))
    result = executor.run(invocation, work.probes)
    collected = Collected()
    if state.environment is not None:
        result, limited = state.environment.after(work.cell, result)
        collected.merge(limited)
    result, collected = finish_probes(work, result, collected, env_hazards)
    record_slot(store, observer, state, work, result, collected)


@dataclass(frozen=True)
class SlotWork:
    """One slot made ready to run: what the executor gets, and what recording it needs.
    (Split out so a cluster executor can run the middle part on another node.)"""

    cell: PreparedCell
    slot: Slot
    invocation: InvocationPlan
    probes: list
    argv: list[str]
    artifacts: Path
    ctx: ProbeContext | None = None  # what the probes were made from (a node makes its own)


def prepare_slot(plan: Plan, options: RunOptions, collectors: dict[int, list[Collector]], state: _State,
                 slot: Slot) -> SlotWork:
    pc = plan.cells[slot.cell_index]
    spec = plan.spec
    tag = f"w{-slot.block}" if slot.warmup else f"b{slot.block}"
    artifacts = options.artifacts_root / f"exp-{state.experiment_id}" / f"cell-{pc.cell.index}" / tag
    artifacts.mkdir(parents=True, exist_ok=True)
    ctx = ProbeContext(jdk=pc.jdk, cell_name=pc.cell.name, flags=pc.flags, artifacts_dir=artifacts,
                       final_flags=pc.final_flags, workload_kind=pc.launch.kind)
    probes = [c.probe(ctx) for c in collectors[pc.cell.index]]
    jvm_flags = list(pc.flags) + [arg for p in probes for arg in p.jvm_args()]
    argv = pc.launch.argv(pc.jdk, jvm_flags, pc.cell.args, artifacts_dir=artifacts)
    env = {**os.environ, **spec.workload.env, **dict(pc.cell.env), "JAVA_HOME": str(pc.jdk.home)}
    cwd = plan.workdir or Path.cwd()
    invocation = InvocationPlan(
        argv=tuple(argv), env=env, cwd=cwd, timeout_s=spec.workload.timeout or spec.run.timeout,
        artifacts_dir=artifacts, ready_regex=spec.workload.ready,
        output_cap_bytes=spec.collect.output_cap_bytes)
    return SlotWork(pc, slot, invocation, probes, argv, artifacts, ctx)


def finish_probes(work: SlotWork, result: ProcessResult, collected: Collected,
                  env_hazards: list[Hazard] = ()) -> tuple[ProcessResult, Collected]:
    """Turn the probes' files and samples into measurements; a refused result becomes INVALID."""
    for probe in work.probes:
        collected.merge(probe.finish(result))
    if isinstance(server_part := result.extra.get("server_collected"), Collected):  # load, readiness, stop
        collected.merge(server_part)
    if collected.failure and result.status == Status.OK:  # ran, but its result was refused
        result = replace(result, status=Status.INVALID, reason=collected.failure)
    collected.hazards = [Hazard(h.kind, h.detail, h.hint, h.cell or work.cell.cell.name)
                         for h in [*env_hazards, *collected.hazards]]
    return result, collected


def record_slot(store: SqlStore, observer: RunObserver, state: _State, work: SlotWork, result: ProcessResult,
                collected: Collected, node: str | None = None) -> None:
    """Store one finished slot, count it, tell the observer and the failure budget."""
    pc, slot = work.cell, work.slot
    store.record_invocation(state.experiment_id, state.cell_ids[pc.cell.index], block=slot.block,
                            position=slot.position, result=result, collected=collected, argv=work.argv,
                            artifacts_dir=str(work.artifacts), node=node)
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
        # Stored per block (the report counts them); told once, at the end of the run.
        store.add_hazard(state.experiment_id, Hazard(hazards.BUSY_MACHINE,
                         f"other processes used {share:.0%} of the CPU during {block_label(block)}",
                         hint=BUSY_HINT))
        state.busy_shares.append(share)
    now = fingerprint(plan.jdk_homes)
    for change in changes(state.fingerprint, now):
        _warn(store, observer, state, Hazard(hazards.FINGERPRINT_CHANGED, f"after {block_label(block)}: {change}",
              hint="results before and after the change are not comparable; rerun the experiment"))
    state.fingerprint = now


def block_label(block: int) -> str:
    """How people count blocks: the warm-up, then block 1, 2, ... (stored from 0; warm-ups < 0)."""
    return "the warm-up" if block < 0 else f"block {block + 1}"


def _busy_summary(observer: RunObserver, state: _State) -> None:
    """One line for all busy blocks of this session instead of one line per block."""
    if not state.busy_shares:
        return
    n = len(state.busy_shares)
    observer.warn(Hazard(hazards.BUSY_MACHINE, f"other processes were busy during {n} block{'s' if n != 1 else ''} "
                         f"(up to {max(state.busy_shares):.0%} of the CPU)", hint=BUSY_HINT))
    state.busy_shares.clear()


def _warn(store: SqlStore, observer: RunObserver, state: _State, hazard: Hazard) -> None:
    store.add_hazard(state.experiment_id, hazard)
    observer.warn(hazard)


def _interrupted(store: SqlStore, state: _State, plan: Plan, options: RunOptions, signum: int) -> None:
    store.set_status(state.experiment_id, "interrupted")
    spec_arg = str(plan.spec_path) if plan.spec_path else "SPEC"
    raise Interrupted(signum, f"interrupted; {state.measured} measured invocations are stored in "
                              f"{store.url}; continue with: {resume_command(spec_arg, store.url, options)}")
