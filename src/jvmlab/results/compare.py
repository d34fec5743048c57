"""The one entry point to the statistics: compare cells, get typed results back.

:func:`compare_cells` runs the pure statistics of :mod:`jvmlab.analyze` (per-cell
descriptions, comparisons with the baseline corrected together, factorial effects, drift,
outliers) and classifies every comparison into a :class:`VerdictKind`, with its coverage
mark and what disturbed it as values. Words are the report's job (:mod:`jvmlab.report.verdicts`);
this module decides, in numbers, what there is to say.

The other comparisons that do not fit "every cell against one baseline" live here too, so
no caller assembles bootstrap calls of its own: :func:`ci_only_comparisons` (a secondary
metric: the CI alone, no test), :func:`compare_across` (the same cells in two experiments)
and :func:`pair_ratio_pct` / :func:`pair_difference` (any two cells, for scenario verdicts).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.compare import block_sums, compare, paired_test, ratio_paired, ratio_unpaired
from jvmlab.analyze.correction import adjust
from jvmlab.analyze.difference import mean_difference
from jvmlab.analyze.model import CellData, Clean, Comparison, DriftResult, Interval, MetricAnalysis, clean
from jvmlab.analyze.pipeline import analyze_metric
from jvmlab.analyze.smallsample import T_SMALL_N
from jvmlab.results.records import BusyBlock

DRIFT_P = 0.01  # a cell "drifted" when its Spearman trend across blocks has p below this
BUSY_BLOCK_SHARE = 0.25  # busy in at least this share of the blocks: no difference is called
ALL_CELLS = "*"
SECONDARY_RESAMPLES = 1000

Statistics = Callable[..., MetricAnalysis]  # analyze_metric's signature; tests pass seeded fakes


class VerdictKind(StrEnum):
    """What a comparison says, before any wording."""

    BETTER = "better"  # significant after correction, in the metric's good direction
    WORSE = "worse"  # significant after correction, in the bad direction
    NO_CLEAR_DIFFERENCE = "no-clear-difference"  # not significant, and the CI contains 1
    INCONCLUSIVE = "inconclusive"  # CI excludes 1 but the (corrected) test is not significant
    DISTURBED = "disturbed"  # significant, but drift or a busy machine disturbed the run
    NOT_ENOUGH_DATA = "not-enough-data"  # no ratio or no interval


@dataclass(frozen=True)
class Disturbance:
    """Why a comparison is not called a difference: a drifting cell or a busy machine."""

    drift: DriftResult | None = None  # the drifting cell (this one or the baseline)
    busy_blocks: int = 0  # measured blocks with other processes busy (when no drift)
    n_blocks: int = 0
    worst_share_pct: int | None = None


@dataclass(frozen=True)
class ComparedCell:
    """One cell against the baseline: the numbers, the kind of verdict, the marks."""

    comparison: Comparison
    kind: VerdictKind
    small_sample: bool  # the interval is a small-sample t interval (coverage not bootstrap's)
    disturbance: Disturbance | None = None

    @property
    def cell(self) -> str:
        return self.comparison.cell


@dataclass(frozen=True)
class CellsComparison:
    """Everything :func:`compare_cells` found for one metric."""

    analysis: MetricAnalysis
    compared: tuple[ComparedCell, ...]
    pooled: tuple[Comparison, ...] = ()  # a run on 2+ nodes: nodes ignored (its verdicts are within node)

    def of(self, cell: str) -> ComparedCell | None:
        return next((c for c in self.compared if c.cell == cell), None)


def ci_excludes_one(ci: Interval | None) -> bool:
    """The one test of "the 95% CI excludes 1" (no difference), used by every caller."""
    return ci is not None and not (ci[0] <= 1.0 <= ci[1])


def verdict_kind(comparison: Comparison, lower_is_better: bool, disturbed: bool = False) -> VerdictKind:
    """The verdict of one comparison, decided on numbers alone."""
    if comparison.ratio is None or comparison.ci95 is None:
        return VerdictKind.NOT_ENOUGH_DATA
    if not comparison.significant:
        return VerdictKind.INCONCLUSIVE if ci_excludes_one(comparison.ci95) else VerdictKind.NO_CLEAR_DIFFERENCE
    if disturbed:
        return VerdictKind.DISTURBED
    return VerdictKind.BETTER if (comparison.ratio < 1.0) == lower_is_better else VerdictKind.WORSE


def disturbances(analysis: MetricAnalysis, busy: Sequence[BusyBlock], n_blocks: int) -> dict[str, Disturbance]:
    """cell -> what disturbed it (its own drift or the baseline's); ``ALL_CELLS`` when other
    processes were busy in at least a quarter of the measured blocks."""
    out: dict[str, Disturbance] = {}
    drifting = {name: d for name, d in analysis.drift.items()
                if d.p_value is not None and d.p_value < DRIFT_P and d.slope_rel_per_block is not None}
    base = drifting.get(analysis.baseline or "")
    for comp in analysis.comparisons:
        d = drifting.get(comp.cell) or base
        if d is not None:
            out[comp.cell] = Disturbance(drift=d)
    measured = {b.detail: b for b in busy if not b.warmup}  # one per block (rows can repeat)
    if n_blocks and len(measured) >= BUSY_BLOCK_SHARE * n_blocks:
        shares = [b.share_pct for b in measured.values() if b.share_pct is not None]
        out[ALL_CELLS] = Disturbance(busy_blocks=len(measured), n_blocks=n_blocks,
                                     worst_share_pct=max(shares) if shares else None)
    return out


def compare_cells(values: Mapping[str, CellData], baseline: str | None, metric: str, *,
                  lower_is_better: bool, factors: Mapping[str, Mapping[str, str]] | None = None,
                  seed: int = 0, busy: Sequence[BusyBlock] = (), n_blocks: int = 0,
                  statistics: Statistics = analyze_metric) -> CellsComparison:
    """Every cell against ``baseline`` on ``metric``: statistics, then one typed verdict each.

    ``statistics`` is :func:`jvmlab.analyze.analyze_metric` (seeded by ``seed``); tests pass
    a fake returning a fixed :class:`MetricAnalysis`."""
    analysis = statistics(values, baseline, metric, factors, seed=seed)
    disturbed = disturbances(analysis, busy, n_blocks)
    compared = tuple(ComparedCell(
        comparison=c, kind=verdict_kind(c, lower_is_better, (d := disturbed.get(c.cell) or
                                                            disturbed.get(ALL_CELLS)) is not None),
        small_sample=c.ci_kind == T_SMALL_N, disturbance=d) for c in analysis.comparisons)
    return CellsComparison(analysis, compared)


def ci_only_comparisons(values: Mapping[str, Clean], baseline: str | None, metric: str, seed: int,
                        n_boot: int = SECONDARY_RESAMPLES) -> tuple[Comparison, ...]:
    """Ratios and bootstrap CIs on a secondary metric, without a test: ``significant`` here
    is :func:`ci_excludes_one` (not corrected together with the compared metric) and
    ``p_value`` is None, so nothing downstream can mistake it for a tested call."""
    if baseline is None or baseline not in values:
        return ()
    base = values[baseline]
    out = []
    for name, data in values.items():
        if name == baseline:
            continue
        rng = rng_for(seed, metric, name, "report")
        sums = block_sums(data, base)
        if sums is not None:  # the inverted sign-flip test: it holds its level under heavy tails
            test = paired_test(sums, rng, n_boot)
            ratio, ci, kind = test.ratio, test.ci95, test.ci_kind
        else:
            ratio, ci = ratio_unpaired(data.values, base.values, rng, n_boot)
            kind = None
        out.append(Comparison(cell=name, baseline=baseline, metric=metric, ratio=ratio, ci95=ci,
                              rel_diff_pct=None if ratio is None else (ratio - 1.0) * 100.0, p_value=None,
                              p_adjusted=None, significant=ci_excludes_one(ci), n_cell=int(data.values.size),
                              n_baseline=int(base.values.size), paired=sums is not None, ci_kind=kind))
    return tuple(out)


def compare_family(pairs: Sequence[tuple[str, CellData, str, CellData, str]], seed: int,
                   what: str) -> tuple[Comparison, ...]:
    """Several comparisons (cell name, its values, baseline name, its values, metric) tested
    and then Holm-corrected together as one family; ``what`` keys the seeded resamples."""
    raw = [compare(cell, clean(values), base, clean(base_values), metric, rng_for(seed, metric, cell, what))
           for cell, values, base, base_values, metric in pairs]
    return adjust(raw)


def compare_across(pairs: Sequence[tuple[str, CellData, CellData]], metric: str, label_a: str,
                   seed: int) -> tuple[Comparison, ...]:
    """The same cell in two experiments (name, values in A, values in B): ratio B/A,
    unpaired (blocks of two runs were not measured side by side), Holm-corrected together."""
    return compare_family([(name, b, f"{name} in {label_a}", a, metric) for name, a, b in pairs], seed,
                          "compare-exp")


Interval3 = tuple[float, float, float]  # estimate, low, high (NaN bounds: no interval)


def _pair_rng(a: str, b: str, metric: str, what: str) -> np.random.Generator:
    """Seeded by the pair's names (seed 0), so a scenario verdict is the same on every read."""
    return rng_for(0, metric, a, b, what)


def pair_difference(a_name: str, a: Clean, b_name: str, b: Clean, metric: str,
                    scale: float = 1.0) -> Interval3 | None:
    """mean(a) - mean(b), times ``scale``, with its 95% bootstrap CI (paired by block when possible)."""
    d, ci = mean_difference(a, b, _pair_rng(a_name, b_name, metric, "diff"))
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
