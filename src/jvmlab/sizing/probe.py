"""One minimum-heap probe on a real JVM: the cell's argv at one -Xmx, classified.

"Too small" is an OutOfMemoryError (heap space, GC overhead, metaspace does not count
as heap but is reported the same way), a timeout, the user's failure pattern in the output,
a kill by a signal, or any other failure (a heap below what the JVM accepts ends with
"Too small maximum heap"). The verdict keeps the reason so a workload failing for an
unrelated cause shows up as such at the upper bound.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.execute.protocols import Executor
from jvmlab.execute.slots import invocation_of
from jvmlab.model.process import ProcessResult, Status
from jvmlab.plan.prepare import PREPARE_MARK, PreparedCell
from jvmlab.sizing.minheap import ProbeOutcome, Verdict
from jvmlab.spec.pattern import BoundedPattern, PatternTimeout

HEAP_FLAGS = ("-Xmx", "-Xms", "-Xmn", "-XX:MaxHeapSize=", "-XX:InitialHeapSize=", "-XX:MinHeapSize=",
              "-XX:MaxRAMPercentage=", "-XX:InitialRAMPercentage=", "-XX:MinRAMPercentage=")
_OOM = re.compile(r"OutOfMemoryError")
_READ_CAP = 4 << 20


def heap_flags(cell_flags: Sequence[str], heap_bytes: int) -> list[str]:
    """The cell's flags without its own heap sizing, then -Xmx at the probed size."""
    kept = [f for f in cell_flags if not f.startswith(HEAP_FLAGS) and not f.startswith(PREPARE_MARK)]
    return [*kept, f"-Xmx{heap_bytes // 1024}k"]


def classify(result: ProcessResult, output: str, fail_pattern: BoundedPattern | None) -> Verdict:
    """How the bisection reads one run."""
    if fail_pattern is not None:  # a pattern that runs out of time cannot read any run: one line
        try:
            if fail_pattern.search(output):
                return Verdict.PATTERN
        except PatternTimeout as err:
            raise UserError(str(err)) from None
    if result.status is Status.OK:
        return Verdict.PASS
    if _OOM.search(output):
        return Verdict.OOM
    if result.status is Status.TIMEOUT:
        return Verdict.TIMEOUT
    if result.status is Status.SIGNALED:
        return Verdict.KILLED
    return Verdict.FAILED


def heap_cell(pc: PreparedCell, heap_bytes: int, timeout_s: float | None = None) -> PreparedCell:
    """The cell at one -Xmx (its own heap sizing dropped), everything else from its template;
    ``timeout_s``: the search's own per-probe timeout (default: the template's)."""
    template = pc.template
    if template is not None and timeout_s is not None:
        template = replace(template, timeout_s=timeout_s)
    return replace(pc, flags=tuple(heap_flags(pc.flags, heap_bytes)), template=template)


def outcome_of(result: ProcessResult, heap_bytes: int, fail_pattern: BoundedPattern | None) -> ProbeOutcome:
    """One run read as a probe: its verdict and why."""
    output = _read(result.stdout_path) + "\n" + _read(result.stderr_path)
    if not output.strip():
        output = result.stdout_tail + "\n" + result.stderr_tail
    verdict = classify(result, output, fail_pattern)
    if verdict.passed:
        reason = None
    elif verdict is Verdict.PATTERN and fail_pattern is not None:
        reason = f"output matched the failure pattern {fail_pattern.pattern!r}"
    else:
        reason = result.reason or str(verdict)
    wall = result.measures.wall_s if result.measures is not None else None
    return ProbeOutcome(heap_bytes, verdict, reason, wall)


class JvmProbe:
    """Runs a prepared cell at a given -Xmx outside any experiment (``bench/minheap.py``): the
    invocation from the cell's template (env, cwd, timeout), one folder of output per probe."""

    def __init__(self, pc: PreparedCell, executor: Executor, *, artifacts_dir: Path, timeout_s: float | None = None,
                 fail_pattern: BoundedPattern | None = None) -> None:
        self.pc, self.executor, self.timeout_s = pc, executor, timeout_s
        self.artifacts_dir = artifacts_dir
        self.fail_pattern = fail_pattern
        self.count = 0

    def __call__(self, heap_bytes: int) -> ProbeOutcome:
        self.count += 1
        folder = self.artifacts_dir / f"p{self.count:03d}-{heap_bytes >> 20}m"
        cell = heap_cell(self.pc, heap_bytes, self.timeout_s)
        result = self.executor.run(invocation_of(cell, cell.argv(), folder), [])
        return outcome_of(result, heap_bytes, self.fail_pattern)


def _read(path: Path | None) -> str:
    if path is None:
        return ""
    try:
        with open(path, "rb") as f:
            return f.read(_READ_CAP).decode("utf-8", "replace")
    except OSError:
        return ""
