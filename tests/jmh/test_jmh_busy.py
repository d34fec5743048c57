"""Issue 40: the JMH table and the `jmh` scenario verdict judge a score as `run` judges a
comparison (the one interference model), seeded, no JVM.

A JMH score is a throughput: a fork whose threads wait in the run queue scores less. Every block
is busy (80-93% of the CPU taken by others); the compared cell's forks waited 0.6 s more per
second of work than the baseline's, with the same work per operation. Before issue 40 the table
counted that as a real change (significant after Holm); now it is not called, with the measured
delay, while a real difference of work under the same load is.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from jvmlab.analyze.model import CellStats
from jvmlab.metrics import DEFAULT, RUN_DELAY
from jvmlab.report.jmh import jmh_table
from jvmlab.results import BusyBlock
from jvmlab.scenarios import scenario_verdict

BLOCKS = 12
METRIC = "jmh.Sample.bench"


class Invocation:
    def __init__(self, block: int, values: dict[str, float]) -> None:
        self.block, self.values = block, values

    def value(self, metric: str) -> float | None:
        return self.values.get(metric)


def _summary(seed: int, work_x: float, extra_delay_x: float) -> SimpleNamespace:
    rng = np.random.default_rng(seed)
    load = rng.uniform(0.3, 1.2, BLOCKS)
    cells = []
    for name, work, extra in (("base", 1.0, 0.0), ("x", work_x, extra_delay_x)):
        own = work * rng.lognormal(0.0, 0.02, BLOCKS)  # seconds of CPU per unit of work
        delay = own * (load * rng.uniform(0.3, 1.7, BLOCKS) + extra)
        score = 1000.0 / (own + delay)  # ops/s: the waiting is in the score
        invocations = tuple(Invocation(b, {METRIC: float(score[b]), RUN_DELAY: float(delay[b])})
                            for b in range(BLOCKS))
        mean = float(score.mean())
        stats = {METRIC: CellStats(name, BLOCKS, 0, mean, None, None, mean, None, None, None, (mean, mean), None)}
        cells.append(SimpleNamespace(cell=SimpleNamespace(name=name, jvm="j", levels={}), stats=stats,
                                     ok_invocations=invocations, n=BLOCKS))
    busy = tuple(BusyBlock(round(s * 100), False, f"block {b + 1}", "", b)
                 for b, s in enumerate(rng.uniform(0.80, 0.93, BLOCKS)))
    results = SimpleNamespace(busy_blocks=busy, measured_blocks=lambda: BLOCKS)
    return SimpleNamespace(experiment=SimpleNamespace(name="demo jmh: x", seed=seed), baseline="base",
                           cells=tuple(cells), metrics=DEFAULT.extended({METRIC: "ops/s"}), results=results,
                           hazards=(), verdicts={}, metric=METRIC)


def test_a_score_difference_from_contention_alone_is_not_counted() -> None:
    summary = _summary(4060, work_x=1.0, extra_delay_x=0.6)
    table = jmh_table(summary)
    assert table is not None
    [row] = table.rows
    assert row.comparisons["x"].significant  # what the table counted before: significant after Holm
    assert "x" in row.disturbed and not row.called("x")
    assert "not called a difference: disturbed (run-queue delay" in row.sentence("x")
    text = scenario_verdict("jmh", summary)
    assert text.startswith("0 of 1 benchmark x cell comparisons"), text
    assert "Not called on a busy machine: x" in text and "at equal run-queue delay" in text


def test_a_real_score_difference_under_the_same_load_is_counted() -> None:
    summary = _summary(4061, work_x=1.5, extra_delay_x=0.0)
    table = jmh_table(summary)
    assert table is not None
    [row] = table.rows
    assert row.called("x") and not row.disturbed
    assert scenario_verdict("jmh", summary).startswith("1 of 1 benchmark x cell comparisons")
