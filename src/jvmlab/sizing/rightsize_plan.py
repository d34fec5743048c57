"""The rightsize spec: the spec's one configuration at every size (and heap share).

The sizes are the spec's own machinery: ``[environment] cpus`` and ``memory`` lists (a fresh
cgroup per invocation, fractions of a CPU allowed, the JVM's view recorded; docs/sizing.md).
``--jvm-sizing auto`` drops the configuration's heap sizing (``-Xmx``, ``-Xms``,
``*RAMPercentage`` ...) so the JVM sizes itself to the container, or, with heap shares, adds
a factor ``heap_share`` whose levels set ``-XX:MaxRAMPercentage``; ``keep`` runs the flags
as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jvmlab.errors import UserError
from jvmlab.plan.advise import one_cell
from jvmlab.plan.prepare import Plan, PreparedCell, prepare
from jvmlab.sizing.probe import HEAP_FLAGS
from jvmlab.sizing.rightsize_search import Size
from jvmlab.spec.durations import parse_size_bytes
from jvmlab.spec.model import Level, Matrix

SHARE_FACTOR = "heap_share"


def refuse_unsizable(base: Plan, jvm_sizing: str, heap_shares: Sequence[int]) -> None:
    """One line, before anything is stored, for a spec rightsize cannot size."""
    spec = base.spec
    if len(base.cells) != 1:
        raise UserError(f"rightsize sizes one configuration; the spec has {len(base.cells)} cells "
                        f"({', '.join(pc.cell.name for pc in base.cells[:4])}{' ...' if len(base.cells) > 4 else ''}): "
                        f"narrow it to one JDK and one level per factor")
    if spec.environment.cpus or spec.environment.memory:
        raise UserError("the spec sets [environment] cpus/memory; rightsize sets them from --cpus and --memory: "
                        "remove them from the spec")
    if spec.tune is not None:
        raise UserError("the spec has a [tune] part; rightsize runs one configuration: remove it")
    if jvm_sizing == "keep" and heap_shares:
        raise UserError("--heap-share sweeps the heap share with --jvm-sizing auto; with keep the spec's flags "
                        "are used as they are")


def rightsize_plan(base: Plan, cpus: Sequence[float], memory: Sequence[str], jvm_sizing: str,
                   heap_shares: Sequence[int], max_invocations: int) -> Plan:
    """The base plan's one cell at every size (x heap share), prepared like any spec."""
    refuse_unsizable(base, jvm_sizing, heap_shares)
    spec = base.spec
    pc = base.cells[0]
    spec = one_cell(spec, pc.cell.jvm, dict(pc.cell.levels))
    factors: dict[str, Any] = {}
    if jvm_sizing == "auto":
        kept = [f for f in spec.workload.jvm_args if not f.startswith(HEAP_FLAGS)]
        spec = spec.model_copy(update={"workload": spec.workload.model_copy(update={"jvm_args": kept})})
        if heap_shares:
            factors[SHARE_FACTOR] = {str(s): Level(flags=[f"-XX:MaxRAMPercentage={s}"]) for s in heap_shares}
    environment = spec.environment.model_copy(update={"cpus": list(cpus), "memory": list(memory),
                                                      "cpu_limit": "quota"})
    run = spec.run.model_copy(update={"invocations": max_invocations, "warmup": 0})
    name = f"rightsize: {base.spec.name or (base.spec_path.stem if base.spec_path else 'experiment')}"
    spec = spec.model_copy(update={"name": name, "environment": environment, "factors": factors,
                                   "matrix": Matrix(), "run": run})
    return prepare(spec, base.spec_text, base.spec_path)


def cell_key(pc: PreparedCell) -> tuple[Size, int | None]:
    """A rightsize cell's size and heap share (None: the JVM's own)."""
    cpus, memory, share = pc.cell.level("cpus"), pc.cell.level("memory"), pc.cell.level(SHARE_FACTOR)
    if cpus is None or memory is None:
        raise RuntimeError(f"{pc.cell.name} is not a rightsize cell")
    return Size(float(cpus), parse_size_bytes(memory)), int(share) if share is not None else None
