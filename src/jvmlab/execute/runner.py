"""The experiment loop: store the plan, run each slot in order, store each invocation the
moment it finishes, check the machine between blocks, and stop when the answer is clear
(``--until``) or the budget is spent. Resume skips what is already stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from jvmlab.collect.base import Collector
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.errors import Interrupted
from jvmlab.execute.experiment import (
    Resumed,
    RunState,
    create_experiment,
    find_resumed,
    identities_of,
    resume_experiment,
)
from jvmlab.execute.hooks import with_hooks
from jvmlab.execute.load import BUSY_SHARE, LoadWatch
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import Executor, RunObserver
from jvmlab.execute.resume import DEFAULT_METRIC, merge_stored, options_record, resume_command
from jvmlab.execute.server import wrap_server
from jvmlab.execute.slots import SlotWork, block_label, build_slot, finish_probes, slot_artifacts
from jvmlab.execute.until import unreachable
from jvmlab.execute.windows import default_executor
from jvmlab.machine.environment import Environment, build_environment
from jvmlab.machine.fingerprint import changes, fingerprint
from jvmlab.model import hazards
from jvmlab.model.collected import Collected
from jvmlab.model.hazards import Hazard
from jvmlab.model.process import ProcessResult, Status
from jvmlab.plan.grow import IDENTITY_DOC
from jvmlab.plan.metric_choice import MetricChoice, remember_metric
from jvmlab.plan.prepare import Plan, archive_document
from jvmlab.plan.schedule import Slot
from jvmlab.store.protocol import Store

__all__ = [
    "Executor",
    "RunObserver",
    "RunOptions",
    "Runner",
    "SlotWork",
    "block_label",
    "finish_probes",
    "run_experiment",
]


# A function deciding, from the store, whether the comparisons are precise enough.
# Whether the comparisons are precise enough; the answer may also carry an estimate of
# invocations per cell still needed (``remaining_per_cell``) for the progress bar.
BUSY_HINT = "stop other work on this machine, or rerun; see `jvmlab doctor`"
PrecisionCheck = Callable[[Store, int, str, float], object]



def run_experiment(plan: Plan, store: Store, options: RunOptions, observer: RunObserver,
                   executor: Executor | None = None,
                   precision_check: PrecisionCheck | None = None) -> int:
    """Run (or resume) the plan's experiment; return its id. Raises Interrupted on Ctrl-C
    or SIGTERM after storing everything measured so far."""
    executor = executor or default_executor()  # wait4 on POSIX, psutil on Windows
    if any(pc.template is not None and pc.template.load is not None for pc in plan.cells):
        # a server under load (docs/servers.md): checked before anything runs
        executor = wrap_server(plan, executor)
    hooked = with_hooks(executor)  # [workload]/[server] setup, before_each, after_each, cleanup
    runner = Runner(store, plan, options, observer, hooked, precision_check)
    runner.resolve()  # before the setup: tmpfs copies and archives are keyed by the stored cell indices
    environment = build_environment(runner.plan, runner.options.artifacts_root)
    try:
        runner.plan = environment.setup(runner.plan)
        runner.environment = environment
        return runner.run()
    finally:
        for hazard in hooked.close():  # the cleanups, before the environment goes (a tmpfs JDK)
            runner.warn(hazard)
        environment.teardown()


class Runner:
    """One session of one experiment: the store, the plan, the executor, the observer and the
    options, with the loop's steps as small methods. ``cluster/`` drives the same object
    (open, prepare_slot, record_slot, warn, interrupted) with its own dispatcher."""

    def __init__(self, store: Store, plan: Plan, options: RunOptions, observer: RunObserver,
                 executor: Executor | None = None, precision_check: PrecisionCheck | None = None) -> None:
        self.store = store
        self.plan = plan
        # Every path handed to a JVM is absolute: the JVM starts in the spec's folder, not here.
        self.options = replace(options, artifacts_root=options.artifacts_root.absolute())
        self.observer = observer
        self.executor = executor
        self.precision_check = precision_check
        self.environment: Environment | None = None
        self.resumed: Resumed | None = None
        self.identities: dict = {}
        self._state: RunState | None = None
        self.collectors: dict[int, list[Collector]] = {}
        self.settings = CollectSettings.from_spec(plan.shape.collect, self.options.collect_overrides)

    @property
    def state(self) -> RunState:
        if self._state is None:
            raise RuntimeError("Runner.open() was not called")
        return self._state

    @property
    def experiment_id(self) -> int:
        return self.state.experiment_id

    # -- opening -------------------------------------------------------------------------
    def resolve(self) -> None:
        """On ``--resume``: find the stored experiment and renumber the plan to its cells (a
        grown spec's new cells follow the stored ones). Reads only; safe to call twice."""
        if self.options.resume and self.resumed is None:
            self.resumed = find_resumed(self.plan, self.store)
            self.plan = self.resumed.growth.plan
        if not self.identities:
            self.identities = identities_of(self.plan)

    def open(self) -> RunState:
        """Create the experiment (or continue the stored one, adding the cells it gained), and
        merge how this run was started into its stored options."""
        self.resolve()
        if self.resumed is not None:  # the new cells' example argv uses the run's own collectors
            self.options = merge_stored(self.options, self.resumed.experiment.run_options)
            self.settings = CollectSettings.from_spec(self.plan.shape.collect, self.options.collect_overrides)
            self._state = resume_experiment(self.plan, self.store, self.resumed, self.options.artifacts_root,
                                            self.settings, self.identities)
        else:
            self._state = create_experiment(self.plan, self.store, self.options.artifacts_root, self.settings,
                                            self.options.command_line)
            self.store.put_experiment_document(self._state.experiment_id, IDENTITY_DOC, self.identities)
        self.remember_options()
        if self.options.series is not None:  # `--label`: a point of a series (default: the spec's name)
            self.store.set_series(self.experiment_id, self.options.series,
                                  self.store.experiment(self.experiment_id).name)
        self.collectors = {pc.cell.index: build_collectors(self.settings, pc.launch.progress_regex,
                                                           pc.template.progress_mode if pc.template else "auto",
                                                           jmh=pc.launch.kind == "jmh")
                           for pc in self.plan.cells}
        self.state.measured = sum(1 for _, block in self.done() if block >= 0)
        return self.state

    def remember_options(self) -> RunOptions:
        """Merge how this run was started into the store; a resumed run takes what it was not given.
        The JVMs' working directory is kept too (provenance: relative paths in arguments depend on it)."""
        store, plan, experiment_id = self.store, self.plan, self.experiment_id
        stored = store.experiment(experiment_id).run_options
        if self.options.resume:
            self.options = merge_stored(self.options, stored)
        workdir = {"workdir": str(plan.workdir)} if plan.workdir is not None else {}
        store.set_run_options(experiment_id, {**stored, **options_record(self.options), **workdir})
        return self.options

    def done(self) -> set[tuple[int, int]]:
        """The (cell index, block) slots already stored: resume skips them."""
        return self.store.done_slots(self.experiment_id)

    # -- the loop ------------------------------------------------------------------------
    def run(self) -> int:
        """Open the experiment, run every pending slot (then ``--until`` blocks), mark it done."""
        state = self.open()
        plan, store, observer = self.plan, self.store, self.observer
        archives = archive_document(plan.cells)
        if archives is not None:  # how each cell's CDS/AOT archive was made, for every report
            store.put_experiment_document(state.experiment_id, "archives", archives)
        options = self.options
        if options.metric_reason:
            remember_metric(store, state.experiment_id, MetricChoice(options.metric or "wall_s", options.metric_reason))
        done = self.done()
        blocks = plan.shape.invocations
        # Blocks an earlier --until session added beyond the planned ones (resume completes them).
        added = sorted({block for _, block in done if block >= blocks})
        slots = plan.shape.slots(len(plan.cells), added)
        observer.planned(state.experiment_id, len(slots), len(done), options.until_rel is not None)
        state.environment = self.environment
        try:
            self.run_slots(slots, done)
            if options.until_rel is not None and self.precision_check is not None:
                self.run_until(max([blocks - 1, *added]) + 1)
        except KeyboardInterrupt:
            self.busy_summary()
            self.interrupted(2)
        except Interrupted as err:
            self.busy_summary()
            self.interrupted(err.signum)
        self.busy_summary()
        store.set_status(state.experiment_id, "done", finished=True)
        return state.experiment_id

    def run_slots(self, slots: list[Slot], done: set[tuple[int, int]]) -> None:
        state = self.state
        load = LoadWatch()
        current_block: int | None = None
        for slot in slots:
            if slot.block != current_block:
                if current_block is not None:
                    self.between_blocks(load, current_block)
                current_block = slot.block
                load.start()
            if (slot.cell_index, slot.block) in done or state.budget.cell_stopped(slot.cell_index):
                continue
            if state.budget.exhausted:
                self.warn(Hazard(hazards.FAILURE_BUDGET,
                          f"{state.budget.total} failures reached the limit of {state.budget.max_total}; stopped"))
                return
            if self.out_of_budget():
                return
            self.run_one(slot)
        if current_block is not None:
            self.between_blocks(load, current_block)

    def run_until(self, first_block: int) -> None:
        """Add blocks until every comparison's CI is narrow enough, or the budget is spent.

        The rule looks only at CI width, never at significance, so it cannot chase a p-value."""
        plan, store, options, observer, state = self.plan, self.store, self.options, self.observer, self.state
        assert self.precision_check is not None
        block = first_block
        target = options.until_rel or 0.0
        metric = options.metric or DEFAULT_METRIC
        while not (precision := self.precision_check(store, state.experiment_id, metric, target)):
            if self.out_of_budget():
                observer.extended(0, "budget spent before the target precision")
                self.warn(Hazard(hazards.PRECISION_NOT_REACHED,
                          f"stopped by the budget before every 95% CI was within {target:.1%}",
                          hint="raise --max-invocations or --budget"))
                return
            why = unreachable(plan, state.budget)
            if why:
                observer.extended(0, "the target precision cannot be reached")
                self.warn(Hazard(hazards.PRECISION_NOT_REACHED,
                          f"stopped before every 95% CI was within {target:.1%}: {why}",
                          hint="see the failures with `jvmlab report`; fix the failing cell or drop it, then rerun"))
                return
            slots = plan.shape.block(len(plan.cells), block)
            remaining = getattr(precision, "remaining_per_cell", None)
            estimate = f"; about {remaining} more per cell expected" if remaining else ""
            observer.extended(len(slots), f"block {block + 1} for a CI within {target:.1%}{estimate}")
            measured_before = state.measured
            self.run_slots(slots, set())
            block += 1
            if state.measured == measured_before and not self.out_of_budget():
                # Nothing could run (every slot was skipped): another block would not either.
                self.warn(Hazard(hazards.PRECISION_NOT_REACHED,
                          f"stopped before every 95% CI was within {target:.1%}: block {block} measured nothing"))
                return

    def out_of_budget(self) -> bool:
        options, state = self.options, self.state
        if options.max_invocations is not None and state.measured >= options.max_invocations:
            return True
        return options.budget_s is not None and time.monotonic() - state.started >= options.budget_s

    def run_one(self, slot: Slot) -> None:
        environment = self.environment
        work = self.prepare_slot(slot)
        self.observer.starting(work.cell, slot)
        env_hazards = environment.before(work.cell) if environment is not None else []
        invocation = work.invocation
        if environment is not None:  # CPU/memory limits: the same JVM argv, run inside a cgroup
            invocation = replace(invocation, argv=tuple(environment.wrap_argv(work.cell, list(invocation.argv))))
        assert self.executor is not None
        result = self.executor.run(invocation, work.probes)
        collected = Collected()
        if environment is not None:
            result, limited = environment.after(work.cell, result)
            collected.merge(limited)
        result, collected = finish_probes(work, result, collected, env_hazards)
        self.record_slot(work, result, collected)

    # -- one slot (public: cluster/ runs the middle part on a node) ----------------------
    def prepare_slot(self, slot: Slot) -> SlotWork:
        pc = self.plan.cells[slot.cell_index]
        artifacts = slot_artifacts(self.options.artifacts_root, self.experiment_id, pc.cell.index, slot)
        return build_slot(pc, slot, self.collectors[pc.cell.index], artifacts)

    def record_slot(self, work: SlotWork, result: ProcessResult, collected: Collected,
                    node: str | None = None) -> None:
        """Store one finished slot, count it, tell the observer and the failure budget."""
        state = self.state
        pc, slot = work.cell, work.slot
        self.store.record_invocation(state.experiment_id, state.cell_ids[pc.cell.index], block=slot.block,
                                     position=slot.position, result=result, collected=collected, argv=work.argv,
                                     artifacts_dir=str(work.artifacts), node=node)
        if not slot.warmup:
            state.measured += 1
        self.observer.finished(pc, slot, result)
        why = state.budget.record(pc.cell.index, result.status == Status.OK)
        if why:
            self.warn(Hazard(hazards.FAILURE_BUDGET, f"{pc.cell.name}: {why}",
                      hint=f"last failure: {result.reason}", cell=pc.cell.name))

    # -- between blocks, warnings, the end -----------------------------------------------
    def between_blocks(self, load: LoadWatch, block: int) -> None:
        state = self.state
        share = load.other_share()
        if share is not None and share > BUSY_SHARE:
            # Stored per block (the report counts them); told once, at the end of the run.
            self.store.add_hazard(state.experiment_id, Hazard(hazards.BUSY_MACHINE,
                                  f"other processes used {share:.0%} of the CPU during {block_label(block)}",
                                  hint=BUSY_HINT))
            state.busy_shares.append(share)
        now = fingerprint(self.plan.jdk_homes)
        for change in changes(state.fingerprint, now):
            self.warn(Hazard(hazards.FINGERPRINT_CHANGED, f"after {block_label(block)}: {change}",
                      hint="results before and after the change are not comparable; rerun the experiment"))
        state.fingerprint = now

    def busy_summary(self) -> None:
        """One line for all busy blocks of this session instead of one line per block."""
        state = self.state
        if not state.busy_shares:
            return
        n = len(state.busy_shares)
        self.observer.warn(Hazard(hazards.BUSY_MACHINE, f"other processes were busy during {n} "
                                  f"block{'s' if n != 1 else ''} (up to {max(state.busy_shares):.0%} of the CPU)",
                                  hint=BUSY_HINT))
        state.busy_shares.clear()

    def warn(self, hazard: Hazard) -> None:
        """Store a hazard with the experiment and tell the observer."""
        self.store.add_hazard(self.experiment_id, hazard)
        self.observer.warn(hazard)

    def interrupted(self, signum: int) -> None:
        """Mark the experiment interrupted and raise Interrupted with the command that continues it."""
        store, plan, options, state = self.store, self.plan, self.options, self.state
        store.set_status(state.experiment_id, "interrupted")
        spec_arg = str(plan.spec_path) if plan.spec_path else "SPEC"
        raise Interrupted(signum, f"interrupted; {state.measured} measured invocations are stored in "
                                  f"{store.url}; continue with: {resume_command(spec_arg, store.url, options)}")
