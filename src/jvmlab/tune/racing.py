"""A candidate races the incumbent in paired blocks (SMAC-style intensification).

Each block runs both, in random order. After ``min_blocks`` the paired t interval of the
per-block log ratios decides: entirely worse -> dropped (like Optuna's WilcoxonPruner, a
paired test prunes); entirely better at the stricter ``PROMOTE_CONF`` -> promoted (the
test is repeated after every block, so each look must be stricter); a point estimate that
is not better -> stopped without spending more. A candidate that looks better keeps racing up to
``max_blocks``; stopped there or by the budget, it is ``undecided (blocks)`` / ``undecided (budget)``
with its interval, never ``not-better``. A race measured while the machine drifted (tune/drift.py) is never
promoted (``drift``), nor one won on a contended metric that the run-queue delay explains (``disturbed``:
other processes made the incumbent's invocations wait more, the one model of analyze.interference).
A failed launch makes the trial infeasible; guardrails are checked on the
candidate's means against the baseline's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from jvmlab.analyze.interference import contention_moves, paired_blocks_adjusted
from jvmlab.metrics import RUN_DELAY
from jvmlab.tune.drift import MIN_BLOCKS, block_drift
from jvmlab.tune.model import Config, Metrics
from jvmlab.tune.stats import LOG_FLOOR, log_value, t_interval
from jvmlab.tune.tuning import Tuning

# The interval a promotion needs. The race looks after every block from min_blocks on (up to
# max_blocks - min_blocks + 1 looks), so a 95% interval at each look promotes a candidate no
# better than the incumbent in about 8% of races (tests/tune/test_racing_errors.py); late in
# a search most candidates are near-equal, and the incumbent then wanders among them (in the
# bench a 9.002 s incumbent was replaced by a 9.201 s one). At 99% about 2% are; dropping a
# worse candidate keeps the 95% interval (a wrong drop costs nothing but one candidate).
PROMOTE_CONF = 0.99
# A candidate that still looked better when the race had to stop: the budget ran out, or it
# used every block ``max_blocks`` allows. Not decided either way; its interval says how far it got.
UNDECIDED_BUDGET = "undecided (budget)"
UNDECIDED_BLOCKS = "undecided (blocks)"
# Looked better, never promoted: the machine drifted during the race (tune/drift.py), or the win is
# within what the run-queue delay explains (other processes' load hit one side more).
DRIFT = "drift"
DISTURBED = "disturbed"
NOT_PROMOTED = (DRIFT, DISTURBED)
# A candidate whose promotion interval lies entirely below this ratio (more than twice as fast)
# is promoted without racing on to drift.MIN_BLOCKS for the drift check: no drift that check
# is built to catch (a 40% step of the machine, tests/tune/test_drift.py) turns a twofold
# advantage around, and on a small budget the extra blocks were a third of the search (the
# real bench's hold under -Xmx48m: 12 invocations a promotion out of 36).
DECISIVE_RATIO = 0.5


@dataclass
class Incumbent:
    config: Config
    samples: dict[str, list[float]] = field(default_factory=dict)

    def add(self, m: Metrics) -> None:
        for k, v in m.items():
            self.samples.setdefault(k, []).append(v)

    def estimate(self, metric: str) -> float:
        """Geometric mean: the scale paired log ratios live on."""
        vals = self.samples.get(metric) or [math.nan]
        return float(math.exp(np.mean(np.log(np.maximum(vals, LOG_FLOOR)))))


@dataclass
class RaceResult:
    state: str
    blocks: int
    ratio: float | None
    ci: tuple[float, float] | None
    means: dict[str, float]
    reason: str | None = None
    samples: dict[str, list[float]] = field(default_factory=dict)


def race(session: Tuning, cand: Config, inc: Incumbent, baseline: Incumbent,
         block_cap: int | None = None) -> RaceResult:
    """Race ``cand`` against ``inc``; incumbent samples taken here are added to ``inc``.

    A candidate the t interval would promote keeps racing to ``drift.MIN_BLOCKS`` blocks (when
    the block and invocation budgets allow) so the drift check can look at its blocks; a race
    measured during drift is marked ``drift`` (one won by less waiting in the run queue,
    ``disturbed``) and never promoted. ``block_cap``: the blocks the
    budget gives this race (the engine's share of what is left, engine.race_share); stopped there
    while ahead, the candidate is ``undecided (budget)``."""
    cfg = session.config
    limit = cfg.max_blocks if block_cap is None else max(cfg.min_blocks, min(cfg.max_blocks, block_cap))
    obj = cfg.objectives[0]
    sign = 1.0 if obj.minimize else -1.0
    diffs: list[float] = []
    pair: tuple[list[float], list[float]] = ([], [])  # per-block objective: candidate, incumbent
    state = "not-better"  # the point estimate is not better: stopped without spending more
    cand_samples: dict[str, list[float]] = {}
    contended: list[tuple[float, float, float, float]] = []  # candidate, incumbent: objective, run-queue delay
    for got_c, got_i in session.blocks([cand, inc.config], limit):
        if isinstance(got_c, str):
            return RaceResult("infeasible", len(diffs) + 1, None, None, {}, got_c)
        if isinstance(got_i, str):  # the incumbent failed once: a hazard, skip the block
            session.hazards.append(f"block {session.block}: incumbent failed: {got_i}")
            continue
        inc.add(got_i)
        for k, v in got_c.items():
            cand_samples.setdefault(k, []).append(v)
        pair[0].append(got_c[obj.metric])
        pair[1].append(got_i[obj.metric])
        if RUN_DELAY in got_c and RUN_DELAY in got_i:
            contended.append((got_c[obj.metric], got_i[obj.metric], got_c[RUN_DELAY], got_i[RUN_DELAY]))
        diffs.append(sign * (log_value(got_c[obj.metric]) - log_value(got_i[obj.metric])))
        if len(diffs) < cfg.min_blocks:
            continue
        if t_interval(diffs)[0] > 0:
            return _checked(session, _result("worse", diffs, cand_samples, sign), pair)
        if (upper := t_interval(diffs, PROMOTE_CONF)[1]) < 0:
            if (len(diffs) < min(MIN_BLOCKS, limit) and upper > math.log(DECISIVE_RATIO)
                    and not session.out_of_budget(0, reserve=2)):
                continue  # better: enough blocks for the drift check before promoting
            promoted = _checked(session, _result("promoted", diffs, cand_samples, sign), pair, contended, obj.metric)
            return promoted if promoted.state in NOT_PROMOTED else guard(session, promoted, baseline)
        if np.mean(diffs) >= 0:
            break
        if session.out_of_budget(0, reserve=2):
            state = UNDECIDED_BUDGET
            break
    else:  # every block the race may take, and the interval still holds 1
        cut = UNDECIDED_BLOCKS if limit == cfg.max_blocks else UNDECIDED_BUDGET
        state = cut if diffs and np.mean(diffs) < 0 else "not-better"
    result = _checked(session, _result(state, diffs, cand_samples, sign), pair)
    return result if result.state in NOT_PROMOTED else guard(session, result, baseline)


def _checked(session: Tuning, result: RaceResult, pair: tuple[list[float], list[float]],
             contended: list[tuple[float, float, float, float]] | None = None, metric: str = "") -> RaceResult:
    """The drift check over the race's blocks: a promotion measured during drift becomes
    ``drift`` (not promoted); any other outcome keeps its state and says so in its reason. A
    promotion on a contended metric that the run-queue delay explains (the one model,
    :mod:`jvmlab.analyze.interference`, as `run` judges) becomes ``disturbed`` (not promoted,
    with the measured delay)."""
    found = block_drift(*pair)
    if found is None and result.state == "promoted" and contended and contention_moves(metric):
        adjusted = paired_blocks_adjusted(contended)
        if adjusted is not None and not adjusted.confirms(result.ci):
            why = (f"disturbed (run-queue delay {adjusted.delay_s:.2g} s per run): at equal run-queue delay "
                   f"the ratio's 95% CI is {adjusted.ci95[0]:.3g}-{adjusted.ci95[1]:.3g}, so the delay could "
                   "explain the win")
            session.hazards.append(f"block {session.block}: {why}")
            return RaceResult(DISTURBED, result.blocks, result.ratio, result.ci, result.means, why, result.samples)
    if found is None:
        return result
    session.hazards.append(f"block {session.block}: drift during a race: {found.text()}")
    state = DRIFT if result.state == "promoted" else result.state
    return RaceResult(state, result.blocks, result.ratio, result.ci, result.means,
                      f"measured during drift: {found.text()}", result.samples)


def _result(state: str, diffs: list[float], samples: dict[str, list[float]], sign: float) -> RaceResult:
    lo, hi = t_interval(diffs)
    means = {k: float(np.mean(v)) for k, v in samples.items()}
    if not diffs:
        return RaceResult(state, 0, None, None, means, samples=samples)
    ends = (math.exp(sign * lo), math.exp(sign * hi))
    ci = (min(ends), max(ends))
    return RaceResult(state, len(diffs), math.exp(sign * float(np.mean(diffs))), ci,
                      means, samples=samples)


def guard(session: Tuning, result: RaceResult, baseline: Incumbent) -> RaceResult:
    for g in session.config.guardrails:
        value = result.means.get(g.metric)
        base = float(np.mean(baseline.samples[g.metric])) if baseline.samples.get(g.metric) else None
        if value is None:
            return RaceResult("infeasible", result.blocks, result.ratio, result.ci, result.means,
                              f"guardrail {g.text}: {g.metric} not measured", result.samples)
        if not g.holds(value, base):
            return RaceResult("infeasible", result.blocks, result.ratio, result.ci, result.means,
                              f"guardrail {g.text} broken ({g.metric} = {value:.4g})", result.samples)
    return result
