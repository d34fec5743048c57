"""Run order strategies: which cell runs at each step, seeded and reproducible.

Warm-up invocations come first and have negative block numbers (-warmup .. -1); measured
blocks are numbered 0, 1, 2, ... A block's order depends only on (seed, block), so adding
blocks later (adaptive stopping) or resuming reproduces the same order.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Order = Literal["random-blocks", "round-robin", "sequential"]


@dataclass(frozen=True)
class Slot:
    """One planned invocation."""

    cell_index: int
    block: int  # negative for warm-up
    position: int  # position within the block (0-based)

    @property
    def warmup(self) -> bool:
        return self.block < 0


def block_order(n_cells: int, block: int, order: Order, seed: int) -> list[int]:
    """The cell indices of one block, in run order."""
    cells = list(range(n_cells))
    if order == "random-blocks":
        random.Random(f"{seed}:{block}").shuffle(cells)
    return cells


def schedule(n_cells: int, warmup: int, blocks: Iterable[int], order: Order, seed: int) -> list[Slot]:
    """All slots for the ``warmup`` warm-up blocks and the given measured blocks, in run order.

    ``sequential`` runs every invocation of a cell before the next cell (AABB, which
    confounds drift with the configuration: offered for comparison, not recommended);
    ``round-robin`` runs the cells in a fixed order each block (ABAB); ``random-blocks``
    shuffles each block independently.
    """
    block_ids = [*range(-warmup, 0), *blocks]
    if order == "sequential":
        return [Slot(cell, block, 0) for cell in range(n_cells) for block in block_ids]
    slots: list[Slot] = []
    for block in block_ids:
        for position, cell in enumerate(block_order(n_cells, block, order, seed)):
            slots.append(Slot(cell, block, position))
    return slots
