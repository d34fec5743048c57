"""Measuring real JVMs for the tuner, with the store as the only memory.

Each distinct configuration is a cell added to the running experiment (a new ``idx``);
each invocation is stored with its block and position. On `--resume` the history is read
back and an invocation already stored for (block, position, configuration) is returned
instead of run again. Flags are checked once per distinct JDK + flags with the same check
`run` uses; a refusal or a failed launch is an infeasible trial, never a crash.

A trial's invocation goes through the runner's slot path (``execute.slots``): the cell's
invocation template (cwd, environment, timeout, ready regex, output cap) and the collectors
the spec switches on, so a GC log, the /proc sampler or the workload's own metrics are
measured and stored as in `run`, and any of them can be an objective or a guardrail. The
spec's [environment] is set up around the session and each configuration gets its cell's
share of it, archive included (tune/cells.py): what `run` would give the same cell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jvmlab.collect.base import Collector
from jvmlab.collect.registry import CollectSettings, build_collectors
from jvmlab.errors import UserError
from jvmlab.execute.load import LoadWatch, busy_text
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import SilentObserver
from jvmlab.execute.session import BUSY_HINT, Session
from jvmlab.jdk.flags import check_flags
from jvmlab.machine.fingerprint import changes, fingerprint
from jvmlab.model import hazards
from jvmlab.model.collected import Collected
from jvmlab.model.hazards import Hazard
from jvmlab.model.process import ProcessResult, Status
from jvmlab.model.stored import PROCESS_METRICS, StoredInvocation
from jvmlab.plan.prepare import PREPARE_MARK, Plan, PreparedCell
from jvmlab.plan.schedule import Slot
from jvmlab.store.protocol import Store
from jvmlab.tune.cells import TrialCells, real_flags
from jvmlab.tune.model import Metrics


def _metrics_of(row: StoredInvocation) -> Metrics:
    """Every stored metric of one invocation: the process's columns and the collectors'."""
    out = {m: row.value(m) for m in PROCESS_METRICS}
    return {**{k: float(v) for k, v in out.items() if v is not None}, **row.metrics}


def metrics_of_result(result: ProcessResult, collected: Collected) -> Metrics:
    """The same metrics, from a result just measured (what the store would give back)."""
    m = result.measures
    process = {} if m is None else {name: getattr(m, name) for name in PROCESS_METRICS}
    out = {k: float(v) for k, v in process.items() if v is not None}
    out.update({k: float(v) for k, v in collected.metrics.items()})
    return out


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
            real, _prep = real_flags(jvm, flags)  # a preparation mark (@cds-archive) is no JVM flag
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


class JvmMeasurer(FlagChecker):
    """Runs one configuration of the plan's workload as a fresh JVM (``executor.run``)."""

    def __init__(self, plan: Plan, store: Store, experiment_id: int, artifacts: Path, executor: Any) -> None:
        super().__init__(plan)
        # absolute: the GC log and other artifacts paths are handed to the JVMs
        self.store, self.exp, self.artifacts, self.executor = store, experiment_id, artifacts.absolute(), executor
        self.cells: dict[str, int] = {c.levels.get("config", c.name): c.id for c in store.cells(experiment_id)}
        self.names: dict[str, str] = {c.levels.get("config", c.name): c.name for c in store.cells(experiment_id)}
        self.next_idx = max((c.idx for c in store.cells(experiment_id)), default=-1) + 1
        by_id = {v: k for k, v in self.cells.items()}
        self.history: dict[tuple[int, int, str], Metrics | str] = {}
        for inv in store.invocations(experiment_id):
            key = (inv.block, inv.position, by_id.get(inv.cell_id, ""))
            self.history[key] = _metrics_of(inv) if inv.status == str(Status.OK) else (inv.reason or inv.status)
        self.fingerprint = store.experiment(experiment_id).fingerprint
        self.said: set[str] = set()
        self.replayed = 0
        self.measured = 0
        self.settings = CollectSettings.from_spec(plan.shape.collect)
        self.collectors: dict[str, list[Collector]] = {}
        self.watch = LoadWatch()
        self.watch.start()
        self.trial_cells = TrialCells(plan, artifacts)
        self.session: Session | None = None
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
            session.failures_are_data = True  # a failing configuration is an infeasible trial, not a stop
            try:
                session.begin()
            except BaseException:
                session.teardown()
                raise
            self.session = session
        return self.session

    def close(self, interrupted: bool = False) -> None:
        """Tear the environment down and store how each configuration's archive was made."""
        session, self.session = self.session, None
        if session is None:
            return
        try:
            archives = self.trial_cells.archives()
            if archives is not None:
                self.store.put_record(self.exp, archives)
            if interrupted:
                self.store.set_status(self.exp, "interrupted")
        finally:
            session.teardown()

    def late_hazards(self) -> list[str]:
        """The session's warnings since the last block, read without opening it again: after
        :meth:`close`, those of its teardown (a failing ``cleanup`` hook, stored typed by the
        session like every other), which come after the engine's last block."""
        out, self.notes[:] = list(self.notes), []
        return out

    def run_flags(self) -> dict[str, tuple[str, ...]]:
        """The flags each prepared configuration really ran with (unlocks, archive flags)."""
        return {key: pc.flags for key, pc in self.trial_cells.ready.items() if not isinstance(pc, str)}

    def __enter__(self) -> JvmMeasurer:
        self.open()
        return self

    def __exit__(self, kind: object, *_exc: object) -> None:
        self.close(interrupted=kind is not None)

    def block_hazards(self) -> list[str]:
        """Busy (other processes' CPU share in the block) and fingerprint changes since the
        experiment started (a JDK upgraded or THP switched mid-run), each change said once:
        typed hazards stored with the experiment by the session, and the session's other
        warnings since the last block, as the tuner's words."""
        session = self.open()
        shares = self.watch.shares()
        self.watch.start()
        if shares.busy:
            session.warn(Hazard(hazards.BUSY_MACHINE, f"machine busy: {busy_text(shares, 'the block')}",
                                hint=BUSY_HINT, load=shares.machine_load(None)))
        for change in changes(self.fingerprint, fingerprint(self.plan.jdk_homes)):
            if change not in self.said:
                self.said.add(change)
                session.warn(Hazard(hazards.FINGERPRINT_CHANGED, f"machine changed: {change}",
                                    hint="results before and after the change are not comparable"))
        out, self.notes[:] = list(self.notes), []
        return out

    def measure(self, jvm: str, flags: tuple[str, ...], block: int, position: int) -> Metrics | str:
        key = f"{jvm}|{' '.join(flags)}"
        if (block, position, key) in self.history:
            self.replayed += 1
            return self.history[(block, position, key)]
        run_flags = self.flags_to_run(jvm, flags)
        pc = self._cell(jvm)
        cell_id = self._cell_id(key, jvm, pc, flags, run_flags)
        # The configuration as a prepared cell: the plan's cell for this JDK (template, launch)
        # with the trial's flags, inside the session's environment (tmpfs copy, limits, its
        # archive made once); its slot is built, run and finished exactly as `run` does it.
        cell = self.trial_cells.cell(key, pc, cell_id, self.names[key], run_flags)
        if isinstance(cell, str):
            return cell
        session = self.open()
        session.use_cell(cell, cell_id, self._collectors(pc))
        session.run_one(Slot(cell_id, block, position))  # built, run and stored as `run` does it
        result, collected = session.recorded.pop((cell_id, block))
        self.measured += 1
        if result.status != Status.OK or result.measures is None:
            return result.reason or str(result.status)
        return metrics_of_result(result, collected)

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
