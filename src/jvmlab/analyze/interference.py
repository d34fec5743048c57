"""The one interference model: what a busy machine can move, by how much, and what a verdict does
about it, within a run and across runs. Every verdict asks here (run/report and ``run
--baseline-experiment`` through :func:`jvmlab.results.compare_cells`, ``compare`` and its gate,
``history`` and its gate, the tuner's races and confirmation, ``gc advise``, the scenarios).

Why: a worst-case margin used to withhold every verdict on a busy machine ("peak RSS 9.4x ...
which could move the ratio by up to ±539%") although the paired, randomized intervals were
right (24 of 24 covered the effect built in; the A/A pairs were calibrated without any margin).
Contention does not move every metric, and where it does its effect is measured, not bounded:

* **what it moves** (:func:`contention_moves`): times that include waiting for a CPU (wall,
  ready, latencies, pauses, throughput). CPU time, memory, and GC/allocation counts barely move
  (a thread waiting in the run queue uses no CPU and allocates nothing): within a run they are
  judged by their own intervals, with no margin for busy blocks (across runs, CPU time gets
  ``CPU_CONTENTION``: :func:`machine_explains`);
* **within a run, from data** (:func:`delay_adjusted`): each invocation's run-queue delay (the
  kernel's schedstat, summed over the process's threads: ``sched.run_delay_s``) is a covariate
  of the paired comparison. Per block, the log ratio cell/baseline is regressed on the
  difference of their delays; the intercept is the ratio at equal delay, with its 95% t
  interval (n_blocks - 2 degrees of freedom). A significant comparison stands when that
  interval excludes 1 on the same side; otherwise the contention could explain it and the
  verdict says so with the measured delay. The randomized order within blocks already makes a
  contention that hits both cells alike cancel; the covariate catches what hit one side more;
* **within a run, without a delay** (no /proc sampler, no schedstat): the quiet blocks alone
  when ``QUIET_BLOCKS_ENOUGH`` were quiet, else the old worst-case margin (:func:`busy_margin`),
  worded as a factor ("could inflate wall time up to 10x", never "±900%": :func:`factor`);
* **drift** (:func:`drift_margin`): a trend of the ratio across blocks, a margin as before;
* **across runs** (compare gate, baseline gate, history): two runs differ by more than their
  invocations say. The between-run spread enters the interval (:func:`between_runs`: from the
  series when there is one, else the stated prior ``BETWEEN_RUN_PRIOR``), and a contended
  metric whose two sides ran under different contention (:func:`machine_changed`: their mean
  run-queue delays differ by more than half the apparent change, and by more than
  ``DELAY_FLOOR`` of the run) is not called at all: "inconclusive: the machine changed".

Pure: numbers in, numbers out. Tests: ``tests/analyze/test_interference_model.py`` (seeded
simulations), ``tests/results/test_interference_simulation.py``; bench: ``bench/busy_truth.py``
(figures in docs/statistics.md "Busy machines").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import special

from jvmlab.analyze.model import Clean, Comparison, Interval
from jvmlab.errors import UserError

MAX_SHARE = 0.9  # a recorded share above this is taken as 90%: a factor of at most 10x per block
QUIET_BLOCKS_ENOUGH = 8  # the paired comparison's own minimum of blocks (compare.MIN_PAIRED_BLOCKS)


@dataclass(frozen=True)
class BlockLoad:
    """What disturbed one measured block: other processes' share of the CPU (0-1), steal
    (0-1, None when not recorded) and the block's own spread (a factor >= 1)."""

    block: int
    other_share: float | None
    steal_share: float | None = None
    spread_factor: float = 1.0

    @property
    def factor(self) -> float:
        """The most this block could have slowed one invocation (>= 1)."""
        taken = (self.other_share or 0.0) + (self.steal_share or 0.0)
        return max(1.0 / (1.0 - min(max(taken, 0.0), MAX_SHARE)), self.spread_factor, 1.0)


def block_spread(values: Mapping[str, Clean], block: int) -> float:
    """The block's own spread as a factor: the largest ``exp|log(mean in block / median of
    the cell's block means)|`` over cells with values there and in 2+ blocks (1 when none)."""
    worst = 0.0
    for data in values.values():
        means = _block_means(data)
        if len(means) < 2 or block not in means:
            continue
        centre, here = float(np.median(list(means.values()))), means[block]
        if centre > 0 and here > 0:
            worst = max(worst, abs(math.log(here / centre)))
    return math.exp(worst)


def block_loads(busy: Iterable[tuple[int, float | None, float | None]],
                values: Mapping[str, Clean]) -> tuple[BlockLoad, ...]:
    """One :class:`BlockLoad` per busy block ``(block id, other processes' share 0-1 or None,
    steal share 0-1 or None)``, each with its own spread read from ``values``; a block named
    twice keeps the larger of each share."""
    shares: dict[int, tuple[float | None, float | None]] = {}
    for block, share, steal in busy:
        old = shares.get(block)
        shares[block] = (share, steal) if old is None else (_larger(old[0], share), _larger(old[1], steal))
    return tuple(BlockLoad(b, s, t, block_spread(values, b)) for b, (s, t) in sorted(shares.items()))


def _larger(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


def busy_margin(loads: Sequence[BlockLoad], n_blocks: int) -> float:
    """The most the busy blocks could have moved a ratio of means over ``n_blocks`` blocks:
    ``1 + sum(factor - 1) / n_blocks`` (1 when nothing was busy)."""
    if not loads or n_blocks <= 0:
        return 1.0
    return 1.0 + sum(load.factor - 1.0 for load in loads) / max(n_blocks, len(loads))


def drift_margin(slope_cell: float | None, slope_baseline: float | None, n_blocks: int) -> float:
    """The most drifts of the cell and the baseline (fractions of their level per block; None:
    not measured, taken as 0) could have moved the ratio of their means over ``n_blocks``
    blocks: ``1 + max(|s_c|, |s_b|) + |s_c - s_b| x (n_blocks - 1) / 2``."""
    sc = slope_cell if slope_cell is not None and math.isfinite(slope_cell) else 0.0
    sb = slope_baseline if slope_baseline is not None and math.isfinite(slope_baseline) else 0.0
    return 1.0 + max(abs(sc), abs(sb)) + abs(sc - sb) * max(n_blocks - 1, 0) / 2.0


def clears(ci: Interval | None, margin: float) -> bool:
    """The interval lies wholly beyond ``margin`` on one side (above it, or below 1/margin)."""
    return ci is not None and (ci[0] > margin or ci[1] < 1.0 / margin)


# -- what contention moves -------------------------------------------------------------------

# Barely moved by other processes: CPU time (a waiting thread uses none), memory, and counts of
# what the program did (collections, allocations, faults). Everything else that is a time or a
# rate (wall, ready, latency, pauses, throughput) or unknown is taken as moved.
_UNMOVED = frozenset({"user_s", "sys_s", "cpu_s", "max_rss_bytes", "minor_faults", "major_faults",
                      "gc.pause_count", "gc.young_count", "gc.mixed_count", "gc.full_count",
                      "gc.concurrent_cycles", "jfr.alloc_total_bytes", "jfr.gc_count", "progress.total_units",
                      "cgroup.peak_bytes", "cgroup.oom_kills"})
_UNMOVED_PREFIXES = ("mem.", "cpu.", "jvm.", "minheap.", "gc.heap_", "sched.")
CPU_METRIC = "cpu_s"  # the metric said beside a disturbed time (``--metric cpu_s``)


def contention_moves(metric: str) -> bool:
    """Whether other processes' load moves ``metric`` (see the module doc)."""
    return metric not in _UNMOVED and not metric.startswith(_UNMOVED_PREFIXES)


def factor(margin: float) -> float:
    """A margin (a ratio either way, >= 1) as the factor it is; words: "up to 10x", never "±900%"."""
    return max(margin, 1.0 / margin) if margin > 0 else math.inf


# -- within a run: the run-queue delay as a covariate ----------------------------------------

MIN_ADJUST_BLOCKS = 4  # an intercept and a slope need 2 degrees of freedom left


@dataclass(frozen=True)
class DelayAdjusted:
    """A paired ratio at equal run-queue delay: ``ratio`` and its 95% CI from the regression of
    the per-block log ratio on the per-block delay difference; ``delay_s`` the mean delay per
    invocation (cell and baseline together), ``slope`` the log ratio per second of delay."""

    ratio: float
    ci95: Interval
    delay_s: float
    slope: float
    n_blocks: int

    def confirms(self, raw: Interval | None) -> bool:
        """The adjusted interval excludes 1 on the same side as ``raw`` (the unadjusted CI)."""
        if raw is None:
            return False
        lo, hi = self.ci95
        return (raw[0] > 1.0 and lo > 1.0) or (raw[1] < 1.0 and hi < 1.0)


def _block_means(data: Clean) -> dict[int, float]:
    if data.blocks is None:
        return {}
    out: dict[int, float] = {}
    for b in np.unique(data.blocks):
        here = data.values[data.blocks == b]
        if here.size:
            out[int(b)] = float(here.mean())
    return out


def delay_adjusted(cell: Clean, base: Clean, delay_cell: Clean, delay_base: Clean) -> DelayAdjusted | None:
    """The comparison cell/baseline at equal run-queue delay (module doc); None when it cannot
    be made: fewer than ``MIN_ADJUST_BLOCKS`` blocks with all four means, a non-positive mean,
    or delay differences that do not vary (nothing to regress on: no adjustment needed)."""
    mc, mb, dc, db = (_block_means(d) for d in (cell, base, delay_cell, delay_base))
    blocks = sorted(set(mc) & set(mb) & set(dc) & set(db))
    blocks = [b for b in blocks if mc[b] > 0 and mb[b] > 0]
    n = len(blocks)
    if n < MIN_ADJUST_BLOCKS:
        return None
    y = np.array([math.log(mc[b] / mb[b]) for b in blocks])
    x = np.array([dc[b] - db[b] for b in blocks])
    xm = float(x.mean())
    sxx = float(((x - xm) ** 2).sum())
    if sxx <= 0 or not math.isfinite(sxx):
        return None
    slope = float(((x - xm) * (y - y.mean())).sum() / sxx)
    intercept = float(y.mean() - slope * xm)
    resid = y - intercept - slope * x
    s2 = float((resid ** 2).sum() / (n - 2))
    se = math.sqrt(s2 * (1.0 / n + xm * xm / sxx))
    half = float(special.stdtrit(n - 2, 0.975)) * se
    delay = float(np.mean([*(dc[b] for b in blocks), *(db[b] for b in blocks)]))
    return DelayAdjusted(math.exp(intercept), (math.exp(intercept - half), math.exp(intercept + half)),
                         delay, slope, n)


def paired_blocks_adjusted(pairs: Sequence[tuple[float, float, float, float]]) -> DelayAdjusted | None:
    """:func:`delay_adjusted` for callers that hold one invocation of each side per block
    (the tuner's races and confirmation): ``(value_a, value_b, delay_a, delay_b)`` per block."""
    if not pairs:
        return None
    blocks = np.arange(len(pairs), dtype=np.int64)  # one block per pair, also each value's position
    cleaned = [Clean(col, blocks, blocks, 0) for col in np.array(pairs, dtype=float).T]
    return delay_adjusted(*cleaned)


# -- across runs ------------------------------------------------------------------------------

# The spread of a run's level from run to run (log scale sd) when nothing measured it: two runs
# of an unchanged spec on one machine, a day apart, differ by about this much beyond their own
# intervals (bench/busy_truth.py's unchanged pairs; docs/statistics.md).
BETWEEN_RUN_PRIOR = 0.02
MAX_BETWEEN_RUN_SD = 1.0  # a stated spread of 100% per run or more is no measurement's
BETWEEN_RUN_SD_OPTION = "--between-run-sd"


def parse_between_run_sd(text: str, where: str = BETWEEN_RUN_SD_OPTION) -> float:
    """The between-run spread a user states ("3%" or the fraction "0.03"; "0" for none): the log
    sd of a run's level from run to run. Bad input: one line (UserError, exit 2)."""
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100.0 if raw.endswith("%") else float(raw)
    except ValueError:
        raise UserError(f"{where} {text!r}: give the spread of a run's level from run to run as a percentage, "
                        "e.g. 3% (or a fraction, 0.03)") from None
    if not raw.endswith("%") and math.isfinite(value) and value >= 0.5:
        raise UserError(f"{where} {text!r}: a fraction of {value:g} is {value:.0%} per run; write {raw}% if "
                        f"that is meant as a percentage")
    if not math.isfinite(value) or value < 0 or value >= MAX_BETWEEN_RUN_SD:
        raise UserError(f"{where} {text!r}: the spread must be at least 0% and below 100% per run (e.g. 3%)")
    return value


DELAY_FLOOR = 0.02  # a run-queue delay change below this share of the run is no machine change
DELAY_RELATIVE = 0.25  # ... nor one below this share of the larger delay (steady load varies too)


def between_runs(ratio: float, ci95: Interval, sd_log: float = BETWEEN_RUN_PRIOR) -> Interval:
    """A ratio of two runs' means with the between-run spread added: the interval's half-width
    on the log scale grows to ``sqrt(h^2 + (1.96 sqrt(2) sd)^2)`` (each run's level is off by
    ``sd`` on its own)."""
    if ratio <= 0 or min(ci95) <= 0:
        return ci95
    log_r = math.log(ratio)
    extra = (1.959964 * math.sqrt(2.0) * sd_log) ** 2
    lo = math.sqrt((log_r - math.log(ci95[0])) ** 2 + extra)
    hi = math.sqrt((math.log(ci95[1]) - log_r) ** 2 + extra)
    return ratio * math.exp(-lo), ratio * math.exp(hi)


def machine_changed(delay_before_s: float | None, delay_after_s: float | None, wall_s: float | None,
                    ratio: float | None) -> bool:
    """The two sides of a comparison across runs ran under different contention: their mean
    run-queue delays per invocation differ by more than ``DELAY_FLOOR`` of the run (``wall_s``),
    by more than ``DELAY_RELATIVE`` of the larger delay, and by more than half the apparent
    change ``|ratio - 1|`` (so contention could explain it, or hide it). False when either delay
    or the wall time is unknown (said elsewhere)."""
    if delay_before_s is None or delay_after_s is None or not wall_s or wall_s <= 0:
        return False
    moved = abs(delay_after_s - delay_before_s)
    share = moved / wall_s
    change = abs(ratio - 1.0) if ratio is not None else 0.0
    return share > DELAY_FLOOR and moved > DELAY_RELATIVE * max(delay_before_s, delay_after_s) and share > change / 2


# CPU time barely moves, but not nothing: other processes share the cores' caches (and SMT
# siblings) with the program, so its CPU time rises a little when the machine is busy.
# bench/busy_truth.py measured the A/A cell's CPU time at 1x and 2x the cores busy against none
# (docs/statistics.md "Busy machines"): about +1%. Within a run the randomized blocks cancel it;
# across runs whose contention differs, a CPU-time change within this share is what the machine
# could have done (a history series called "v6" on CPU time where only the load stopped).
CPU_CONTENTION = 0.03
CPU_TIMES = frozenset({"user_s", "sys_s", "cpu_s"})


def moved_across_runs(metric: str) -> bool:
    """Whether a change of contention between two runs can move ``metric``: the contended
    metrics, and CPU time by at most ``CPU_CONTENTION``."""
    return contention_moves(metric) or metric in CPU_TIMES


def machine_explains(metric: str, delay_before_s: float | None, delay_after_s: float | None,
                     wall_s: float | None, ratio: float | None) -> float | None:
    """The factor by which a change of contention between two runs could have moved ``metric``
    when it could explain the apparent change ``ratio`` (:func:`machine_changed`; for CPU time:
    the delays changed and the change is within ``CPU_CONTENTION``), else None."""
    if contention_moves(metric):
        if machine_changed(delay_before_s, delay_after_s, wall_s, ratio):
            assert delay_before_s is not None and delay_after_s is not None and wall_s is not None
            return machine_change_margin(delay_before_s, delay_after_s, wall_s)
        return None
    if (metric in CPU_TIMES and ratio is not None and ratio > 0 and factor(ratio) <= 1.0 + CPU_CONTENTION
            and machine_changed(delay_before_s, delay_after_s, wall_s, None)):
        return 1.0 + CPU_CONTENTION
    return None


def machine_change_margin(delay_before_s: float, delay_after_s: float, wall_s: float) -> float:
    """The most a change of run-queue delay could move a run either way, as a factor: every
    second of it on the wall, ``1 + |delay change| / wall``."""
    return 1.0 + abs(delay_after_s - delay_before_s) / wall_s if wall_s > 0 else math.inf


def across_runs(comparison: Comparison, delay_before_s: float | None = None, delay_after_s: float | None = None,
                wall_s: float | None = None, sd_log: float = BETWEEN_RUN_PRIOR) -> Comparison:
    """A comparison of two runs (ratio after / before) judged as the one model says: the
    between-run spread widens its interval (:func:`between_runs`; significant only if the wider
    interval still excludes 1), and on a contended metric whose two sides ran under different
    contention (:func:`machine_changed`) it is not significant, carries both delays
    (``machine_changed_s``: "inconclusive: the machine changed", never a call) and its
    interval widens by the factor the delay change could explain, ``1 + |delay change| / wall``
    (so a gate can still pass a threshold no such change could reach, and never fails). CPU
    time is treated the same way when its change is within ``CPU_CONTENTION`` and the delays
    differ (:func:`machine_explains`), its interval widened by ``1 + CPU_CONTENTION``."""
    if comparison.ratio is None or comparison.ci95 is None or comparison.ratio <= 0 or min(comparison.ci95) <= 0:
        return comparison
    ci = between_runs(comparison.ratio, comparison.ci95, sd_log)
    # the p-value that goes with the wider interval (normal on the log scale), never below the test's own
    se = (math.log(ci[1]) - math.log(ci[0])) / (2 * 1.959964)
    p_between = float(2.0 * special.ndtr(-abs(math.log(comparison.ratio)) / se)) if se > 0 else 1.0
    p = None if comparison.p_value is None else max(comparison.p_value, p_between)
    significant = comparison.significant and not (ci[0] <= 1.0 <= ci[1])
    widened = sd_log if comparison.significant and not significant else None
    changed = None
    margin = machine_explains(comparison.metric, delay_before_s, delay_after_s, wall_s, comparison.ratio)
    if margin is not None:
        assert delay_before_s is not None and delay_after_s is not None
        changed, significant, p, widened = (delay_before_s, delay_after_s), False, 1.0, None
        ci = (ci[0] / margin, ci[1] * margin)
    return replace(comparison, ci95=ci, p_value=p, significant=significant, machine_changed_s=changed,
                   between_run_sd=widened)
