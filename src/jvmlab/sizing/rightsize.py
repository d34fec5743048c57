"""``jvmlab rightsize SPEC``: the smallest container (CPUs x memory) whose JVM meets the goals,
a driver of the session (:mod:`jvmlab.execute.session`).

The spec's one configuration becomes one cell per size (its ``[environment] cpus``/``memory``
levels: each invocation runs in a fresh cgroup with those limits, and the JVM's view of
them is recorded) and, with ``--heap-share``, per heap share of the limit. The search
(:mod:`jvmlab.sizing.rightsize_search`) says which size to measure next; a size is measured
one invocation (one slot) at a time and judged at fixed looks
(:mod:`jvmlab.analyze.goalbound`); a size whose JVM dies is decided on the first death.
Every invocation is stored the moment it finishes and the ``rightsize`` document (the
search's state) is rewritten after each decided size, so a search stopped anywhere resumes
with ``--resume`` by replaying the stored invocations.

It is a search driver of the session (``execute/driver.py``): it builds the session (with an
environment whose CPU-limited groups weigh the most), runs inside ``Session.opened()``, asks
one slot at a time of its ``_SizeDriver`` (a failing JVM is data: that size's answer), which the
session drives through its block runner (``LocalBlocks``), and reads back what the store holds
(``state.cell_ids``, ``store.invocations``); it stores its own document with ``store.put_record``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from jvmlab import metrics as registry
from jvmlab.analyze.goalbound import GoalCheck, GoalVerdict, check_goal
from jvmlab.execute.blocks import LocalBlocks
from jvmlab.execute.driver import SearchDriver
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import Executor, RunObserver, SilentObserver
from jvmlab.execute.server import wrap_server
from jvmlab.execute.session import Session
from jvmlab.execute.slots import SlotWork
from jvmlab.execute.windows import default_executor
from jvmlab.machine.cgroup import V1_MAX_SHARES
from jvmlab.machine.environment import MachineEnvironment, build_environment
from jvmlab.model.collected import Collected
from jvmlab.model.documents import (
    CandidateRecord,
    GoalFigures,
    GoalRecord,
    RightsizeDocument,
    RightsizeRequestRecord,
)
from jvmlab.model.process import ProcessResult
from jvmlab.model.stored import SeriesTag, StoredInvocation
from jvmlab.plan.prepare import Plan, PreparedCell, search_hash
from jvmlab.plan.schedule import Slot
from jvmlab.sizing.goals import Goal
from jvmlab.sizing.rightsize_plan import cell_key, rightsize_plan
from jvmlab.sizing.rightsize_search import Grid, Outcome, Size, SizeVerdict, Weights, implied, next_step
from jvmlab.store.protocol import Store

RESUME_HINT = "the same `jvmlab rightsize` command with --resume"
LOOK_STEP = 2  # invocations added between looks


@dataclass(frozen=True)
class RightsizeRequest:
    goals: tuple[Goal, ...]
    cpus: tuple[float, ...]
    memory: tuple[str, ...]  # as given ("512m"): the cells' memory levels
    memory_bytes: tuple[int, ...]
    jvm_sizing: str = "auto"  # or "keep"
    heap_shares: tuple[int, ...] = ()  # percent of the limit, tried in order (auto only)
    weights: Weights = field(default_factory=Weights)
    invocations: int = 3  # at the first look
    max_invocations: int = 9  # per size

    def looks(self) -> tuple[int, ...]:
        """The invocation counts at which a size is judged: first, then every LOOK_STEP, the cap."""
        first = min(self.invocations, self.max_invocations)
        return tuple(sorted({*range(first, self.max_invocations, LOOK_STEP), self.max_invocations}))

    def grid(self) -> Grid:
        return Grid.of(self.cpus, self.memory_bytes, self.weights)

    def record(self) -> RightsizeRequestRecord:
        return RightsizeRequestRecord(tuple(GoalRecord(g.metric, g.comparison, g.bound) for g in self.goals),
                                      self.grid().cpus, self.grid().memory_bytes, self.jvm_sizing,
                                      self.heap_shares, self.weights.cpu, self.weights.memory_gib,
                                      self.invocations, self.max_invocations)


@dataclass(frozen=True)
class RightsizeRun:
    experiment_id: int
    document: RightsizeDocument


StepObserver = Callable[[CandidateRecord], None]


def run_rightsize(base: Plan, store: Store, request: RightsizeRequest, artifacts_root: Path, *,
                  resume: bool = False, executor: Executor | None = None,
                  on_candidate: StepObserver = lambda _c: None, resume_hint: str = RESUME_HINT,
                  series: SeriesTag | None = None, observer: RunObserver | None = None) -> RightsizeRun:
    """Search the smallest size meeting every goal through the session: it opens (or resumes)
    the experiment, sets the cgroup limits up per invocation and stores each invocation.
    ``resume_hint``: the command that continues it, said when it is stopped; ``series``: its
    point in a series over time (`history`); ``observer``: told of each invocation (default: silent)."""
    plan = rightsize_plan(base, request.cpus, request.memory, request.jvm_sizing, request.heap_shares,
                          request.max_invocations)
    plan = replace(plan, spec_hash=search_hash(plan, "rightsize", request.record().body()))
    options = RunOptions(artifacts_root=artifacts_root, resume=resume, command_line="jvmlab rightsize",
                         resume_hint=resume_hint, series=series)
    executor = wrap_server(plan, executor or default_executor())  # a server under load (docs/servers.md)
    environment = build_environment(plan, options.artifacts_root)
    if isinstance(environment, MachineEnvironment):
        # each size gets what its quota allows, also on a busy machine (a container whose
        # request equals its limit): the candidates' groups weigh the most against other work
        environment.cpu_shares = V1_MAX_SHARES
    session = Session(store, plan, options, observer or SilentObserver(), executor, grows=False,
                      environment=environment)
    search = _Search(session, request, on_candidate)
    with session.opened():  # the request is kept by the search's `rightsize` document
        document = search.run()
    return RightsizeRun(session.experiment_id, document)


class _SizeDriver(SearchDriver):
    """The session's driver of the search: one slot at a time, as :class:`_Search` asks; a JVM
    dying at a size is that size's answer, not a failure the budget counts."""

    failures_are_data = True

    def observe(self, work: SlotWork, result: ProcessResult, collected: Collected) -> None:
        """Nothing kept: the search reads each size's invocations back from the store."""


class _Search:
    """Measures the sizes the strategy asks for, one slot at a time, through the session."""

    def __init__(self, session: Session, request: RightsizeRequest, on_candidate: StepObserver) -> None:
        self.session, self.request, self.on_candidate = session, request, on_candidate
        self.blocks = LocalBlocks(session)
        self.driver = _SizeDriver()
        self.grid = request.grid()
        self.looks = request.looks()

    def cells(self) -> dict[tuple[Size, int | None], PreparedCell]:
        return {cell_key(pc): pc for pc in self.session.plan.cells}

    def run(self) -> RightsizeDocument:
        measured: dict[Size, Outcome] = {}
        records: dict[Size, CandidateRecord] = {}
        while (step := next_step(self.grid, measured)) is not None:
            record = self.measure(step.size, step.phase)
            measured[step.size] = Outcome(SizeVerdict(record.verdict), record.memory_death)
            records[step.size] = record
            self.store(measured, records, finished=False)
            self.on_candidate(record)
        return self.store(measured, records, finished=True)

    def store(self, measured: dict[Size, Outcome], records: dict[Size, CandidateRecord],
              finished: bool) -> RightsizeDocument:
        document = search_document(self.request, self.grid, measured, records, finished)
        self.session.store.put_record(self.session.experiment_id, document)  # derived: rewritable
        return document

    def measure(self, size: Size, phase: str) -> CandidateRecord:
        """The size's verdict; with heap shares, the next share is tried while the JVM runs out
        of heap (an OutOfMemoryError), never after the cgroup killed it (more heap: worse)."""
        cells = self.cells()
        shares = self.request.heap_shares or (None,)
        record: CandidateRecord | None = None
        for share in shares:
            record, heap_too_small = self.measure_cell(cells[(size, share)], size, phase)
            if not heap_too_small:
                break
        assert record is not None
        return record

    def measure_cell(self, pc: PreparedCell, size: Size, phase: str) -> tuple[CandidateRecord, bool]:
        while True:
            rows = self.stored(pc)
            dead = next((r for r in rows if r.status != "ok"), None)
            if dead is not None:
                return self.died(pc, size, phase, rows, dead)
            n = len(rows)
            if n in self.looks or n >= self.request.max_invocations:
                checks = [self.check(goal, rows) for goal in self.request.goals]
                verdict = _combined(checks)
                missing = [g.metric for g, c in zip(self.request.goals, checks, strict=True) if c.n == 0]
                if verdict is not SizeVerdict.UNDECIDED or n >= self.request.max_invocations or missing:
                    reason = (f"{', '.join(missing)} not measured in {n} invocation(s)" if missing
                              else None if verdict is not SizeVerdict.UNDECIDED
                              else f"the 95% bounds still hold the goal after {n} invocations (the cap)")
                    return self.candidate(pc, size, phase, verdict, rows, checks, reason), False
            self.driver.ask([Slot(pc.cell.index, n, 0)])
            self.session.drive(self.driver, self.blocks)
            if len(self.stored(pc)) == n:  # the session's budget stopped it
                checks = [self.check(goal, rows) for goal in self.request.goals]
                return self.candidate(pc, size, phase, SizeVerdict.UNDECIDED, rows, checks,
                                      "stopped by the run's budget"), False

    def check(self, goal: Goal, rows: list[StoredInvocation]) -> GoalCheck:
        values = [v for r in rows if (v := r.value(goal.metric)) is not None]
        return check_goal(values, goal.comparison, goal.bound, looks=len(self.looks),
                          never_negative=registry.get(goal.metric).never_negative)

    def died(self, pc: PreparedCell, size: Size, phase: str, rows: list[StoredInvocation],
             dead: StoredInvocation) -> tuple[CandidateRecord, bool]:
        text = " ".join(t for t in (dead.reason, dead.stderr_tail, dead.stdout_tail) if t)
        killed = "OOM-killed" in text or (dead.metrics.get("cgroup.oom_kills") or 0) > 0
        heap = "OutOfMemoryError" in text and not killed
        reason = dead.reason or dead.status
        if heap and "OutOfMemoryError" not in reason:
            reason = f"java.lang.OutOfMemoryError (the heap the JVM was given is too small); {reason}"
        record = self.candidate(pc, size, phase, SizeVerdict.FAILS, rows, [], reason, memory_death=killed or heap)
        return record, heap

    def candidate(self, pc: PreparedCell, size: Size, phase: str, verdict: SizeVerdict,
                  rows: list[StoredInvocation], checks: list[GoalCheck], reason: str | None,
                  memory_death: bool = False) -> CandidateRecord:
        figures = tuple(GoalFigures(g.metric, c.n, c.mean, c.lower, c.upper, c.ci95, str(c.verdict))
                        for g, c in zip(self.request.goals, checks, strict=True)) if checks else ()
        seen = next((r.metrics for r in rows if "jvm.active_processors" in r.metrics
                     or "jvm.max_heap_bytes" in r.metrics), {})
        processors, heap = seen.get("jvm.active_processors"), seen.get("jvm.max_heap_bytes")
        return CandidateRecord(size.cpus, size.memory_bytes, str(verdict), phase, self.grid.weights.cost(size),
                               jvm_options(pc), figures, reason, memory_death, None, len(rows),
                               int(processors) if processors is not None else None,
                               int(heap) if heap is not None else None)

    def stored(self, pc: PreparedCell) -> list[StoredInvocation]:
        """The cell's invocations as stored, in their order (a resume replays them)."""
        session = self.session
        cell_id = session.state.cell_ids[pc.cell.index]
        return sorted((i for i in session.store.invocations(session.experiment_id) if i.cell_id == cell_id),
                      key=lambda i: i.block)


def jvm_options(pc: PreparedCell) -> tuple[str, ...]:
    """The JVM options this cell ran with (what JAVA_TOOL_OPTIONS carries to a container)."""
    return tuple(f for f in pc.flags if not f.startswith("@"))


def _combined(checks: list[GoalCheck]) -> SizeVerdict:
    """Every goal met: meets; any missed: misses; else undecided."""
    if any(c.verdict is GoalVerdict.MISSES for c in checks):
        return SizeVerdict.MISSES
    if checks and all(c.verdict is GoalVerdict.MEETS for c in checks):
        return SizeVerdict.MEETS
    return SizeVerdict.UNDECIDED


def search_document(request: RightsizeRequest, grid: Grid, measured: dict[Size, Outcome],
                    records: dict[Size, CandidateRecord], finished: bool) -> RightsizeDocument:
    """Every size of the grid, cheapest first: measured, implied (and by which size), or not
    run (it costs more than the size chosen); the chosen one when the search is over."""
    from jvmlab.sizing.rightsize_search import cheapest_meeting

    out: list[CandidateRecord] = []
    for size in grid.sizes():
        cost = grid.weights.cost(size)
        if size in records:
            out.append(records[size])
            continue
        if size in measured:  # a bare outcome (the strategy's own tests)
            out.append(CandidateRecord(size.cpus, size.memory_bytes, str(measured[size].verdict), "search", cost,
                                       memory_death=measured[size].memory_death))
            continue
        found = implied(size, measured)
        if found is not None:
            out.append(CandidateRecord(size.cpus, size.memory_bytes, str(found.verdict), "implied", cost,
                                       implied_by=(found.by.cpus, found.by.memory_bytes)))
        else:
            out.append(CandidateRecord(size.cpus, size.memory_bytes, "not-run", "not-run", cost,
                                       reason="not needed: a cheaper size was chosen" if finished else None))
    best = cheapest_meeting(grid, measured)[0] if finished else None
    chosen = next((i for i, c in enumerate(out) if best is not None
                   and (c.cpus, c.memory_bytes) == (best.cpus, best.memory_bytes)), None)
    return RightsizeDocument(request.record(), tuple(out), chosen, finished)

