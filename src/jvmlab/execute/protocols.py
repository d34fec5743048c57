"""The seams of the experiment loop, apart from the loop itself (``execute/session.py``).

A :class:`BlockRunner` runs the session's blocks of slots (this machine: ``execute/blocks.py``;
Dask: ``cluster/dispatch.py``); an :class:`Executor` runs one invocation (local wait4 helper,
psutil on Windows, a Dask worker, the deterministic fake); a :class:`RunObserver` is told what
the loop does (the progress bar, a test's recorder). The probes an executor drives are typed by
:class:`jvmlab.model.probe.Probe` with its :class:`~jvmlab.model.probe.ProbeContext`:
they live on the ground floor because collectors (below ``execute``) make them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from jvmlab.errors import UserError
from jvmlab.model.hazards import Hazard
from jvmlab.model.probe import Probe, ProbeContext
from jvmlab.model.process import InvocationPlan, ProcessResult
from jvmlab.plan.prepare import PreparedCell
from jvmlab.plan.schedule import Slot
from jvmlab.store.protocol import Store

__all__ = ["BlockRunner", "Executor", "PrecisionCheck", "Probe", "ProbeContext", "RunObserver", "RunnerLost",
           "SilentObserver"]

# Whether the comparisons are precise enough; the answer may also carry an estimate of
# invocations per cell still needed (``remaining_per_cell``) for the progress bar.
PrecisionCheck = Callable[[Store, int, str, float], object]


class RunnerLost(UserError):
    """The block runner can run nothing more (the whole Dask cluster went away): the session
    marks the experiment interrupted; the slots in flight are not stored, so a resume runs them."""


class BlockRunner(Protocol):
    """Runs blocks of slots for a session: each slot through ``session.prepare_slot``, an
    executor and ``session.record_slot``; asks ``session.allows`` before each slot."""

    ci_words: str  # how the stopping rule names its intervals ("95% CI", "within-node 95% CI")
    more_hint: str  # what gives --until more room ("raise --max-invocations or --budget")

    @property
    def width(self) -> int:
        """Blocks run at once (nodes); ``--until`` adds that many per round."""
        ...

    def run_blocks(self, slots: list[Slot]) -> None:
        """Run these slots (in this order where the runner keeps an order)."""
        ...


class Executor(Protocol):
    """Runs one invocation as a fresh process and measures it from the child alone.

    It calls each probe's hooks (``on_start``, ``on_line``, ``on_exit``) but not ``finish``:
    the loop turns probes into data after the result is known. A process that fails is a
    result with its status and reason, never an exception.
    """

    def run(self, plan: InvocationPlan, probes: Sequence[Probe] = ()) -> ProcessResult: ...


class RunObserver(Protocol):
    """What the experiment loop tells its watcher; every method must return quickly. The bodies
    are the defaults: an observer that says nothing (:class:`SilentObserver`)."""

    def planned(self, experiment_id: int, total: int, already_done: int, open_ended: bool = False) -> None:
        """The schedule is known: ``total`` slots, ``already_done`` of them stored (resume)."""
        return None

    def starting(self, cell: PreparedCell, slot: Slot) -> None:
        return None

    def finished(self, cell: PreparedCell, slot: Slot, result: ProcessResult) -> None:
        return None

    def warn(self, hazard: Hazard) -> None:
        return None

    def extended(self, added: int, note: str) -> None:
        """``--until`` added ``added`` slots (0: it stopped adding, ``note`` says why)."""
        return None


class SilentObserver(RunObserver):
    """An observer that says nothing: a driver with its own progress (minheap's probes, the
    tuner's trials); the session still stores every hazard."""
