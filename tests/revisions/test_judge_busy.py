"""Issue 40: the revisions' pair verdict (bisect, `jvmlab gate` on revisions) says what the one
interference model says `report` would do with the run-queue delays measured (seeded, no JVM):
a difference the delay explains is "disturbed (run-queue delay ... s per run)", not a
worst-case margin."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from jvmlab.analyze.model import CellData
from jvmlab.commits.judge import compare_pair
from jvmlab.commits.records import BisectStep, CommitInfo
from jvmlab.commits.steps import StepVerdict
from jvmlab.metrics import DEFAULT, RUN_DELAY
from jvmlab.report.bisect import step_line
from jvmlab.results import BusyBlock

BLOCKS = 12


def _results(seed: int, extra_delay_head: float) -> SimpleNamespace:
    rng = np.random.default_rng(seed)
    load = rng.uniform(0.3, 1.2, BLOCKS)
    data = {}
    for name, extra in (("base", 0.0), ("head", extra_delay_head)):
        own = rng.lognormal(0.0, 0.02, BLOCKS)
        delay = own * (load * rng.uniform(0.3, 1.7, BLOCKS) + extra)
        data[name] = {"wall_s": own + delay, RUN_DELAY: delay}
    busy = tuple(BusyBlock(round(s * 100), False, f"block {b + 1}", "", b)
                 for b, s in enumerate(rng.uniform(0.80, 0.93, BLOCKS)))
    return SimpleNamespace(
        cell_named=lambda name: name if name in data else None, metrics=DEFAULT,
        values=lambda cell, metric: CellData.of(data[cell][metric], np.arange(BLOCKS)),
        experiment=SimpleNamespace(seed=seed), busy_blocks=busy, measured_blocks=lambda: BLOCKS)


def test_a_revision_difference_the_delay_explains_is_said_with_the_delay() -> None:
    pair = compare_pair(_results(4070, 0.6), "head", "base", "wall_s")  # type: ignore[arg-type]
    assert pair.comparison is not None and pair.comparison.significant  # the gate's own reading stands
    assert pair.margin is None and pair.delay_s is not None and pair.delay_s > 0.3
    commit = CommitInfo("1" * 40, "c", "2026-01-01T00:00:00+00:00", 1)
    line = step_line(BisectStep(commit, StepVerdict.DIFFER, pair.ratio, pair.ci95, 24, 1, commit, commit,
                                delay_s=pair.delay_s), "wall_s")
    assert "busy machine: disturbed (run-queue delay " in line and "interference margin" not in line


def test_the_same_load_on_both_revisions_leaves_nothing_to_say() -> None:
    pair = compare_pair(_results(4071, 0.0), "head", "base", "wall_s")  # type: ignore[arg-type]
    assert pair.margin is None and pair.delay_s is None
