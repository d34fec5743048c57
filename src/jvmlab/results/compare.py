"""The one entry point to the statistics: compare cells, get typed results back.

:func:`compare_cells` runs the pure statistics of :mod:`jvmlab.analyze` (per-cell
descriptions, comparisons with the baseline corrected together, factorial effects, drift,
outliers) and classifies every comparison into a :class:`VerdictKind`, with its coverage
mark and what disturbed it as values. Words are the report's job (:mod:`jvmlab.report.verdicts`);
this module decides, in numbers, what there is to say.

The other comparisons that do not fit "every cell against one baseline" live here too, so
no caller assembles bootstrap calls of its own: :func:`ci_only_comparisons` (a secondary
metric: the CI alone, no test), :func:`compare_across` (the same cells in two experiments)
and (in :mod:`jvmlab.results.pairs`) any two cells, for scenario verdicts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np

from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.compare import block_sums, compare, paired_test, ratio_unpaired
from jvmlab.analyze.correction import adjust
from jvmlab.analyze.interference import (
    BETWEEN_RUN_PRIOR,
    QUIET_BLOCKS_ENOUGH,
    DelayAdjusted,
    across_runs,
    block_loads,
    busy_margin,
    clears,
    contention_moves,
    delay_adjusted,
    drift_margin,
)
from jvmlab.analyze.model import CellData, Clean, Comparison, DriftResult, Interval, MetricAnalysis, clean
from jvmlab.analyze.pipeline import analyze_metric
from jvmlab.analyze.smallsample import T_SMALL_N
from jvmlab.results.records import BusyBlock

DRIFT_P = 0.01  # a cell "drifted" when its Spearman trend across blocks has p below this
ALL_CELLS = "*"
SECONDARY_RESAMPLES = 1000
QUIET_BLOCKS = "quiet-blocks"  # Disturbance.method: the busy blocks left out, the quiet ones analysed
MARGIN = "margin"  # Disturbance.method: called only when the CI clears what the interference could produce
RUN_DELAY_COVARIATE = "run-queue-delay"  # Disturbance.method: the ratio at equal run-queue delay decides
UNMOVED = "own-interval"  # Disturbance.method: a metric contention barely moves, judged by its own interval

Statistics = Callable[..., MetricAnalysis]  # analyze_metric's signature; tests pass seeded fakes


class VerdictKind(StrEnum):
    """What a comparison says, before any wording."""

    BETTER = "better"  # significant after correction, in the metric's good direction
    WORSE = "worse"  # significant after correction, in the bad direction
    NO_CLEAR_DIFFERENCE = "no-clear-difference"  # not significant, and the CI contains 1
    INCONCLUSIVE = "inconclusive"  # CI excludes 1 but the (corrected) test is not significant
    DISTURBED = "disturbed"  # significant, but within what drift or a busy machine could produce
    NOT_ENOUGH_DATA = "not-enough-data"  # no ratio or no interval


@dataclass(frozen=True)
class Disturbance:
    """What disturbed a comparison (a drifting cell, busy blocks) and what was done about it.

    ``margin`` is the largest ratio (>= 1, the same either way) the interference could have
    produced (:mod:`jvmlab.analyze.interference`); ``called`` says the comparison's 95% CI
    clears it, so the verdict stands. ``method`` (:mod:`jvmlab.analyze.interference`) is
    ``"own-interval"`` (a metric contention barely moves: CPU time, memory, counts),
    ``"run-queue-delay"`` (the ratio at equal delay, ``adjusted``, decides), ``"quiet-blocks"``
    (no delay measured: the busy blocks left out and ``quiet_blocks`` quiet ones analysed alone)
    or ``"margin"`` (no delay measured, too few quiet blocks: the worst case)."""

    drift: DriftResult | None = None  # the drifting cell (this one or the baseline)
    busy_blocks: int = 0  # measured blocks with other processes busy
    n_blocks: int = 0
    worst_share_pct: int | None = None
    margin: float = 1.0
    called: bool = False
    method: str = MARGIN
    quiet_blocks: int = 0
    delay_s: float | None = None  # mean run-queue delay per invocation (cell and baseline), when measured
    adjusted: DelayAdjusted | None = None  # the ratio at equal run-queue delay (method run-queue-delay)

    @property
    def vetoes(self) -> bool:
        """The comparison is withheld: its interval does not clear the margin."""
        return not self.called


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
    # CPU time's comparisons, when a contended metric was left undecided on a busy machine (its verdict
    # is said beside: the one model, jvmlab.analyze.interference)
    beside: CellsComparison | None = None

    def of(self, cell: str) -> ComparedCell | None:
        return next((c for c in self.compared if c.cell == cell), None)


def ci_excludes_one(ci: Interval | None) -> bool:
    """The one test of "the 95% CI excludes 1" (no difference), used by every caller."""
    return ci is not None and not (ci[0] <= 1.0 <= ci[1])


def verdict_kind(comparison: Comparison, lower_is_better: bool, disturbed: bool = False) -> VerdictKind:
    """The verdict of one comparison, decided on numbers alone (``disturbed``: a disturbance
    that the comparison's interval does not clear)."""
    if comparison.ratio is None or comparison.ci95 is None:
        return VerdictKind.NOT_ENOUGH_DATA
    if comparison.machine_changed_s is not None:  # the two runs' contention differed: no call either way
        return VerdictKind.INCONCLUSIVE
    if not comparison.significant:
        return VerdictKind.INCONCLUSIVE if ci_excludes_one(comparison.ci95) else VerdictKind.NO_CLEAR_DIFFERENCE
    if disturbed:
        return VerdictKind.DISTURBED
    return VerdictKind.BETTER if (comparison.ratio < 1.0) == lower_is_better else VerdictKind.WORSE


def _measured_busy(busy: Sequence[BusyBlock]) -> dict[str, BusyBlock]:
    return {b.detail: b for b in busy if not b.warmup}  # one per block (rows can repeat)


def disturbances(analysis: MetricAnalysis, busy: Sequence[BusyBlock], n_blocks: int,
                 values: Mapping[str, Clean] | None = None, *, method: str = MARGIN,
                 quiet_blocks: int = 0, delays: Mapping[str, Clean] | None = None) -> dict[str, Disturbance]:
    """cell -> what disturbed its comparison and whether the comparison stands
    (:mod:`jvmlab.analyze.interference`, the one model): the drift margin of the cell or the
    baseline (Spearman p < ``DRIFT_P``) always; for busy blocks, nothing on a metric contention
    barely moves (``method="own-interval"``), the ratio at equal run-queue delay when
    ``delays`` (each cell's ``sched.run_delay_s``) were measured, else the busy blocks' margin
    (each block's factor from its share of the CPU and, with ``values``, its own spread).
    ``method="quiet-blocks"``: the comparisons are on the quiet blocks alone, so the busy
    blocks add no margin (they are reported, not counted)."""
    drifting = {name: d for name, d in analysis.drift.items()
                if d.p_value is not None and d.p_value < DRIFT_P and d.slope_rel_per_block is not None}
    measured = _measured_busy(busy)
    shares = [b.share_pct for b in measured.values() if b.share_pct is not None]
    worst = max(shares) if shares else None
    moved = contention_moves(analysis.metric)
    if measured and not moved:
        method = UNMOVED
    elif measured and delays and method == MARGIN:
        method = RUN_DELAY_COVARIATE
    loads = block_loads(((b.block if b.block is not None else -1 - i,
                          None if b.share_pct is None else b.share_pct / 100.0,
                          None if b.steal_pct is None else b.steal_pct / 100.0)
                         for i, b in enumerate(measured.values())), values or {})
    busy_m = busy_margin(loads, n_blocks) if method == MARGIN else 1.0
    out: dict[str, Disturbance] = {}
    for comp in analysis.comparisons:
        candidates = [d for d in (drifting.get(comp.cell), drifting.get(analysis.baseline or "")) if d is not None]
        d = max(candidates, key=lambda x: abs(x.slope_rel_per_block or 0.0)) if candidates else None
        if d is None and not measured:
            continue
        own, base = analysis.drift.get(comp.cell), analysis.drift.get(analysis.baseline or "")
        drift_m = 1.0 if d is None else drift_margin(own.slope_rel_per_block if own else None,
                                                     base.slope_rel_per_block if base else None, d.n_blocks)
        margin = busy_m * drift_m
        called = margin <= 1.0 or clears(comp.ci95, margin)
        adjusted, delay = None, None
        if method == RUN_DELAY_COVARIATE and delays is not None:
            adjusted, delay = _adjusted(comp.cell, analysis.baseline, values or {}, delays)
            called = called and (adjusted is None or adjusted.confirms(comp.ci95))
        out[comp.cell] = Disturbance(drift=d, busy_blocks=len(measured), n_blocks=n_blocks, worst_share_pct=worst,
                                     margin=margin, called=called, method=method, quiet_blocks=quiet_blocks,
                                     delay_s=delay, adjusted=adjusted)
    return out


def _adjusted(cell: str, baseline: str | None, values: Mapping[str, Clean],
              delays: Mapping[str, Clean]) -> tuple[DelayAdjusted | None, float | None]:
    """The comparison at equal run-queue delay, and the mean delay per invocation of both cells."""
    if baseline is None or not all(k in values and k in delays for k in (cell, baseline)):
        return None, None
    pooled = np.concatenate([delays[cell].values, delays[baseline].values])
    delay = float(pooled.mean()) if pooled.size else None
    return delay_adjusted(values[cell], values[baseline], delays[cell], delays[baseline]), delay


def _quiet_values(values: Mapping[str, CellData], busy: Sequence[BusyBlock]) -> tuple[dict[str, CellData], int]:
    """The values of the blocks no busy row names, and how many such blocks hold values; ({}, 0)
    when a busy row does not say its block (nothing can be left out safely)."""
    measured = _measured_busy(busy).values()
    if any(b.block is None for b in measured):
        return {}, 0
    busy_ids = np.array(sorted({b.block for b in measured if b.block is not None}), dtype=np.int64)
    out: dict[str, CellData] = {}
    blocks: set[int] = set()
    for name, data in values.items():
        if data.blocks is None:
            return {}, 0
        keep = ~np.isin(data.blocks, busy_ids)
        out[name] = CellData(data.values[keep], data.blocks[keep])
        blocks |= set(int(b) for b in data.blocks[keep][np.isfinite(data.values[keep])])
    return out, len(blocks)


@dataclass(frozen=True)
class BusyWay:
    """How a busy machine is dealt with on one metric (the one model, before any statistics):
    ``method`` for :func:`disturbances`; ``quiet`` the quiet blocks' values to compare instead
    (method ``quiet-blocks``, ``quiet_blocks`` of them), else None; ``delays`` each cell's
    run-queue delays when measured (method ``run-queue-delay``), else None."""

    method: str = MARGIN
    quiet: dict[str, CellData] | None = None
    quiet_blocks: int = 0
    delays: dict[str, Clean] | None = None


def busy_way(values: Mapping[str, CellData], metric: str, busy: Sequence[BusyBlock],
             delays: Mapping[str, CellData] | None) -> BusyWay:
    """The one rule of every within-run verdict (:func:`compare_cells`, the scenarios' pairs in
    :mod:`jvmlab.results.pairs`): a contended metric on a busy machine without measured delays is
    compared on the quiet blocks alone when at least ``QUIET_BLOCKS_ENOUGH`` were quiet; measured
    delays are handed on to :func:`disturbances` as the covariate."""
    have_delays = bool(delays) and all(np.isfinite(d.values).any() for d in (delays or {}).values())
    delay_values = {name: clean(d) for name, d in (delays or {}).items()} if have_delays else None
    if _measured_busy(busy) and contention_moves(metric) and not have_delays:
        quiet, quiet_n = _quiet_values(values, busy)
        if quiet_n >= QUIET_BLOCKS_ENOUGH:
            return BusyWay(QUIET_BLOCKS, quiet, quiet_n, delay_values)
    return BusyWay(delays=delay_values)


def compare_cells(values: Mapping[str, CellData], baseline: str | None, metric: str, *,
                  lower_is_better: bool, factors: Mapping[str, Mapping[str, str]] | None = None,
                  seed: int = 0, busy: Sequence[BusyBlock] = (), n_blocks: int = 0,
                  statistics: Statistics = analyze_metric, positive: bool | None = None,
                  delays: Mapping[str, CellData] | None = None) -> CellsComparison:
    """Every cell against ``baseline`` on ``metric``: statistics, then one typed verdict each.

    ``statistics`` is :func:`jvmlab.analyze.analyze_metric` (seeded by ``seed``); tests pass
    a fake returning a fixed :class:`MetricAnalysis`. ``positive``: the metric is never
    negative (None: the built-in registry's word).

    A busy machine or a drift does not veto a verdict by itself (the one model:
    :mod:`jvmlab.analyze.interference`): a metric contention barely moves (CPU time, memory,
    counts) is judged by its own interval; a contended one by its ratio at equal run-queue
    delay when ``delays`` (each cell's ``sched.run_delay_s``, parallel to ``values``) were
    measured; without them, on the quiet blocks alone when at least ``QUIET_BLOCKS_ENOUGH``
    were quiet (the cells' descriptions keep every block), else only when its interval clears
    what the interference could have produced (:func:`disturbances`). The
    :class:`Disturbance` says which was done."""
    analysis = statistics(values, baseline, metric, factors, seed=seed, positive=positive)
    judged = analysis
    way = busy_way(values, metric, busy, delays)
    if way.quiet is not None:
        calm = statistics(way.quiet, baseline, metric, None, seed=seed, positive=positive)
        note = (f"{metric}: comparisons on the {way.quiet_blocks} quiet blocks alone (other processes were busy "
                f"during {len(_measured_busy(busy))})")
        analysis = replace(analysis, comparisons=calm.comparisons, notes=(*analysis.notes, note))
        judged = replace(analysis, drift=calm.drift)
    cleaned = {name: clean(d) for name, d in values.items()}
    disturbed = disturbances(judged, busy, n_blocks, cleaned, method=way.method, quiet_blocks=way.quiet_blocks,
                             delays=way.delays)
    compared = []
    for c in analysis.comparisons:
        d = disturbed.get(c.cell)
        compared.append(ComparedCell(comparison=c, kind=verdict_kind(c, lower_is_better, d is not None and d.vetoes),
                                     small_sample=c.ci_kind == T_SMALL_N, disturbance=d))
    return CellsComparison(analysis, tuple(compared))


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


@dataclass(frozen=True)
class RunContention:
    """One cell's contention in two runs: mean run-queue delay per invocation in A and in B
    (None: not measured), and its mean wall time (the run's length the delays are set against)."""

    delay_a_s: float | None
    delay_b_s: float | None
    wall_s: float | None


def compare_across(pairs: Sequence[tuple[str, CellData, CellData]], metric: str, label_a: str,
                   seed: int, contention: Mapping[str, RunContention] | None = None,
                   between_run_sd: float = BETWEEN_RUN_PRIOR) -> tuple[Comparison, ...]:
    """The same cell in two experiments (name, values in A, values in B): ratio B/A,
    unpaired (blocks of two runs were not measured side by side), judged across runs by the
    one model (:func:`jvmlab.analyze.interference.across_runs`: the between-run spread
    ``between_run_sd``, a log sd per run, and each run's stored contention), then
    Holm-corrected together. ``Comparison.between_run_sd`` marks a comparison the spread left
    uncalled (significant after the correction without it, not with it)."""
    raw = [compare(name, clean(b), f"{name} in {label_a}", clean(a), metric, rng_for(seed, metric, name, "compare-exp"))
           for name, a, b in pairs]
    judged = []
    for comp, (name, _, _) in zip(raw, pairs, strict=True):
        c = (contention or {}).get(name)
        judged.append(across_runs(comp, c.delay_a_s, c.delay_b_s, c.wall_s, between_run_sd) if c
                      else across_runs(comp, sd_log=between_run_sd))
    plain = adjust(raw)
    # after the correction, a comparison whose sides ran under different contention stays uncalled
    kept = [replace(c, significant=False) if c.machine_changed_s is not None else c for c in adjust(judged)]
    return tuple(replace(c, between_run_sd=between_run_sd if p.significant and not c.significant
                         and c.machine_changed_s is None else None)
                 for c, p in zip(kept, plain, strict=True))
