"""One slot made ready to run, and its result turned into measurements: the parts of the loop
that a cluster executor splits across machines (prepared here, run on a node, finished here).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from jvmlab.collect.base import Collector
from jvmlab.model.collected import Collected
from jvmlab.model.hazards import Hazard
from jvmlab.model.probe import Probe, ProbeContext
from jvmlab.model.process import InvocationPlan, ProcessResult, Status
from jvmlab.plan.prepare import PreparedCell
from jvmlab.plan.schedule import Slot


@dataclass(frozen=True)
class SlotWork:
    """One slot made ready to run: what the executor gets, and what recording it needs.
    (Split out so a cluster executor can run the middle part on another node.)"""

    cell: PreparedCell
    slot: Slot
    invocation: InvocationPlan
    probes: list[Probe]
    argv: list[str]
    artifacts: Path
    ctx: ProbeContext | None = None  # what the probes were made from (a node makes its own)


def slot_artifacts(artifacts_root: Path, experiment_id: int, cell_index: int, slot: Slot) -> Path:
    """Where one invocation's files go: exp-N/cell-I/bK (a warm-up: wK)."""
    tag = f"w{-slot.block}" if slot.warmup else f"b{slot.block}"
    return artifacts_root / f"exp-{experiment_id}" / f"cell-{cell_index}" / tag


ARCHIVE_FLAGS = ("-XX:SharedArchiveFile=", "-XX:AOTCache=")


def logs_class_loads(cells: Iterable[PreparedCell]) -> bool:
    """Whether an experiment's invocations log class loading: when a cell uses a CDS archive or an
    AOT cache, its use is verified from the log (collect/flag_effect.py), and every cell logs
    alike, so the log's cost is paid on both sides of each comparison."""
    return any(f.startswith(ARCHIVE_FLAGS) for pc in cells for f in pc.flags) or any(
        pc.template is not None and pc.template.prepare is not None for pc in cells)


def build_slot(pc: PreparedCell, slot: Slot, collectors: list[Collector], artifacts: Path,
               class_log: bool = False) -> SlotWork:
    """The slot's probes, its argv (the cell's flags plus the probes' flags) and its invocation,
    everything else from the cell's invocation template. ``class_log``: :func:`logs_class_loads`."""
    artifacts.mkdir(parents=True, exist_ok=True)
    ctx = ProbeContext(jdk=pc.jdk, cell_name=pc.cell.name, flags=pc.flags, artifacts_dir=artifacts,
                       final_flags=pc.final_flags, workload_kind=pc.launch.kind, class_log=class_log)
    probes = [c.probe(ctx) for c in collectors]
    argv = pc.argv([arg for p in probes for arg in p.jvm_args()], artifacts_dir=artifacts)
    return SlotWork(pc, slot, invocation_of(pc, argv, artifacts), probes, argv, artifacts, ctx)


def invocation_of(pc: PreparedCell, argv: list[str], artifacts: Path) -> InvocationPlan:
    """One invocation of a cell from its template: argv list, env, cwd, timeout, ready, cap."""
    t = pc.template
    if t is None:
        raise ValueError(f"cell {pc.cell.name!r} has no invocation template (not made by plan.prepare)")
    return InvocationPlan(argv=tuple(argv), env=t.process_env(pc.jdk.home), cwd=t.cwd, timeout_s=t.timeout_s,
                          artifacts_dir=artifacts, ready_regex=t.ready_regex, output_cap_bytes=t.output_cap_bytes,
                          hooks=t.hooks_for(pc.jdk.java, pc.cell.name, artifacts))


def finish_probes(work: SlotWork, result: ProcessResult, collected: Collected,
                  env_hazards: Sequence[Hazard] = ()) -> tuple[ProcessResult, Collected]:
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


def block_label(block: int) -> str:
    """How people count blocks: the warm-up, then block 1, 2, ... (stored from 0; warm-ups < 0)."""
    return "the warm-up" if block < 0 else f"block {block + 1}"
