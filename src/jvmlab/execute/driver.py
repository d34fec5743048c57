"""The driver protocol: what the session (``execute/session.py``) asks the driver of its loop.

A driver decides what runs next, and nothing else. ``Session.drive(driver, runner)`` asks it
for the next blocks (``next_blocks``: a list of slots, or None to stop), hands them to the
block runner (this machine or Dask), and for each slot asks it which cell runs (``cell``: a
cell of the driver's own, or None for the plan's), where its files go (``folder``), how to
read the result before it is stored (``judge``: it may add metrics or a document, stored in
the slot's transaction) and tells it the stored result (``observe``). ``failures_are_data``:
a failing slot is the driver's answer (a probe too small to run, an infeasible trial), not a
failure the budget counts. A driver never sets a field of the session.

Two shapes: a *planned* driver knows its blocks when asked (fixed blocks, ``--until``); a
*search* asks from inside its own loop (the minimum-heap bisection, the tuner's races): it
queues the slots it wants (:class:`SearchDriver` ``.ask``) and the session drives them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from jvmlab.collect.base import Collector
from jvmlab.execute.slots import SlotWork
from jvmlab.model.collected import Collected
from jvmlab.model.process import ProcessResult
from jvmlab.plan.prepare import PreparedCell
from jvmlab.plan.schedule import Slot

__all__ = ["Driver", "DriverCell", "FixedBlocks", "SearchDriver"]


@dataclass(frozen=True)
class DriverCell:
    """A cell a driver runs in place of the plan's: what runs, its stored id, its collectors."""

    cell: PreparedCell
    cell_id: int
    collectors: list[Collector]


class Driver:
    """What the session asks a driver (see the module docstring); these answers are the
    defaults: no blocks, the plan's cells and folders, results stored as they are."""

    failures_are_data = False

    def next_blocks(self) -> list[Slot] | None:
        """The slots to run next (whole blocks, in order); None: the driver is done."""
        return None

    def cell(self, index: int) -> DriverCell | None:
        """The cell a slot of ``index`` runs; None: the plan's cell of that index."""
        return None

    def folder(self, slot: Slot) -> str | None:
        """The name of the slot's artifacts folder; None: the session's (``bK``/``wK``)."""
        return None

    def judge(self, work: SlotWork, result: ProcessResult, collected: Collected) -> Collected:
        """Read a result before it is stored (what it adds is stored with it)."""
        return collected

    def observe(self, work: SlotWork, result: ProcessResult, collected: Collected) -> None:
        """A slot was stored."""


@dataclass
class FixedBlocks(Driver):
    """The planned blocks, once (``pending``: the session's pending slots, asked when driven)."""

    pending: Callable[[], list[Slot]]
    given: bool = False

    def next_blocks(self) -> list[Slot] | None:
        if self.given:
            return None
        self.given = True
        return self.pending()


@dataclass
class SearchDriver(Driver):
    """A search that asks from inside its own loop: ``ask`` queues the slots it wants now; the
    session drives them and the results it observed are kept by (cell index, block) for the
    search to ``take``. Subclasses give cells, folders and judges."""

    queued: list[list[Slot]] = field(default_factory=list)
    results: dict[tuple[int, int], tuple[ProcessResult, Collected]] = field(default_factory=dict)

    def ask(self, slots: list[Slot]) -> None:
        if slots:
            self.queued.append(slots)

    def next_blocks(self) -> list[Slot] | None:
        return self.queued.pop(0) if self.queued else None

    def observe(self, work: SlotWork, result: ProcessResult, collected: Collected) -> None:
        self.results[(work.slot.cell_index, work.slot.block)] = (result, collected)

    def take(self, cell_index: int, block: int) -> tuple[ProcessResult, Collected] | None:
        """The stored result of that slot (None: not run, the budget stopped it)."""
        return self.results.pop((cell_index, block), None)
