"""The tuning loop: ask, race (or, for several objectives, measure paired with the
baseline), tell; then confirm the winner or each Pareto point.

Everything random is seeded and every invocation is addressed by (block, position), so
replaying the loop over a store that already holds some results asks the same questions and
finds their answers there: `tune --resume` is this function run again.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jvmlab.errors import UserError
from jvmlab.tune.confirm import confirm
from jvmlab.tune.design import (
    Effect,
    baseline_values,
    carried_effects,
    first_move,
    next_move,
    one_factor_effects,
    promising,
    untried_combinations,
)
from jvmlab.tune.drift import MIN_BLOCKS as DRIFT_BLOCKS
from jvmlab.tune.identity import for_measurer
from jvmlab.tune.model import Config, Confirmation, Measurer, Trial
from jvmlab.tune.progress import TuneProgress
from jvmlab.tune.racing import Incumbent, RaceResult, guard, race
from jvmlab.tune.sampler import Sampler
from jvmlab.tune.space import Param, TuneConfig, value_text
from jvmlab.tune.stats import LOG_FLOOR, log_value
from jvmlab.tune.tuning import Tuning

MAX_REPEATS = 40  # proposals of already-tried configurations in a row: the space is exhausted


@dataclass
class TuneResult:
    trials: list[Trial]
    winner: Config
    baseline: Config
    pareto: list[Config]
    confirmations: list[Confirmation]
    importances: dict[str, float]
    invocations: int
    hazards: list[str] = field(default_factory=list)
    stopped_because: str = ""
    winner_why: str = ""  # set when the winner is no promoted incumbent (ahead_at_the_end)
    untried: list[str] = field(default_factory=list)  # promising combinations the budget left unraced


def make_config(config: TuneConfig, values: dict[str, Any], default_jvm: str) -> Config:
    jvm = next((str(values[p.name]) for p in config.params if p.kind == "jdk" and p.name in values), default_jvm)
    return Config(values, jvm, config.flags(values))


def tune(config: TuneConfig, measurer: Measurer, default_jvm: str, *,
         on_trial: Callable[[Trial, Tuning], None] | None = None, do_confirm: bool = True,
         identity: Callable[[Config], str] | None = None, storage: str | None = None,
         study_name: str | None = None, progress: TuneProgress | None = None) -> TuneResult:
    """``identity``: when two configurations are the same JVM (default: their effective flags on
    the measurer's JDKs, tune/identity.py); ``storage``: an Optuna RDB URL that keeps the study;
    ``progress``: told each phase, for the live lines (tune/progress.py)."""
    session = Tuning(config, measurer, config.seed)
    progress = progress or TuneProgress()
    progress.session = session
    same = identity or for_measurer(measurer)
    baseline = Config({}, default_jvm, config.baseline_flags)
    defaults = Config({}, default_jvm, ())
    if (why := session.rejected(baseline)) is not None:
        raise UserError(f"the baseline flags {' '.join(baseline.flags)!r} fail on {default_jvm}: {why}")
    base = Incumbent(baseline)
    progress.set("measuring the baseline", " ".join(baseline.flags) or "JDK defaults", blocks_max=config.min_blocks)
    for (got,) in session.blocks([baseline], config.min_blocks):
        if isinstance(got, str):
            raise UserError(f"the baseline fails: {got}")
        base.add(got)
    inc = Incumbent(baseline, {k: list(v) for k, v in base.samples.items()})
    sampler = Sampler(config, storage=storage, study_name=study_name)
    trials: list[Trial] = []
    seen: dict[str, tuple[float, ...] | None] = {
        same(baseline): tuple(base.estimate(o.metric) for o in config.objectives)}
    repeats, stopped, combined = 0, "budget", 0  # combined: candidates queued from the best levels
    start = baseline_values(config, default_jvm, same)  # the coordinate search's first center (tune/design.py)
    carried: list[Effect] = []  # improving moves against earlier incumbents, for parameters not changed since

    def key_of(v: dict[str, Any]) -> str:
        return same(make_config(config, v, default_jvm))

    while True:
        exhausted = repeats >= MAX_REPEATS
        center = inc.config.values or start
        # the combined candidates the one-factor effects make now: the search keeps a trial for each
        pending = (combined_candidates(config, trials, seen, same, default_jvm, center, same(inc.config))
                   if combined == 0 else [])
        reserve = len(pending)
        if combined == 0 and (exhausted or _search_spent(session, len(trials), reserve)):
            # -1: nothing new to combine, and the search goes on with the trials kept for it
            for values in pending:
                sampler.enqueue(values)
            combined = len(pending) or -1
            repeats = 0 if combined > 0 else repeats
        if exhausted:
            stopped = "space exhausted"
            if combined == -1:
                break
        # a race takes at least min_blocks paired blocks: one that cannot fit the invocations left is not begun
        if (session.out_of_budget(len(trials), reserve=2 * config.min_blocks - 1)
                or (combined > 0 and not sampler.queued())):
            break
        move, move_origin = None, "coordinate"
        if combined <= 0 and center:
            # improving moves put together, or one that improved before the last promotion, come first
            priority = (None if config.multi else
                        first_move(config, center, same(inc.config), trials, carried, seen, key_of,
                                   config.objectives[0].minimize))
            move, move_origin = priority or (next_move(config, center, seen, key_of), "coordinate")
        if move is not None:  # one parameter changed from the incumbent: before the sampler's proposals
            sampler.enqueue(move)
        values = sampler.ask()
        cfg = make_config(config, values, default_jvm)
        origin = move_origin if move is not None else "combined" if sampler.was_queued() else "search"
        if same(cfg) in seen:  # nothing is measured twice: the sampler hears the same answer
            sampler.tell(seen[same(cfg)])
            repeats += 1
            continue
        repeats = 0
        first = session.block + 1
        progress.set(f"racing {'the combined candidate' if origin == 'combined' else 'trial'} {len(trials) + 1}"
                     + (" (one parameter changed)" if origin == "coordinate" else ""),
                     " ".join(cfg.flags) or "JDK defaults", width=2,
                     blocks_max=config.min_blocks if config.multi else config.max_blocks)
        # the search's races leave the trials kept for the combined candidates their invocations
        trial, samples = _one_trial(session, len(trials), cfg, inc, base, reserve)
        trial.origin = origin
        trial.against = same(inc.config)
        trial.block_range = (first, session.block) if session.block >= first else None
        if trial.state == "promoted":
            if center:
                carried = carried_effects(config, center, same(inc.config), [*trials, trial], carried, cfg.values)
            inc = Incumbent(cfg, samples)
        trial.best_after = inc.estimate(config.objectives[0].metric)
        trial.best_ci = _ci_of(inc, config.objectives[0].metric)
        seen[same(cfg)] = trial.estimate
        sampler.tell(trial.estimate, trial.state)
        trials.append(trial)
        progress.trials_done = len(trials)
        if on_trial is not None:
            on_trial(trial, session)
            progress.note_written()
    winner_why = ""
    if not config.multi and (ahead := ahead_at_the_end(trials, config.objectives[0].minimize)) is not None:
        inc, winner_why = Incumbent(ahead.config), (
            f"trial {ahead.number + 1} ({ahead.state}): ahead of the last incumbent at 95% when its race stopped")
    pareto = _pareto(sampler, trials) if config.multi else [inc.config]
    center = inc.config.values or start
    untried = ([] if config.multi or not center else
               untried_combinations(config, center, same(inc.config), trials, carried, seen, key_of,
                                    config.objectives[0].minimize))
    confirmations = []
    if do_confirm:
        for i, point in enumerate(pareto):
            label = "winner" if len(pareto) == 1 else f"pareto-{i + 1}"
            confirmations.append(confirm(session, label, point, baseline, defaults, progress))
    return TuneResult(trials, inc.config, baseline, pareto, confirmations, sampler.importances(),
                      session.invocations, session.hazards, stopped, winner_why, untried)


def ahead_at_the_end(trials: list[Trial], minimize: bool) -> Trial | None:
    """A candidate the search stopped before a decision (``undecided``: the budget or max_blocks)
    that raced the last incumbent and was ahead of it at 95% (its whole interval better) is the
    better pick than that incumbent: the one with the best ratio, or None. Promotions need 99%
    because a race looks after every block and the incumbent would wander among near-equal
    candidates over a long search; the final pick is made once, and the confirmation measures
    it against the baseline anyway. On the real bench the budget stopped the grid's best
    (Serial 128m, 0.85x the incumbent, 95% CI 0.74..0.98) and the tuner kept a 37% slower one."""
    last_promotion = max((t.number for t in trials if t.state == "promoted"), default=-1)
    ahead = [t for t in trials if t.number > last_promotion and t.state.startswith("undecided")
             and t.ci is not None and t.ratio is not None and (t.ci[1] < 1.0 if minimize else t.ci[0] > 1.0)]
    if not ahead:
        return None
    return min(ahead, key=lambda t: (t.ratio or 0.0) if minimize else -(t.ratio or 0.0))


def _search_spent(session: Tuning, trials_done: int, reserve: int) -> bool:
    """The search's share of the budget is spent: ``reserve`` trials (and their invocations,
    min_blocks paired blocks each) are kept for the combined candidates, so a search race is
    begun only when its min_blocks fit before them."""
    cfg = session.config
    b = cfg.budget
    per_trial = 2 * cfg.min_blocks
    mean_wall = session.spent_wall_s / session.invocations if session.invocations else 0.0
    return ((b.trials is not None and trials_done + reserve >= b.trials)
            or (b.invocations is not None and session.invocations + (reserve + 1) * per_trial > b.invocations)
            or (b.wall_s is not None and session.spent_wall_s + reserve * per_trial * mean_wall >= b.wall_s))


def race_share(session: Tuning, reserve_trials: int) -> int | None:
    """The blocks one search race may take of an invocation budget: half of what is left after
    the ``reserve_trials`` kept for the combined candidates (min_blocks paired blocks each), but
    never fewer than the drift check's blocks (a promotion needs them) while they fit. Without
    a share, a race begun before the search's share was spent ran on into the reserve (the
    combined candidate was then never raced), and one candidate a little better under much
    noise took every block max_blocks allows (the real bench: 16 of the search's 36
    invocations; the simulation at 90 invocations: 60) and ended undecided. None without an
    invocation budget; a big budget leaves max_blocks the limit."""
    cfg = session.config
    if cfg.budget.invocations is None:
        return None
    left = (cfg.budget.invocations - session.invocations - reserve_trials * 2 * cfg.min_blocks) // 2  # blocks
    return max(cfg.min_blocks, min(left, max(DRIFT_BLOCKS, left // 2)))


def combined_candidates(config: TuneConfig, trials: list[Trial], seen: dict[str, tuple[float, ...] | None],
                        same: Callable[[Config], str], default_jvm: str, center: dict[str, Any] | None = None,
                        against: str | None = None) -> list[dict[str, Any]]:
    """Good single changes often add up: raced as one more candidate. One objective: the
    improving one-factor moves measured against the incumbent (``against``, values ``center``),
    put together (tune/design.py ``promising``); several objectives, whose trials are each
    paired with the baseline: the best level of each parameter, one candidate per objective
    (so the Pareto front's ends get theirs). Candidates already tried (same effective flags)
    are left out, and a single parameter has nothing to combine. The search keeps budget for
    these only while there are some: a reserve kept for a combination that turns out tried cut
    the race before it (on the real bench, Serial 128m, the grid's best, stopped undecided at 4 blocks)."""
    if len(config.params) < 2:
        return []
    if not config.multi:
        found = (promising(config, center, one_factor_effects(config, center, against, trials),
                           config.objectives[0].minimize) if center and against is not None else None)
        if found is None or same(make_config(config, found[0], default_jvm)) in seen:
            return []
        return [found[0]]
    out: dict[str, dict[str, Any]] = {}
    for i, objective in enumerate(config.objectives):
        values = best_levels(config, trials, i, objective.minimize)
        if not values:
            continue
        key = same(make_config(config, values, default_jvm))
        if key not in seen and key not in out:
            out[key] = values
    return list(out.values())


def best_levels(config: TuneConfig, trials: list[Trial], objective: int, minimize: bool) -> dict[str, Any]:
    """Each parameter's level with the best mean log objective over the measured trials that set it
    (conditions respected: a parameter is set only when its condition holds for the levels chosen
    before it); {} when fewer than two trials were measured."""
    measured = [t for t in trials if t.estimate is not None and t.state != "infeasible"]
    if len(measured) < 2:
        return {}
    sign = 1.0 if minimize else -1.0
    values: dict[str, Any] = {}
    for p in config.params:
        if not p.active(values):
            continue
        groups: dict[str, list[tuple[float, Any]]] = {}  # level -> (signed log objective, value)
        for t in measured:
            if p.name in t.config.values and t.estimate is not None:
                v = t.config.values[p.name]
                groups.setdefault(_level(p, v), []).append((sign * math.log(max(t.estimate[objective], LOG_FLOOR)), v))
        if groups:
            best = min(groups.values(), key=lambda g: float(np.mean([x for x, _ in g])))
            values[p.name] = min(best, key=lambda xv: xv[0])[1]  # the level's best measured value
    return values


def _level(p: Param, value: Any) -> str:
    """Which level a value belongs to: itself for categories; for a range, the nearest of the
    6 points a grid would try (on a log scale when the range is), so a range has levels too."""
    if p.kind not in ("int", "size"):
        return value_text(value)
    points = p.grid()
    scale = (lambda x: math.log(max(x, 1))) if p.log else float
    return str(min(range(len(points)), key=lambda i: abs(scale(points[i]) - scale(int(value)))))


def _ci_of(inc: Incumbent, metric: str) -> tuple[float, float] | None:
    vals = np.log(np.maximum(inc.samples.get(metric, []), LOG_FLOOR))
    if vals.size < 2:
        return None
    half = 1.96 * vals.std(ddof=1) / math.sqrt(vals.size)
    return (float(math.exp(vals.mean() - half)), float(math.exp(vals.mean() + half)))


def _one_trial(session: Tuning, number: int, cfg: Config, inc: Incumbent,
               base: Incumbent, reserve: int = 0) -> tuple[Trial, dict[str, list[float]]]:
    """The trial and the candidate's samples (what a promoted candidate starts with)."""
    if (why := session.rejected(cfg)) is not None:
        return Trial(number, cfg, "infeasible", 0, None, None, None, why), {}
    objs = session.config.objectives
    if session.config.multi:
        return _paired_with_baseline(session, number, cfg, base), {}
    result = race(session, cfg, inc, base, race_share(session, reserve))
    if result.state == "infeasible":
        return Trial(number, cfg, "infeasible", result.blocks, result.ratio, result.ci, None, result.reason), {}
    estimate = inc.estimate(objs[0].metric) * (result.ratio or 1.0)
    trial = Trial(number, cfg, result.state, result.blocks, result.ratio, result.ci, (estimate,), result.reason)
    return trial, result.samples


def _paired_with_baseline(session: Tuning, number: int, cfg: Config, base: Incumbent) -> Trial:
    """Several objectives: min_blocks paired blocks against the baseline, a ratio per objective."""
    objs = session.config.objectives
    logs: dict[str, list[float]] = {o.metric: [] for o in objs}
    cand = Incumbent(cfg)
    for got_c, got_b in session.blocks([cfg, base.config], session.config.min_blocks):
        if isinstance(got_c, str):
            return Trial(number, cfg, "infeasible", 0, None, None, None, got_c)
        if isinstance(got_b, str):
            continue
        base.add(got_b)
        cand.add(got_c)
        for o in objs:
            logs[o.metric].append(log_value(got_c[o.metric]) - log_value(got_b[o.metric]))
    if not logs[objs[0].metric]:
        return Trial(number, cfg, "infeasible", 0, None, None, None, "the baseline failed in every block")
    means = {k: float(np.mean(v)) for k, v in cand.samples.items()}
    guarded = guard(session, RaceResult("measured", len(logs[objs[0].metric]), None, None, means), base)
    if guarded.state == "infeasible":
        return Trial(number, cfg, "infeasible", guarded.blocks, None, None, None, guarded.reason)
    estimate = tuple(base.estimate(o.metric) * math.exp(float(np.mean(logs[o.metric]))) for o in objs)
    ratio = math.exp(float(np.mean(logs[objs[0].metric])))
    return Trial(number, cfg, "measured", len(logs[objs[0].metric]), ratio, None, estimate)


def _pareto(sampler: Sampler, trials: list[Trial]) -> list[Config]:
    """The non-dominated trials (at most 4 are confirmed: each costs a confirmation run)."""
    front = {tuple(t.values) for t in sampler.study.best_trials}
    configs: dict[str, Config] = {}
    for trial in trials:
        if trial.estimate is not None and tuple(trial.estimate) in front:
            configs.setdefault(trial.config.key, trial.config)
    return list(configs.values())[:4]
