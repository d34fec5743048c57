"""``jvmlab minheap SPEC``: the minimum heap of every cell (collector x JDK x ...), stored.

Each cell of the spec's matrix gets its own search. The experiment is stored like any other
(its cells, and every probe as an invocation with its status and reason); the document
``minheap`` holds the settings, every probe outcome and each cell's result, and is rewritten
after every probe, so an interrupted search resumes by replaying what was stored.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from jvmlab import __version__
from jvmlab.errors import Interrupted, UserError
from jvmlab.execute.hooks import with_hooks
from jvmlab.execute.local import LocalExecutor
from jvmlab.execute.protocols import Executor
from jvmlab.machine.environment import run_context
from jvmlab.machine.fingerprint import fingerprint
from jvmlab.machine.limits import LimitRunner, refuse_if_unsupported
from jvmlab.model.collected import Collected
from jvmlab.model.probe import Probe
from jvmlab.model.process import InvocationPlan, ProcessResult
from jvmlab.plan.prepare import Plan, PreparedCell
from jvmlab.sizing.minheap import (
    MinHeapResult,
    MinHeapSettings,
    ProbeOutcome,
    ReplayingProbe,
    find_min_heap,
)
from jvmlab.sizing.probe import JvmProbe
from jvmlab.store.protocol import Store

DOCUMENT = "minheap"


@dataclass(frozen=True)
class MinHeapRequest:
    settings: MinHeapSettings
    fail_pattern: str | None = None
    timeout_s: float | None = None  # per probe; default: the spec's timeout

    def to_json(self) -> dict:
        s = self.settings
        return {"lower_bytes": s.lower_bytes, "upper_bytes": s.upper_bytes, "step_bytes": s.step_bytes,
                "repeats": s.repeats, "max_probes": s.max_probes, "fail_pattern": self.fail_pattern,
                "timeout_s": self.timeout_s}


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


ProbeObserver = Callable[[PreparedCell, ProbeOutcome], None]


def run_min_heap(plan: Plan, store: Store, request: MinHeapRequest, artifacts_root: Path, *,
                 resume: bool = False, executor: Executor | None = None,
                 on_probe: ProbeObserver = lambda _c, _o: None) -> MinHeapStudy:
    """Search every cell's minimum heap; store probes as they finish; resume from the store."""
    pattern = compile_pattern(request.fail_pattern)
    limits = _limits(plan)  # before anything is stored: refused with one line if impossible here
    key = _hash(plan, request)
    exp_id, doc = _open(plan, store, request, key, artifacts_root, resume)
    ctx = run_context(plan)
    timeout = request.timeout_s or ctx.timeout_s
    cell_ids = {c.idx: c.id for c in store.cells(exp_id)}
    hooked = with_hooks(executor or LocalExecutor())  # the spec's hooks around every probe (execute/hooks.py)
    try:
        found, replayed = _search_cells(plan, store, request, exp_id, doc, cell_ids, artifacts_root,
                                        _Setup(hooked, limits, pattern, timeout, ctx.cwd), on_probe)
    except KeyboardInterrupt:
        _interrupted(store, exp_id, doc, 2)
    except Interrupted as err:
        _interrupted(store, exp_id, doc, err.signum)
    finally:
        for hazard in hooked.close():
            store.add_hazard(exp_id, hazard)
    store.set_status(exp_id, "done", finished=True)
    return MinHeapStudy(exp_id, tuple(found), replayed)


@dataclass(frozen=True)
class _Setup:
    executor: Executor
    limits: LimitRunner | None
    pattern: re.Pattern[str] | None
    timeout_s: float
    cwd: Path


def _search_cells(plan: Plan, store: Store, request: MinHeapRequest, exp_id: int, doc: dict,
                  cell_ids: dict[int, int], artifacts_root: Path, setup: _Setup,
                  on_probe: ProbeObserver) -> tuple[list[CellMinHeap], int]:
    found: list[CellMinHeap] = []
    replayed = 0
    for pc in plan.cells:
        entry = doc["cells"].setdefault(str(pc.cell.index), {"name": pc.cell.name, "probes": [], "result": None})
        stored = [ProbeOutcome.from_json(p) for p in entry["probes"]]
        recorder = _Recorder(store, exp_id, cell_ids[pc.cell.index], entry, doc, pc, on_probe)
        runner = JvmProbe(pc, _RecordingExecutor(setup.executor, recorder, setup.limits, pc), cwd=setup.cwd,
                          env=dict(plan.spec.workload.env), timeout_s=setup.timeout_s,
                          artifacts_dir=artifacts_root / f"exp-{exp_id}" / f"cell-{pc.cell.index}",
                          fail_pattern=setup.pattern)
        runner.count = len(stored)
        replay = ReplayingProbe(stored, runner, recorder.outcome)
        result = find_min_heap(replay, request.settings)
        replayed += replay.replayed
        entry["result"] = result.to_json() | {"probes": None}
        store.put_experiment_document(exp_id, DOCUMENT, doc)
        found.append(CellMinHeap(pc.cell.index, pc.cell.name, dict(pc.cell.levels), pc.cell.jvm, result))
    return found, replayed


def _interrupted(store: Store, exp_id: int, doc: dict, signum: int) -> None:
    store.set_status(exp_id, "interrupted")
    probes = sum(len(e["probes"]) for e in doc["cells"].values())
    raise Interrupted(signum, f"interrupted; {probes} probe(s) are stored in {store.url}; continue with the same "
                              f"`jvmlab minheap` command and --resume")


def load_min_heap(store: Store, experiment_id: int) -> MinHeapStudy:
    """A stored search, read back (for reports and for planning a sweep)."""
    doc = store.experiment_document(experiment_id, DOCUMENT)
    if doc is None:
        raise UserError(f"experiment {experiment_id} is not a minimum-heap search; run `jvmlab minheap SPEC`")
    cells = {c.idx: c for c in store.cells(experiment_id)}
    out = []
    for idx, entry in sorted(doc["cells"].items(), key=lambda kv: int(kv[0])):
        if entry.get("result") is None:
            continue
        body = dict(entry["result"], probes=entry["probes"])
        cell = cells[int(idx)]
        out.append(CellMinHeap(int(idx), cell.name, cell.levels, cell.jvm, MinHeapResult.from_json(body)))
    return MinHeapStudy(experiment_id, tuple(out), 0)


class _Recorder:
    """Stores each new probe: an invocation row (as it finishes) and the document."""

    def __init__(self, store: Store, exp_id: int, cell_id: int, entry: dict, doc: dict,
                 pc: PreparedCell, on_probe: ProbeObserver) -> None:
        self.store, self.exp_id, self.cell_id = store, exp_id, cell_id
        self.entry, self.doc, self.pc, self.on_probe = entry, doc, pc, on_probe
        self.last: tuple[InvocationPlan, ProcessResult, Collected] | None = None

    def ran(self, plan: InvocationPlan, result: ProcessResult, collected: Collected) -> None:
        self.last = (plan, result, collected)

    def outcome(self, outcome: ProbeOutcome) -> None:
        position = len(self.entry["probes"])
        if self.last is not None:
            plan, result, collected = self.last
            collected.metrics["minheap.heap_bytes"] = float(outcome.heap_bytes)
            collected.documents["minheap_probe"] = outcome.to_json()
            self.store.record_invocation(self.exp_id, self.cell_id, block=position, position=position,
                                         result=result, collected=collected, argv=list(plan.argv),
                                         artifacts_dir=str(plan.artifacts_dir))
        self.entry["probes"].append(outcome.to_json())
        self.store.put_experiment_document(self.exp_id, DOCUMENT, self.doc)
        self.on_probe(self.pc, outcome)


class _RecordingExecutor:
    """Runs a probe (inside the cell's CPU/memory limits, if any) and hands it to the recorder."""

    def __init__(self, inner: Executor, recorder: _Recorder, limits: LimitRunner | None, pc: PreparedCell) -> None:
        self.inner, self.recorder, self.limits, self.pc = inner, recorder, limits, pc

    def run(self, plan: InvocationPlan, probes: Sequence[Probe] = ()) -> ProcessResult:
        if self.limits is None:
            result, collected = self.inner.run(plan, probes), Collected()
        else:
            limited = replace(plan, argv=tuple(self.limits.enter(self.pc, list(plan.argv))))
            try:
                result = self.inner.run(limited, probes)
            except BaseException:
                self.limits.close()  # Ctrl-C: no group left behind
                raise
            result, collected = self.limits.leave(self.pc, result)
        self.recorder.ran(plan, result, collected)
        return result


def _limits(plan: Plan) -> LimitRunner | None:
    """[environment] cpus/memory apply to probes too (refused before anything runs if impossible)."""
    env = plan.spec.environment
    if not (env.cpus or env.memory):
        return None
    runner = LimitRunner(env.cpu_limit)
    refuse_if_unsupported(runner, list(plan.cells))
    return runner


def _open(plan: Plan, store: Store, request: MinHeapRequest, key: str, artifacts_root: Path,
          resume: bool) -> tuple[int, dict]:
    if resume:
        found = store.find_resumable(key)
        if found is None:
            raise UserError(f"nothing to resume: no minimum-heap search of this spec with these bounds in "
                            f"{store.url}; run it without --resume")
        doc = store.experiment_document(found.id, DOCUMENT) or {"request": request.to_json(), "cells": {}}
        store.set_status(found.id, "running")
        return found.id, doc
    spec = plan.spec
    exp_id = store.create_experiment(
        name=f"minheap: {spec.name or (plan.spec_path.stem if plan.spec_path else 'experiment')}",
        spec_text=plan.spec_text, spec_hash=key, spec_path=str(plan.spec_path) if plan.spec_path else None,
        fingerprint=fingerprint(plan.jdk_homes), seed=spec.run.seed, command_line="jvmlab minheap",
        jvmlab_version=__version__, artifacts_dir=str(artifacts_root))
    for pc in plan.cells:
        store.add_cell(exp_id, idx=pc.cell.index, name=pc.cell.name, jvm=pc.cell.jvm, jdk=pc.jdk.to_json(),
                       levels=dict(pc.cell.levels), requested_flags=list(pc.cell.flags), flags=list(pc.flags),
                       final_flags=pc.final_flags, argv=pc.launch.argv(pc.jdk, list(pc.flags), pc.cell.args))
    store.set_baseline(exp_id, plan.baseline_index)
    store.set_run_options(exp_id, {"kind": "minheap", **request.to_json()})
    doc = {"request": request.to_json(), "cells": {}}
    store.put_experiment_document(exp_id, DOCUMENT, doc)
    return exp_id, doc


def _hash(plan: Plan, request: MinHeapRequest) -> str:
    """The spec and the search settings: the same pair resumes, anything else is new."""
    text = plan.spec_text + "\n#minheap " + json.dumps(request.to_json(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def compile_pattern(pattern: str | None) -> re.Pattern[str] | None:
    """The --fail-pattern, or a UserError before any JVM starts."""
    if pattern is None:
        return None
    try:
        return re.compile(pattern)
    except re.error as err:
        raise UserError(f"--fail-pattern {pattern!r} does not compile: {err}") from None
