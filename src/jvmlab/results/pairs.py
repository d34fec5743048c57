"""Any two cells of one experiment compared, for the scenario verdicts (pre-touch on vs off at
each heap, a cold page cache vs a warm one, ...), judged by the one interference model.

Comparisons in :func:`jvmlab.results.compare_cells` are against one baseline cell; a scenario
verdict needs other pairs. :func:`pair_difference` and :func:`pair_ratio_pct` are the numbers
(the same bootstrap as the report's comparisons, paired by block when the cells share blocks);
:func:`judge_pair` is the verdict: the same rule as ``run``/``report``
(:func:`jvmlab.results.compare.busy_way` and :func:`jvmlab.results.compare.disturbances`, over
:mod:`jvmlab.analyze.interference`): a metric contention barely moves (CPU time, peak RSS,
counts) by its own interval, a contended one (wall time, throughput, latency) at equal
run-queue delay when the delays were measured, else on the quiet blocks alone or only when its
interval clears the busy blocks' margin; a drift's margin always.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.compare import block_sums, ratio_paired, ratio_unpaired
from jvmlab.analyze.difference import difference_test
from jvmlab.analyze.drift import drift
from jvmlab.analyze.model import CellData, Clean, Comparison, MetricAnalysis, clean
from jvmlab.results.compare import BusyWay, Disturbance, busy_way, disturbances
from jvmlab.results.records import BusyBlock

Interval3 = tuple[float, float, float]  # estimate, low, high (NaN bounds: no interval)


def _pair_rng(a: str, b: str, metric: str, what: str) -> np.random.Generator:
    """Seeded by the pair's names (seed 0), so a scenario verdict is the same on every read."""
    return rng_for(0, metric, a, b, what)


def pair_difference(a_name: str, a: Clean, b_name: str, b: Clean, metric: str,
                    scale: float = 1.0) -> Interval3 | None:
    """mean(a) - mean(b), times ``scale``, with its 95% bootstrap CI (paired by block when possible)."""
    test = difference_test(a, b, _pair_rng(a_name, b_name, metric, "diff"))
    d, ci = test.difference, test.ci95
    if d is None:
        return None
    lo, hi = ci if ci is not None else (math.nan, math.nan)
    low, high = sorted((lo * scale, hi * scale))
    return d * scale, low, high


def pair_ratio_pct(a_name: str, a: Clean, b_name: str, b: Clean, metric: str) -> Interval3 | None:
    """(mean(a) / mean(b) - 1) in percent, with its 95% bootstrap CI."""
    sums = block_sums(a, b)
    rng = _pair_rng(a_name, b_name, metric, "ratio")
    r, ci = ratio_paired(sums, rng) if sums is not None else ratio_unpaired(a.values, b.values, rng)
    if r is None:
        return None
    lo, hi = ci if ci is not None else (math.nan, math.nan)
    return (r - 1) * 100, (lo - 1) * 100, (hi - 1) * 100


def excludes_zero(value: Interval3) -> bool:
    """The interval (of a difference or a change in percent) excludes zero."""
    return math.isfinite(value[1]) and math.isfinite(value[2]) and (value[1] > 0 or value[2] < 0)


@dataclass(frozen=True)
class JudgedPair:
    """One pair's estimate with its 95% CI (``value``: a difference times the scale, or a change
    in percent), and what the one interference model found (``disturbance``; None: nothing
    disturbed it). ``withheld``: the interval excludes zero but a busy machine or a drift could
    have produced it, so it is not called."""

    value: Interval3
    disturbance: Disturbance | None = None

    @property
    def withheld(self) -> bool:
        return excludes_zero(self.value) and self.disturbance is not None and self.disturbance.vetoes

    @property
    def clear(self) -> bool:
        """Called: the interval excludes zero and the model does not withhold it."""
        return excludes_zero(self.value) and not self.withheld


def judge_pair(a_name: str, a: CellData, b_name: str, b: CellData, metric: str, *, scale: float | None = None,
               busy: Sequence[BusyBlock] = (), n_blocks: int = 0,
               delays: tuple[CellData, CellData] | None = None) -> JudgedPair | None:
    """``a`` against ``b`` on ``metric``: the difference of means times ``scale`` (None: the
    change in percent instead), judged as ``run``/``report`` judge a comparison (module doc).
    ``busy``: the experiment's busy blocks, ``n_blocks`` its measured blocks, ``delays`` each
    side's run-queue delays (``sched.run_delay_s``). None when there is nothing to estimate."""
    way = busy_way({a_name: a, b_name: b}, metric, busy,
                   {a_name: delays[0], b_name: delays[1]} if delays is not None else None)
    ca, cb = (clean(a), clean(b)) if way.quiet is None else (clean(way.quiet[a_name]), clean(way.quiet[b_name]))
    ratio = pair_ratio_pct(a_name, ca, b_name, cb, metric)
    value = ratio if scale is None else pair_difference(a_name, ca, b_name, cb, metric, scale)
    if value is None:
        return None
    if ratio is None or not math.isfinite(ratio[1]) or not math.isfinite(ratio[2]) or 1 + ratio[1] / 100 <= 0:
        return JudgedPair(value)  # no interval of the ratio: nothing to judge, nothing called either
    r, lo, hi = (1.0 + x / 100.0 for x in ratio)
    comparison = Comparison(cell=a_name, baseline=b_name, metric=metric, ratio=r, ci95=(lo, hi),
                            rel_diff_pct=ratio[0], p_value=None, p_adjusted=None, significant=excludes_zero(value),
                            n_cell=int(ca.values.size), n_baseline=int(cb.values.size),
                            paired=block_sums(ca, cb) is not None)
    found = judge_comparisons((comparison,), b_name, {a_name: a, b_name: b}, way, busy, n_blocks)
    return JudgedPair(value, found.get(a_name))


def judge_made(comparisons: Sequence[Comparison], baseline: str, values: Mapping[str, CellData],
               delays: Mapping[str, CellData], busy: Sequence[BusyBlock], n_blocks: int) -> dict[str, Disturbance]:
    """:func:`judge_comparisons` for comparisons a caller already made on every block (the JMH
    table's Holm family, the report's secondary metrics): with no delays measured, the busy
    blocks' margin decides (the quiet-blocks rule would need the comparisons made again)."""
    metric = comparisons[0].metric if comparisons else ""
    way = busy_way(values, metric, busy, delays)
    if way.quiet is not None:
        way = BusyWay(delays=way.delays)
    return judge_comparisons(comparisons, baseline, values, way, busy, n_blocks)


def judge_comparisons(comparisons: Sequence[Comparison], baseline: str, values: Mapping[str, CellData],
                      way: BusyWay, busy: Sequence[BusyBlock], n_blocks: int) -> dict[str, Disturbance]:
    """cell -> what disturbed its comparison with ``baseline`` (made by the caller's own
    statistics on ``way.quiet`` when the quiet blocks decide, else on ``values``), judged as
    :func:`jvmlab.results.compare_cells` judges: the drift of either side, and the busy
    blocks by ``way`` (:func:`jvmlab.results.compare.busy_way`)."""
    judged = {name: clean(v) for name, v in (way.quiet or values).items()}
    analysis = MetricAnalysis(metric=comparisons[0].metric if comparisons else "", baseline=baseline, alpha=0.05,
                              correction="holm", stats={}, comparisons=tuple(comparisons), effects=(), outliers={},
                              drift={name: drift(name, v) for name, v in judged.items()})
    return disturbances(analysis, busy, n_blocks, {name: clean(v) for name, v in values.items()},
                        method=way.method, quiet_blocks=way.quiet_blocks, delays=way.delays)
