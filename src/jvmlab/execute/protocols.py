"""The two seams of the experiment loop, apart from the loop itself.

An :class:`Executor` runs one invocation (local wait4 helper, psutil on Windows, a Dask
worker, the deterministic fake); a :class:`RunObserver` is told what the loop does (the
progress bar, a test's recorder). The probes an executor drives are typed by
:class:`jvmlab.model.probe.Probe` with its :class:`~jvmlab.model.probe.ProbeContext`:
they live on the ground floor because collectors (below ``execute``) make them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from jvmlab.model.hazards import Hazard
from jvmlab.model.probe import Probe, ProbeContext
from jvmlab.model.process import InvocationPlan, ProcessResult
from jvmlab.plan.prepare import PreparedCell
from jvmlab.plan.schedule import Slot

__all__ = ["Executor", "Probe", "ProbeContext", "RunObserver", "SilentObserver"]


class Executor(Protocol):
    """Runs one invocation as a fresh process and measures it from the child alone.

    It calls each probe's hooks (``on_start``, ``on_line``, ``on_exit``) but not ``finish``:
    the loop turns probes into data after the result is known. A process that fails is a
    result with its status and reason, never an exception.
    """

    def run(self, plan: InvocationPlan, probes: Sequence[Probe] = ()) -> ProcessResult: ...


class RunObserver(Protocol):
    """What the experiment loop tells its watcher; every method must return quickly."""

    def planned(self, experiment_id: int, total: int, already_done: int, open_ended: bool = False) -> None:
        """The schedule is known: ``total`` slots, ``already_done`` of them stored (resume)."""
        ...

    def starting(self, cell: PreparedCell, slot: Slot) -> None: ...

    def finished(self, cell: PreparedCell, slot: Slot, result: ProcessResult) -> None: ...

    def warn(self, hazard: Hazard) -> None: ...

    def extended(self, added: int, note: str) -> None:
        """``--until`` added ``added`` slots (0: it stopped adding, ``note`` says why)."""
        ...


class SilentObserver:
    """An observer that says nothing: a driver with its own progress (minheap's probes, the
    tuner's trials); the session still stores every hazard."""

    def planned(self, experiment_id: int, total: int, already_done: int, open_ended: bool = False) -> None: ...

    def starting(self, cell: PreparedCell, slot: Slot) -> None: ...

    def finished(self, cell: PreparedCell, slot: Slot, result: ProcessResult) -> None: ...

    def warn(self, hazard: Hazard) -> None: ...

    def extended(self, added: int, note: str) -> None: ...
