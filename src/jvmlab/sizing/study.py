"""``jvmlab minheap SPEC``: the minimum heap of every cell (collector x JDK x ...), stored.

Each cell of the spec's matrix gets its own search, a driver of the session
(:mod:`jvmlab.execute.session`). Every probe is one invocation stored in one transaction with
its outcome inside (the ``minheap_probe`` document), so a search interrupted between any two
writes resumes by replaying the stored probes. The experiment document ``minheap`` (the
settings, each cell's probes and result) is derived from them and rewritten after each cell.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from jvmlab.errors import UserError, parse_option
from jvmlab.execute.blocks import LocalBlocks
from jvmlab.execute.driver import DriverCell, SearchDriver
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import BlockRunner, Executor, SilentObserver
from jvmlab.execute.session import Session
from jvmlab.execute.slots import SlotWork
from jvmlab.execute.windows import default_executor
from jvmlab.model.collected import Collected
from jvmlab.model.documents import MinHeapCellRecord, MinHeapDocument, MinHeapRequestRecord
from jvmlab.model.process import ProcessResult
from jvmlab.plan.prepare import Plan, PreparedCell, search_hash
from jvmlab.plan.schedule import Slot
from jvmlab.sizing.minheap import (
    MinHeapResult,
    MinHeapSettings,
    ProbeOutcome,
    ReplayingProbe,
    find_min_heap,
)
from jvmlab.sizing.probe import heap_cell, outcome_of
from jvmlab.spec.pattern import BoundedPattern, check_compiles
from jvmlab.store.protocol import Store


@dataclass(frozen=True)
class MinHeapRequest:
    settings: MinHeapSettings
    fail_pattern: str | None = None
    timeout_s: float | None = None  # per probe; default: the spec's timeout

    def record(self) -> MinHeapRequestRecord:
        s = self.settings
        return MinHeapRequestRecord(s.lower_bytes, s.upper_bytes, s.step_bytes, s.repeats, s.max_probes,
                                    self.fail_pattern, self.timeout_s)

    def to_json(self) -> dict[str, Any]:
        return self.record().body()


@dataclass(frozen=True)
class CellMinHeap:
    cell_index: int
    cell_name: str
    levels: dict[str, str]
    jvm: str
    result: MinHeapResult


@dataclass(frozen=True)
class MinHeapStudy:
    experiment_id: int
    cells: tuple[CellMinHeap, ...]
    resumed_probes: int

    def to_json(self) -> dict[str, Any]:
        """What `minheap --json` prints of the search."""
        return {"experiment_id": self.experiment_id,
                "cells": [{"cell": c.cell_name, "levels": c.levels, **c.result.to_json()} for c in self.cells]}


ProbeObserver = Callable[[PreparedCell, ProbeOutcome], None]
RESUME_HINT = "the same `jvmlab minheap` command with --resume"


def run_min_heap(plan: Plan, store: Store, request: MinHeapRequest, artifacts_root: Path, *,
                 resume: bool = False, executor: Executor | None = None,
                 on_probe: ProbeObserver = lambda _c, _o: None,
                 block_runner: Callable[[Session], BlockRunner] = LocalBlocks) -> MinHeapStudy:
    """Search every cell's minimum heap, a driver of the session: it opens (or resumes) the
    experiment, sets the [environment] up (CPU/memory limits apply to probes too) and stores
    each probe, its verdict inside, in one transaction; a resume replays the stored probes.
    ``block_runner``: who runs the probes (this machine; ``minheap --cluster``: a Dask node)."""
    pattern = compile_pattern(request.fail_pattern)
    name = f"minheap: {plan.spec.name or (plan.spec_path.stem if plan.spec_path else 'experiment')}"
    searched = replace(plan, spec=plan.spec.model_copy(update={"name": name}),
                       spec_hash=search_hash(plan, "minheap", request.to_json()))
    options = RunOptions(artifacts_root=artifacts_root, resume=resume, command_line="jvmlab minheap",
                         resume_hint=RESUME_HINT)
    session = Session(store, searched, options, SilentObserver(), executor or default_executor(), grows=False)
    search = _Search(session, request, pattern, on_probe, block_runner)
    with session.opened():  # the request is kept by the search's `minheap` document
        found = [search.cell_result(pc) for pc in session.plan.cells]
    return MinHeapStudy(session.experiment_id, tuple(found), search.replayed)


class _Search(SearchDriver):
    """The bisection of each cell, a search driver of the session: one slot per probe (block =
    the probe's number in its cell), the cell at the probe's heap, read by ``judge`` before it
    is stored."""

    failures_are_data = True  # a probe too small to run is the answer, not a failure

    def __init__(self, session: Session, request: MinHeapRequest, pattern: BoundedPattern | None,
                 on_probe: ProbeObserver, block_runner: Callable[[Session], BlockRunner]) -> None:
        super().__init__()
        self.session, self.request, self.pattern, self.on_probe = session, request, pattern, on_probe
        self.blocks = block_runner(session)
        self.heap = 0
        self.probed: DriverCell | None = None  # the cell at the heap being probed
        self.outcome: ProbeOutcome | None = None
        self.replayed = 0
        self.doc = MinHeapDocument(request.record(), {})

    def cell(self, index: int) -> DriverCell | None:
        return self.probed if self.probed is not None and self.probed.cell.cell.index == index else None

    def folder(self, slot: Slot) -> str:
        return f"p{slot.block + 1:03d}-{self.heap >> 20}m"  # probe 1 at -Xmx64m: p001-64m

    def cell_result(self, pc: PreparedCell) -> CellMinHeap:
        session = self.session
        cell_id = session.state.cell_ids[pc.cell.index]
        stored = self._stored(pc)
        count = len(stored)

        def probe(heap_bytes: int) -> ProbeOutcome:
            nonlocal count
            self.heap, self.outcome = heap_bytes, None
            # a probe runs bare (no collectors): its verdict is the whole answer
            self.probed = DriverCell(heap_cell(pc, heap_bytes, self.request.timeout_s), cell_id, [])
            self.ask([Slot(pc.cell.index, count, count)])
            session.drive(self, self.blocks)
            count += 1
            outcome = self._take()
            self.on_probe(pc, outcome)
            return outcome

        replay = ReplayingProbe(stored, probe)
        result = find_min_heap(replay, self.request.settings)
        self.replayed += replay.replayed
        cells = {**self.doc.cells, pc.cell.index: MinHeapCellRecord(pc.cell.name, tuple(self._stored(pc)), result)}
        self.doc = replace(self.doc, cells=cells)
        session.store.put_record(session.experiment_id, self.doc)  # derived: rewritable
        return CellMinHeap(pc.cell.index, pc.cell.name, dict(pc.cell.levels), pc.cell.jvm, result)

    def _take(self) -> ProbeOutcome:
        """The outcome the judge just read (the slot ran: nothing stops a probe)."""
        outcome, self.outcome = self.outcome, None
        self.results.clear()
        if outcome is None:
            raise RuntimeError("a minimum-heap probe was not run")
        return outcome

    def judge(self, work: SlotWork, result: ProcessResult, collected: Collected) -> Collected:
        self.outcome = outcome_of(result, self.heap, self.pattern)
        collected.metrics["minheap.heap_bytes"] = float(self.heap)
        collected.documents[ProbeOutcome.KIND] = self.outcome.to_json()
        return collected

    def _stored(self, pc: PreparedCell) -> list[ProbeOutcome]:
        """The cell's probes as stored, in their order: each is its invocation (one write)."""
        store, exp = self.session.store, self.session.experiment_id
        cell_id = self.session.state.cell_ids[pc.cell.index]
        rows = sorted((i for i in store.invocations(exp) if i.cell_id == cell_id), key=lambda i: i.block)
        probes = store.records([i.id for i in rows], ProbeOutcome)
        return [probes[i.id] for i in rows if i.id in probes]


def load_min_heap(store: Store, experiment_id: int) -> MinHeapStudy:
    """A stored search, read back (for reports and for planning a sweep)."""
    doc = store.record(experiment_id, MinHeapDocument)
    if doc is None:
        raise UserError(f"experiment {experiment_id} is not a minimum-heap search; run `jvmlab minheap SPEC`")
    cells = {c.idx: c for c in store.cells(experiment_id)}
    out = []
    for idx, entry in sorted(doc.cells.items()):
        if entry.result is None:
            continue
        cell = cells[idx]
        out.append(CellMinHeap(idx, cell.name, cell.levels, cell.jvm, entry.result))
    return MinHeapStudy(experiment_id, tuple(out), 0)


def compile_pattern(pattern: str | None) -> BoundedPattern | None:
    """The --fail-pattern (matched within a time bound, spec/pattern.py), or a UserError before
    any JVM starts."""
    if pattern is None:
        return None
    parse_option("--fail-pattern", pattern, check_compiles)
    return BoundedPattern(pattern, what="--fail-pattern")
