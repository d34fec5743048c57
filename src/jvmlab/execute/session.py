"""The session: the one experiment loop of jvmlab.

It alone opens (or resumes) an experiment, sets the spec's ``[environment]`` up and down,
builds each slot from the cell's invocation template, hands blocks of slots to a block runner
(this machine: :class:`LocalBlocks`; Dask: ``cluster.dispatch.Dispatcher``), stores each slot
the moment it finishes (one transaction: ``Store.record_invocation``), checks the machine
between blocks (typed hazards, stored and shown), keeps the one budget
(:class:`jvmlab.execute.budget.Budget`) and reports progress to its observer. What runs next
is a driver's choice: the planned blocks, ``--until`` (:mod:`jvmlab.execute.until`), the
tuner's races (``tune/``), the minimum-heap bisection (``sizing/``).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from jvmlab.collect.base import Collector
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.errors import Interrupted, UserError, hide_passwords, resume_line
from jvmlab.execute.blocks import LocalBlocks
from jvmlab.execute.driver import Driver, FixedBlocks
from jvmlab.execute.experiment import (
    Resumed,
    RunState,
    create_experiment,
    find_experiment,
    find_resumed,
    identities_of,
    resume_experiment,
)
from jvmlab.execute.hooks import HookedExecutor
from jvmlab.execute.load import LoadWatch, busy_text
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import BlockRunner, Executor, PrecisionCheck, RunnerLost, RunObserver
from jvmlab.execute.resume import merge_stored, options_record, resume_command
from jvmlab.execute.server import wrap_server
from jvmlab.execute.slots import (
    SlotWork,
    block_label,
    build_slot,
    finish_probes,
    logs_class_loads,
    slot_artifacts,
)
from jvmlab.execute.until import Until
from jvmlab.execute.windows import default_executor
from jvmlab.machine.environment import Environment, build_environment
from jvmlab.machine.fingerprint import changes, fingerprint
from jvmlab.metrics import RUN_DELAY
from jvmlab.model import hazards
from jvmlab.model.collected import Collected
from jvmlab.model.documents import CellIdentityDocument
from jvmlab.model.hazards import Hazard
from jvmlab.model.process import ProcessResult, Status
from jvmlab.plan.grow import Growth
from jvmlab.plan.metric_choice import MetricChoice, remember_metric
from jvmlab.plan.prepare import Plan, archive_document
from jvmlab.plan.schedule import Slot
from jvmlab.store.protocol import Store

__all__ = ["Session", "run_experiment"]

_HOSTNAME = socket.gethostname()  # where a slot run here ran (a cluster's slots say their node's)
BUSY_HINT = "stop other work on this machine, or rerun; see `jvmlab doctor`"


def run_experiment(plan: Plan, store: Store, options: RunOptions, observer: RunObserver,
                   executor: Executor | None = None,
                   precision_check: PrecisionCheck | None = None) -> int:
    """Run (or resume) the plan's experiment on this machine; return its id. Raises Interrupted
    on Ctrl-C or SIGTERM after storing everything measured so far."""
    # wait4 on POSIX, psutil on Windows; a server under load: checked before anything runs
    executor = wrap_server(plan, executor or default_executor())
    session = Session(store, plan, options, observer, executor, precision_check)
    return session.run(LocalBlocks(session))


class Session:
    """One session of one experiment: the store, the plan, the executor, the observer and the
    options, with the loop's steps as small methods that block runners and drivers call."""

    def __init__(self, store: Store, plan: Plan, options: RunOptions, observer: RunObserver,
                 executor: Executor | None = None, precision_check: PrecisionCheck | None = None,
                 grows: bool = True, own_cells: bool = True, experiment_id: int | None = None,
                 environment: Environment | None = None) -> None:
        self.store = store
        self.grows = grows  # a resume may find the experiment by its spec file and add cells (run)
        # False: the driver registers the cells (the tuner: one per configuration, made as it goes)
        self.own_cells = own_cells
        self.experiment_hint = experiment_id  # continue this experiment (the tuner's, made beforehand)
        self.given_environment = environment
        self.plan = plan
        # Every path handed to a JVM is absolute: the JVM starts in the spec's folder, not here.
        self.options = replace(options, artifacts_root=options.artifacts_root.absolute())
        self.observer = observer
        # the spec's hooks (setup, before_each, after_each, cleanup) around every slot run here (a
        # no-op without hooks)
        self.executor: Executor | None = HookedExecutor(executor) if executor is not None else None
        self.precision_check = precision_check
        self.environment: Environment | None = None
        self.resumed: Resumed | None = None
        self.identities: CellIdentityDocument | None = None
        self._state: RunState | None = None
        self.collectors: dict[int, list[Collector]] = {}
        self.settings = CollectSettings.from_spec(plan.shape.collect, self.options.collect_overrides)
        self._driver: Driver = Driver()  # the driver being driven (execute/driver.py); set by drive()
        self._run_delays: dict[int, list[float]] = {}  # block -> its invocations' run-queue delays (s)

    @property
    def state(self) -> RunState:
        if self._state is None:
            raise RuntimeError("Session.open() was not called")
        return self._state

    @property
    def experiment_id(self) -> int:
        return self.state.experiment_id

    # -- opening -------------------------------------------------------------------------
    def resolve(self) -> None:
        """On ``--resume``: find the stored experiment and renumber the plan to its cells (a
        grown spec's new cells follow the stored ones). Reads only; safe to call twice."""
        if (self.options.resume or self.experiment_hint is not None) and self.resumed is None:
            if not self.own_cells:  # the driver's cells: nothing to align
                found = (self.store.experiment(self.experiment_hint) if self.experiment_hint is not None
                         else find_experiment(self.plan, self.store, by_file=False))
                self.resumed = Resumed(found, Growth(self.plan, ()))
            else:
                self.resumed = find_resumed(self.plan, self.store, by_file=self.grows)
                self.plan = self.resumed.growth.plan
        if self.identities is None:
            self.identities = identities_of(self.plan)

    def open(self) -> RunState:
        """Create the experiment (or continue the stored one, adding the cells it gained), and
        merge how this run was started into its stored options."""
        self.resolve()
        if self.resumed is not None:  # the new cells' example argv uses the run's own collectors
            self.options = merge_stored(self.options, self.resumed.experiment.run_options)
            self.settings = CollectSettings.from_spec(self.plan.shape.collect, self.options.collect_overrides)
            self._state = resume_experiment(self.plan, self.store, self.resumed, self.settings,
                                            self.identities or identities_of(self.plan), self.options)
            if not self.own_cells:
                self._state.cell_ids = {}  # the driver registers each cell it runs (add_cell)
        else:
            self._state = create_experiment(self.plan, self.store, self.settings, self.options,
                                            cells=self.own_cells)
            if self.own_cells:
                self.store.put_record(self._state.experiment_id, self.identities or identities_of(self.plan))
        # how this run was started, over what is stored (a resumed run took what it was not given,
        # above); the JVMs' working directory too (provenance: relative paths in arguments depend on it)
        record = options_record(self.options, self.store.experiment(self.experiment_id).run_options)
        self.store.set_run_options(self.experiment_id, record.but(workdir=str(self.plan.workdir))
                                   if self.plan.workdir is not None else record)
        if self.options.series is not None:  # `--label`: a point of a series (default: the spec's name)
            self.store.set_series(self.experiment_id, self.options.series,
                                  self.store.experiment(self.experiment_id).name)
        self.collectors = {pc.cell.index: build_collectors(self.settings, pc.launch.progress_regex,
                                                           pc.template.progress_mode if pc.template else "auto",
                                                           jmh=pc.launch.kind == "jmh")
                           for pc in self.plan.cells if self.own_cells}  # a driver's cells bring their own
        self.state.measured = sum(1 for _, block in self.done() if block >= 0)
        return self.state

    def done(self) -> set[tuple[int, int]]:
        """The (cell index, block) slots already stored: resume skips them."""
        return self.store.done_slots(self.experiment_id)

    def pending(self) -> list[Slot]:
        """The planned slots (warm-ups first) and the blocks an earlier ``--until`` added, minus
        those stored."""
        done = self.done()
        added = sorted({block for _, block in done if block >= self.plan.shape.invocations})
        return [s for s in self.plan.shape.slots(len(self.plan.cells), added) if (s.cell_index, s.block) not in done]

    def next_block(self) -> int:
        """The first block ``--until`` adds: after the planned ones and any an earlier session added."""
        return max([self.plan.shape.invocations - 1, *(block for _, block in self.done())]) + 1

    # -- the loop ------------------------------------------------------------------------
    def run(self, blocks: BlockRunner) -> int:
        """The planned slots (then ``--until`` blocks) through ``blocks``; return the experiment id."""
        with self.opened() as state:
            slots = self.pending()
            done = len(self.done())
            self.observer.planned(state.experiment_id, len(slots) + done, done, self.options.until_rel is not None)
            self.drive(FixedBlocks(lambda: slots), blocks)
            if self.options.until_rel is not None and self.precision_check is not None:
                self.drive(Until(self, blocks, self.precision_check), blocks)
        return state.experiment_id

    def drive(self, driver: Driver, runner: BlockRunner) -> None:
        """The loop: ask the driver for its next blocks and run them through ``runner`` until it
        says stop; each slot's cell, folder and reading are the driver's (execute/driver.py)."""
        outer, self._driver = self._driver, driver
        try:
            while (slots := driver.next_blocks()) is not None:
                runner.run_blocks(slots)
        finally:
            self._driver = outer

    @contextmanager
    def opened(self) -> Iterator[RunState]:
        """Set the environment up, open the experiment; a driver runs its slots inside. On the
        way out: done, or (Ctrl-C, SIGTERM, the cluster gone) interrupted with the command that
        continues it; the environment is torn down on any exit."""
        try:
            state = self.begin()
            try:
                yield state
            except KeyboardInterrupt:
                self.interrupted(2)
            except Interrupted as err:
                self.interrupted(err.signum)
            except RunnerLost as err:
                self.mark_interrupted()
                raise UserError(f"{err}; {self.continue_hint()} and --cluster ADDRESS of a running "
                                f"cluster") from None
            self.finish()
        finally:
            self.teardown()

    def begin(self) -> RunState:
        """Set the environment up and open the experiment (a driver that ends it itself calls
        :meth:`finish` and, always, :meth:`teardown`)."""
        self.resolve()  # before the setup: tmpfs copies and archives are keyed by the stored cell indices
        self.environment = self.given_environment or build_environment(self.plan, self.options.artifacts_root)
        self.plan = self.environment.setup(self.plan)
        state = self.open()
        self.store_documents()
        return state

    def finish(self) -> None:
        """The experiment is done: the busy blocks said once, the status stored."""
        self.busy_summary()
        self.store.set_status(self.experiment_id, "done", finished=True)

    def teardown(self) -> None:
        """The hooks' cleanups (their failures stored as hazards), then the environment torn down
        (tmpfs copies removed, a cgroup left by Ctrl-C removed)."""
        environment, self.environment = self.environment, None
        hooked, self.executor = self.executor, None
        try:
            for hazard in hooked.close() if isinstance(hooked, HookedExecutor) else []:
                if self._state is not None:
                    self.warn(hazard)
        finally:
            if environment is not None:
                environment.teardown()

    def store_documents(self) -> None:
        """How each cell's archive was made, and the metric chosen with its reason."""
        archives = archive_document(self.plan.cells)
        if archives is not None:  # how each cell's CDS/AOT archive was made, for every report
            self.store.put_record(self.experiment_id, archives)
        if self.plan.revisions is not None:  # [revisions]: each commit, its build, why one failed
            self.store.put_record(self.experiment_id, self.plan.revisions.document())
            for tree in self.plan.revisions.failed if self.resumed is None else ():  # said once
                self.warn(Hazard(hazards.REVISION_NOT_BUILT, f"revision {tree.level} ({tree.record.sha[:12]}) "
                                 f"was not measured: {tree.record.build_error}",
                                 hint=f"its build output: {tree.record.build_log or 'none'}"))
        options = self.options
        if options.metric_reason:
            remember_metric(self.store, self.experiment_id,
                            MetricChoice(options.metric or "wall_s", options.metric_reason))

    def allows(self, slot: Slot, inflight: int = 0) -> str:
        """The one budget, asked before each slot: "run", "skip" (its cell was stopped by the
        failure budget) or "stop" (a limit is reached; said once)."""
        budget = self.state.budget
        if budget.cell_stopped(slot.cell_index):
            return "skip"
        if budget.failures_exhausted:
            if not budget.told:
                budget.told = True
                self.warn(Hazard(hazards.FAILURE_BUDGET,
                                 f"{budget.failures} failures reached the limit of {budget.max_failures}; stopped"))
            return "stop"
        return "stop" if self.out_of_budget(inflight) else "run"

    def out_of_budget(self, inflight: int = 0) -> bool:
        """--max-invocations and --budget; measured slots in flight count toward the limit."""
        return self.state.budget.spent(self.state.measured + inflight)

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

    # -- one slot (public: a block runner runs the middle part elsewhere) ----------------
    def prepare_slot(self, slot: Slot) -> SlotWork:
        own = self._driver.cell(slot.cell_index)
        pc = own.cell if own is not None else self.plan.cells[slot.cell_index]
        artifacts = slot_artifacts(self.options.artifacts_root, self.experiment_id, pc.cell.index, slot)
        if (folder := self._driver.folder(slot)) is not None:
            artifacts = artifacts.with_name(folder)
        class_log = logs_class_loads([*self.plan.cells, *([own.cell] if own is not None else [])])
        return build_slot(pc, slot, own.collectors if own is not None else self.collectors[pc.cell.index], artifacts,
                          class_log)

    def record_slot(self, work: SlotWork, result: ProcessResult, collected: Collected,
                    node: str | None = None, host: str | None = None) -> None:
        """Store one finished slot (one transaction), count it, tell the observer and the budget.
        ``node``/``host``: the Dask worker and the machine that ran it (default: this machine)."""
        state = self.state
        pc, slot, driver = work.cell, work.slot, self._driver
        collected = driver.judge(work, result, collected)
        own = driver.cell(pc.cell.index)
        cell_id = own.cell_id if own is not None else state.cell_ids[pc.cell.index]
        self.store.record_invocation(state.experiment_id, cell_id, block=slot.block,
                                     position=slot.position, result=result, collected=collected, argv=work.argv,
                                     artifacts_dir=str(work.artifacts), node=node,
                                     host=host if host is not None or node is not None else _HOSTNAME)
        if not slot.warmup:
            state.measured += 1
        if (delay := collected.metrics.get(RUN_DELAY)) is not None:
            self._run_delays.setdefault(slot.block, []).append(delay)
        driver.observe(work, result, collected)
        self.observer.finished(pc, slot, result)
        why = state.budget.record(pc.cell.index, result.status == Status.OK or driver.failures_are_data)
        if why:
            self.warn(Hazard(hazards.FAILURE_BUDGET, f"{pc.cell.name}: {why}",
                      hint=f"last failure: {result.reason}", cell=pc.cell.name))

    # -- between blocks, warnings, the end -----------------------------------------------
    def between_blocks(self, load: LoadWatch, block: int) -> None:
        state = self.state
        shares = load.shares()
        # the mean run-queue delay per invocation of the block's measured processes (None: not
        # measured, e.g. the /proc sampler off or a kernel without schedstat)
        delays = self._run_delays.pop(block, [])
        delay_s = sum(delays) / len(delays) if delays else None
        if shares.busy:
            # Stored per block (the report counts them); told once, at the end of the run.
            self.store.add_hazard(state.experiment_id, Hazard(
                hazards.BUSY_MACHINE, busy_text(shares, block_label(block)), hint=BUSY_HINT,
                load=shares.machine_load(block, delay_s)))
            state.busy_shares.append(shares.taken)
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

    def mark_interrupted(self) -> None:
        """The experiment stopped before its driver was done: the busy blocks said, the status stored."""
        self.busy_summary()
        self.store.set_status(self.experiment_id, "interrupted")

    def interrupted(self, signum: int, why: str = "interrupted") -> None:
        """Mark the experiment interrupted and raise Interrupted with the command that continues it."""
        self.mark_interrupted()
        raise Interrupted(signum, f"{why}; {self.continue_hint()}")

    def continue_hint(self) -> str:
        """What is stored and the command that continues it."""
        spec_arg = str(self.plan.spec_path) if self.plan.spec_path else "SPEC"
        command = self.options.resume_hint or resume_command(spec_arg, self.store.url, self.options)
        return (f"{self.state.measured} measured invocations are stored in {hide_passwords(self.store.url)}; "
                f"continue with: {resume_line(command)}")
