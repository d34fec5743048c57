"""What a tuning run shares between racing and confirmation: the measurer, the block
counter, the seeded order within blocks and the budget (the one ``execute.budget.Budget``,
with [tune.budget]'s limits and what was spent).

Every invocation goes through ``run``: the block number and position identify it, so a
resumed run finds what was measured before in the store (the measurer's history) and
nothing is measured twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from jvmlab.execute.budget import Budget
from jvmlab.tune.model import Config, Measurer, Metrics
from jvmlab.tune.space import TuneConfig


@dataclass
class Tuning:
    """One tuning run's state; its invocations go through the measurer (the session's driver)."""

    config: TuneConfig
    measurer: Measurer
    seed: int
    block: int = 0  # the block being looked at (hazards name it)
    reserved: int = 0  # the last block number handed out (a parallel measurer runs ahead)
    budget: Budget = field(default_factory=Budget)  # [tune.budget]'s limits (set from config) and its counts
    hazards: list[str] = field(default_factory=list)
    rejections: dict[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        b = self.config.budget
        self.budget = Budget(invocations=b.invocations, wall_s=b.wall_s, trials=b.trials)

    @property
    def invocations(self) -> int:
        return self.budget.used_invocations

    @property
    def spent_wall_s(self) -> float:
        """Summed invocation wall time: replays the same on resume."""
        return self.budget.used_wall_s

    def rejected(self, cfg: Config) -> str | None:
        if cfg.key not in self.rejections:
            self.rejections[cfg.key] = self.measurer.rejected(cfg.jvm, cfg.flags)
        return self.rejections[cfg.key]

    def blocks(self, configs: list[Config], limit: int) -> Iterator[list[Metrics | str]]:
        """Up to ``limit`` blocks of ``configs``, one by one; a measurer with ``width`` > 1
        (tune --cluster: one block per node) runs that many at once, and the blocks a race
        no longer needs are stored, unused. The width is fixed per run, so a resume replays."""
        width, done = max(1, int(getattr(self.measurer, "width", 1))), 0
        while done < limit:
            spare = self.config.budget.invocations
            room = limit - done if spare is None else max(1, (spare - self.invocations) // max(1, len(configs)))
            for got in self.run_blocks(configs, min(width, limit - done, room)):
                done += 1
                yield got

    def run_blocks(self, configs: list[Config], n: int) -> list[list[Metrics | str]]:
        """``n`` new blocks (numbers never reused, seeded order each); results per block in ``configs`` order."""
        first, self.reserved = self.reserved + 1, self.reserved + n
        orders = {b: np.random.default_rng([self.seed, b]).permutation(len(configs)) for b in range(first, first + n)}
        parallel = getattr(self.measurer, "measure_blocks", None)  # tune --cluster: whole blocks on nodes
        if parallel is not None:
            got_all = parallel({b: [(configs[i].jvm, configs[i].flags) for i in o] for b, o in orders.items()})
        else:
            got_all = {b: [self.measurer.measure(configs[i].jvm, configs[i].flags, b, pos)
                           for pos, i in enumerate(o)] for b, o in orders.items()}
        out = []
        for b, order in orders.items():
            self.block = b
            results: list[Metrics | str] = [""] * len(configs)
            for got, i in zip(got_all[b], order, strict=True):
                results[i] = got = self._missing(got)
                self.budget.charge(got.get("wall_s", 0.0) if isinstance(got, dict) else 0.0)
            self.hazards.extend(f"block {b}: {h}" for h in self.measurer.block_hazards())
            out.append(results)
        return out

    def _missing(self, got: Metrics | str) -> Metrics | str:
        """An invocation that ran but lacks an objective (no GC log written, no workload line)
        is a failure with its reason: the race cannot compare what was not measured."""
        if isinstance(got, str):
            return got
        lost = [o.metric for o in self.config.objectives if o.metric not in got]
        return f"objective {lost[0]} not measured in this invocation" if lost else got

    def out_of_budget(self, trials_done: int, reserve: int = 0) -> bool:
        """The one budget type (``execute.budget.Budget``) with [tune.budget]'s limits; wall time
        is the invocations' summed wall time, so a resume replays the same decisions."""
        return self.budget.spent(self.invocations + reserve, trials_done, self.spent_wall_s)

    def spent_share(self, trials_done: int) -> float:
        """How much of [tune.budget] is spent (0 to 1; the largest share of its limits): what
        the progress lines' ETA extrapolates from."""
        b = self.config.budget
        shares = [0.0]
        if b.trials:
            shares.append(trials_done / b.trials)
        if b.invocations:
            shares.append(self.invocations / b.invocations)
        if b.wall_s:
            shares.append(self.spent_wall_s / b.wall_s)
        return max(shares)
