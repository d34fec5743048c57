"""Measuring real JVMs for the tuner, with the store as the only memory.

Each distinct configuration is a cell added to the running experiment (a new ``idx``);
each invocation is stored with its block and position. On `--resume` the history is read
back and an invocation already stored for (block, position, configuration) is returned
instead of run again. Flags are checked once per distinct JDK + flags with the same check
`run` uses; a refusal or a failed launch is an infeasible trial, never a crash.

The tuner is a search driver of the session (``execute/driver.py``): its blocks go through
the session's block runner (this machine: ``LocalBlocks``, the machine checked between blocks
by the session) and each slot is built from the cell's
invocation template (cwd, environment, timeout, ready regex, output cap) and the collectors
the spec switches on, so a GC log, the /proc sampler or the workload's own metrics are
measured and stored as in `run`, and any of them can be an objective or a guardrail. The
spec's [environment] is set up around the session and each configuration gets its cell's
share of it, archive included (tune/cells.py): what `run` would give the same cell.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jvmlab.collect.base import Collector
from jvmlab.collect.registry import CollectSettings, build_collectors
from jvmlab.errors import UserError
from jvmlab.execute.blocks import LocalBlocks
from jvmlab.execute.driver import DriverCell, SearchDriver
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import BlockRunner, SilentObserver
from jvmlab.execute.session import Session
from jvmlab.jdk.flags import check_flags
from jvmlab.model.hazards import Hazard
from jvmlab.model.process import Status
from jvmlab.model.stored import PROCESS_METRICS
from jvmlab.plan.prepare import PREPARE_MARK, Plan, PreparedCell
from jvmlab.plan.schedule import Slot
from jvmlab.plan.template import split_prepare
from jvmlab.store.protocol import Store
from jvmlab.tune.cells import TrialCells
from jvmlab.tune.model import Metrics


def _metrics(process: Mapping[str, float | None], collected: Mapping[str, float | None]) -> Metrics:
    """Every metric of one invocation: the process's (PROCESS_METRICS) and the collectors'; a
    result just measured gives what the store gives back when it is replayed (the store keeps
    no None or NaN: a value not measured)."""
    return {k: float(v) for k, v in {**process, **collected}.items() if v is not None and v == v}


class FlagChecker:
    """Flag checks only (what `tune` does before anything is stored or measured)."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.checked: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}

    def _cell(self, jvm: str) -> Any:
        for pc in self.plan.cells:
            if pc.cell.jvm == jvm:
                return pc
        raise UserError(f"[tune] JDK {jvm!r} is not in [jvms]")

    def rejected(self, jvm: str, flags: tuple[str, ...]) -> str | None:
        """The same check `run` does, on the same flags: [workload] jvm_args (from the cell's
        template) then the trial's; the accepted flags (unlocks added) are what runs."""
        try:
            real, _prep = split_prepare(jvm, flags, None)  # a preparation mark (@cds-archive) is no JVM flag
            pc = self._cell(jvm)
            common = pc.template.jvm_args if pc.template is not None else ()
            check = check_flags(pc.jdk, [*common, *real])
        except UserError as err:
            return str(err)
        marks = tuple(f for f in flags if f not in real)
        self.checked[(jvm, flags)] = (*check.flags, *marks)
        return None

    def flags_to_run(self, jvm: str, flags: tuple[str, ...]) -> tuple[str, ...]:
        """What a configuration runs with: the checked flags ([workload] jvm_args first)."""
        if (jvm, flags) not in self.checked:
            self.rejected(jvm, flags)
        return self.checked.get((jvm, flags), flags)


Entry = tuple[str, tuple[str, ...]]  # (jvm, flags) at one position of a block


class _Trials(SearchDriver):
    """The tuner as a driver of the session: each configuration a cell of its own (its stored id
    is its slot's cell index); a failing configuration is an infeasible trial, not a stop."""

    failures_are_data = True

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[int, DriverCell] = {}

    def cell(self, index: int) -> DriverCell | None:
        return self.cells.get(index)


class JvmMeasurer(FlagChecker):
    """Runs the tuner's blocks as fresh JVMs through the session's block runner (this machine:
    ``LocalBlocks``, the machine checked between blocks by the session; ``ClusterMeasurer``:
    the Dask dispatcher)."""

    def __init__(self, plan: Plan, store: Store, experiment_id: int, artifacts: Path, executor: Any,
                 width: int = 1) -> None:
        super().__init__(plan)
        # blocks at a time (Tuning.blocks): a cluster's nodes; a local `--resume` of a run started
        # with --cluster keeps its width (the same block numbering, run one after another here)
        self.width = width
        # absolute: the GC log and other artifacts paths are handed to the JVMs
        self.store, self.exp, self.artifacts, self.executor = store, experiment_id, artifacts.absolute(), executor
        self.cells: dict[str, int] = {c.levels.get("config", c.name): c.id for c in store.cells(experiment_id)}
        self.names: dict[str, str] = {c.levels.get("config", c.name): c.name for c in store.cells(experiment_id)}
        self.next_idx = max((c.idx for c in store.cells(experiment_id)), default=-1) + 1
        by_id = {v: k for k, v in self.cells.items()}
        self.history: dict[tuple[int, int, str], Metrics | str] = {}
        for inv in store.invocations(experiment_id):
            key = (inv.block, inv.position, by_id.get(inv.cell_id, ""))
            self.history[key] = (_metrics({m: inv.value(m) for m in PROCESS_METRICS}, inv.metrics)
                                 if inv.status == str(Status.OK) else (inv.reason or inv.status))
        self.replayed = 0
        self.measured = 0
        self.rounds = 0  # rounds of blocks run (blocks / rounds: the parallelism used on a cluster)
        self.blocks_run = 0
        self.settings = CollectSettings.from_spec(plan.shape.collect)
        self.collectors: dict[str, list[Collector]] = {}
        self.trial_cells = TrialCells(plan, artifacts)
        self.session: Session | None = None
        self.ended: Session | None = None  # the session after close: finish() stores its status
        self.trials = _Trials()
        self.notes: list[str] = []  # the session's hazards (stored, typed), as the tuner's words

    def open(self) -> Session:
        """Open the experiment in a session with the spec's [environment] set up; ``close``
        tears it down: call it in a ``finally`` (or use ``with``)."""
        if self.session is None:
            options = RunOptions(artifacts_root=self.artifacts, resume=True, command_line="jvmlab tune",
                                 resume_hint="the same `jvmlab tune` command with --resume")
            session = Session(self.store, self.trial_cells.base(), options, _Notes(self.notes), self.executor,
                              grows=False, own_cells=False, experiment_id=self.exp,
                              environment=self.trial_cells.make_environment())
            try:
                session.begin()
            except BaseException:
                session.teardown()
                raise
            self.session = session
        return self.session

    def runner(self) -> BlockRunner:
        """Who runs the blocks: this machine, one slot at a time, checked between blocks."""
        return LocalBlocks(self.open())

    def close(self, interrupted: bool = False) -> None:
        """Tear the environment down and store how each configuration's archive was made; the
        session marks an interrupted run as such (a finished one: :meth:`finish`)."""
        session, self.session = self.session, None
        if session is None:
            return
        self.ended = session
        try:
            archives = self.trial_cells.archives()
            if archives is not None:
                self.store.put_record(self.exp, archives)
            if interrupted:
                session.mark_interrupted()
            else:
                session.busy_summary()
        finally:
            session.teardown()

    def finish(self) -> None:
        """The tuning run is done and its document stored: the session stores its status."""
        if self.ended is not None:
            self.ended.finish()


    def run_flags(self) -> dict[str, tuple[str, ...]]:
        """The flags each prepared configuration really ran with (unlocks, archive flags)."""
        return {key: pc.flags for key, pc in self.trial_cells.ready.items() if not isinstance(pc, str)}

    def __enter__(self) -> JvmMeasurer:
        self.open()
        return self

    def __exit__(self, kind: object, *_exc: object) -> None:
        self.close(interrupted=kind is not None)

    def block_hazards(self) -> list[str]:
        """What the session said since the last block (busy blocks, a changed machine, the
        dispatcher's refusals and losses): typed hazards it stored, as the tuner's words. Read
        without opening it again: after :meth:`close`, those of its teardown (a failing
        ``cleanup`` hook), which come after the engine's last block."""
        out, self.notes[:] = list(self.notes), []
        return out

    def measure(self, jvm: str, flags: tuple[str, ...], block: int, position: int) -> Metrics | str:
        return self._run({block: {position: (jvm, flags)}})[(block, position)]

    def measure_blocks(self, blocks: dict[int, list[Entry]]) -> dict[int, list[Metrics | str]]:
        """Each block's configurations in their order -> their results (on a cluster: blocks in
        parallel on nodes)."""
        got = self._run({b: dict(enumerate(entries)) for b, entries in blocks.items()})
        return {b: [got[(b, pos)] for pos in range(len(entries))] for b, entries in blocks.items()}

    def _run(self, wanted: dict[int, dict[int, Entry]]) -> dict[tuple[int, int], Metrics | str]:
        """One round: what is stored is replayed, the rest is driven through the session."""
        out: dict[tuple[int, int], Metrics | str] = {}
        todo: list[Slot] = []
        keys: dict[tuple[int, int], tuple[int, int, str]] = {}  # (cell id, block) -> (block, position, key)
        for b, entries in wanted.items():
            for pos, (jvm, flags) in entries.items():
                key = (b, pos, f"{jvm}|{' '.join(flags)}")
                if key in self.history:
                    self.replayed += 1
                    out[(b, pos)] = self.history[key]
                    continue
                cell_id = self._use(jvm, flags)
                if isinstance(cell_id, str):  # the configuration cannot be prepared (its archive)
                    out[(b, pos)] = cell_id
                    continue
                todo.append(Slot(cell_id, b, pos))
                keys[(cell_id, b)] = key
        if todo:
            self.rounds += 1
            self.blocks_run += len({s.block for s in todo})
            self.trials.ask(todo)
            session = self.open()
            session.drive(self.trials, self.runner())
        for (cell_id, b), key in keys.items():
            ran = self.trials.take(cell_id, b)
            got: Metrics | str = ("not run: the budget stopped it" if ran is None
                                  else ran[0].reason or str(ran[0].status) if ran[0].status != Status.OK
                                  or ran[0].measures is None else
                                  _metrics({m: getattr(ran[0].measures, m) for m in PROCESS_METRICS}, ran[1].metrics))
            self.measured += ran is not None
            self.history[key] = out[(key[0], key[1])] = got
        return out

    def _use(self, jvm: str, flags: tuple[str, ...]) -> int | str:
        """The configuration's cell, given to the session by the tuner's driver: the plan's cell
        for this JDK with the trial's flags; its stored id is the slot's cell index."""
        key = f"{jvm}|{' '.join(flags)}"
        run_flags = self.flags_to_run(jvm, flags)
        pc = self._cell(jvm)
        cell_id = self._cell_id(key, jvm, pc, flags, run_flags)
        cell = self._prepared(key, pc, cell_id, run_flags)
        if isinstance(cell, str):
            return cell
        self.trials.cells[cell_id] = DriverCell(cell, cell_id, self._collectors(pc))
        return cell_id

    def _prepared(self, key: str, pc: PreparedCell, cell_id: int, run_flags: tuple[str, ...]) -> PreparedCell | str:
        """The configuration as a prepared cell: the plan's cell for this JDK with the trial's
        flags, inside the session's environment (tmpfs copy, limits, its archive made once)."""
        return self.trial_cells.cell(key, pc, cell_id, self.names[key], run_flags)

    def _collectors(self, pc: PreparedCell) -> list[Collector]:
        """The collectors the spec switches on, built once per JDK cell (as the runner does)."""
        if pc.cell.jvm not in self.collectors:
            mode = pc.template.progress_mode if pc.template else "auto"
            self.collectors[pc.cell.jvm] = build_collectors(self.settings, pc.launch.progress_regex, mode,
                                                            jmh=pc.launch.kind == "jmh")
        return self.collectors[pc.cell.jvm]

    def _cell_id(self, key: str, jvm: str, pc: Any, flags: tuple[str, ...], run_flags: tuple[str, ...]) -> int:
        """The configuration's cell, added to the running experiment the first time it runs."""
        if key not in self.cells:
            self.cells[key] = self.store.add_cell(
                self.exp, idx=self.next_idx, name=f"t{self.next_idx}", jvm=jvm, jdk={"home": str(pc.jdk.home)},
                levels={"config": key}, requested_flags=list(flags),
                flags=[f for f in run_flags if not f.startswith(PREPARE_MARK)], final_flags={},
                argv=None)
            self.names[key] = f"t{self.next_idx}"
            self.next_idx += 1
        return self.cells[key]


class _Notes(SilentObserver):
    """The session's warnings for the tuner's hazard list (each is stored typed as well)."""

    def __init__(self, notes: list[str]) -> None:
        self.notes = notes

    def warn(self, hazard: Hazard) -> None:
        self.notes.append(hazard.detail)
