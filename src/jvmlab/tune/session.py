"""What a tuning run shares between racing and confirmation: the measurer, the block
counter, the seeded order within blocks and the budget spent so far.

Every invocation goes through ``run``: the block number and position identify it, so a
resumed run finds what was measured before in the store (the measurer's history) and
nothing is measured twice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from jvmlab.tune.model import Config, Measurer, Metrics
from jvmlab.tune.space import TuneConfig


@dataclass
class Session:
    config: TuneConfig
    measurer: Measurer
    seed: int
    block: int = 0
    invocations: int = 0
    started: float = field(default_factory=time.monotonic)
    spent_wall_s: float = 0.0  # summed invocation wall time: replays the same on resume
    hazards: list[str] = field(default_factory=list)
    rejections: dict[str, str | None] = field(default_factory=dict)

    def rng(self, block: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, block])

    def rejected(self, cfg: Config) -> str | None:
        if cfg.key not in self.rejections:
            self.rejections[cfg.key] = self.measurer.rejected(cfg.jvm, cfg.flags)
        return self.rejections[cfg.key]

    def run_block(self, configs: list[Config]) -> list[Metrics | str]:
        """One block: each config once, in a seeded random order; results in the given order."""
        self.block += 1
        order = self.rng(self.block).permutation(len(configs))
        results: list[Metrics | str] = [""] * len(configs)
        for position, i in enumerate(order):
            got = self._missing(self.measurer.measure(configs[i].jvm, configs[i].flags, self.block, position))
            self.invocations += 1
            if isinstance(got, dict):
                self.spent_wall_s += got.get("wall_s", 0.0)
            results[i] = got
        self.hazards.extend(f"block {self.block}: {h}" for h in self.measurer.block_hazards())
        return results

    def _missing(self, got: Metrics | str) -> Metrics | str:
        """An invocation that ran but lacks an objective (no GC log written, no workload line)
        is a failure with its reason: the race cannot compare what was not measured."""
        if isinstance(got, str):
            return got
        lost = [o.metric for o in self.config.objectives if o.metric not in got]
        return f"objective {lost[0]} not measured in this invocation" if lost else got

    def out_of_budget(self, trials_done: int, reserve: int = 0) -> bool:
        b = self.config.budget
        return ((b.trials is not None and trials_done >= b.trials)
                or (b.invocations is not None and self.invocations + reserve >= b.invocations)
                or (b.wall_s is not None and self.spent_wall_s >= b.wall_s))
