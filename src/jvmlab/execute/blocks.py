"""This machine's block runner: the session's slots in their order, one at a time, with the
machine checked between blocks (``Session.between_blocks``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from jvmlab.execute.load import LoadWatch
from jvmlab.plan.schedule import Slot


class SlotSession(Protocol):
    """What a block runner on this machine needs of the session."""

    def allows(self, slot: Slot, inflight: int = 0) -> str: ...

    def run_one(self, slot: Slot) -> None: ...

    def between_blocks(self, load: LoadWatch, block: int) -> None: ...


@dataclass
class LocalBlocks:
    """This machine's block runner: the slots in order, the machine checked between blocks."""

    session: SlotSession
    ci_words: str = "95% CI"
    more_hint: str = "raise --max-invocations or --budget"

    @property
    def width(self) -> int:
        return 1

    def run_blocks(self, slots: list[Slot]) -> None:
        session = self.session
        load = LoadWatch()
        current: int | None = None
        for slot in slots:
            if slot.block != current:
                if current is not None:
                    session.between_blocks(load, current)
                current = slot.block
                load.start()
            verdict = session.allows(slot)
            if verdict == "stop":
                return
            if verdict == "run":
                session.run_one(slot)
        if current is not None:
            session.between_blocks(load, current)


