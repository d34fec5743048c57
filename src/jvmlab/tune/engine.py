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
from jvmlab.tune.model import Config, Confirmation, Measurer, Trial
from jvmlab.tune.racing import Incumbent, RaceResult, guard, race
from jvmlab.tune.sampler import Sampler
from jvmlab.tune.session import Session
from jvmlab.tune.space import TuneConfig
from jvmlab.tune.stats import LOG_FLOOR, log_value

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


def make_config(config: TuneConfig, values: dict[str, Any], default_jvm: str) -> Config:
    jvm = next((str(values[p.name]) for p in config.params if p.kind == "jdk" and p.name in values), default_jvm)
    return Config(values, jvm, config.flags(values))


def tune(config: TuneConfig, measurer: Measurer, default_jvm: str, *, sampler_kind: str = "tpe",
         on_trial: Callable[[Trial, Session], None] | None = None, do_confirm: bool = True) -> TuneResult:
    session = Session(config, measurer, config.seed)
    baseline = Config({}, default_jvm, config.baseline_flags)
    defaults = Config({}, default_jvm, ())
    if (why := session.rejected(baseline)) is not None:
        raise UserError(f"the baseline flags {' '.join(baseline.flags)!r} fail on {default_jvm}: {why}")
    base = Incumbent(baseline)
    for (got,) in session.blocks([baseline], config.min_blocks):
        if isinstance(got, str):
            raise UserError(f"the baseline fails: {got}")
        base.add(got)
    inc = Incumbent(baseline, {k: list(v) for k, v in base.samples.items()})
    sampler = Sampler(config, sampler_kind)
    trials: list[Trial] = []
    seen: dict[str, tuple[float, ...] | None] = {
        baseline.key: tuple(base.estimate(o.metric) for o in config.objectives)}
    repeats, stopped = 0, "budget"
    while not session.out_of_budget(len(trials)):
        values = sampler.ask()
        cfg = make_config(config, values, default_jvm)
        if cfg.key in seen:  # nothing is measured twice: the sampler hears the same answer
            sampler.tell(seen[cfg.key])
            repeats += 1
            if repeats >= MAX_REPEATS:
                stopped = "space exhausted"
                break
            continue
        repeats = 0
        first = session.block + 1
        trial, samples = _one_trial(session, len(trials), cfg, inc, base)
        trial.block_range = (first, session.block) if session.block >= first else None
        if trial.state == "promoted":
            inc = Incumbent(cfg, samples)
        trial.best_after = inc.estimate(config.objectives[0].metric)
        trial.best_ci = _ci_of(inc, config.objectives[0].metric)
        seen[cfg.key] = trial.estimate
        sampler.tell(trial.estimate)
        trials.append(trial)
        if on_trial is not None:
            on_trial(trial, session)
    pareto = _pareto(sampler, trials) if config.multi else [inc.config]
    confirmations = []
    if do_confirm:
        for i, point in enumerate(pareto):
            label = "winner" if len(pareto) == 1 else f"pareto-{i + 1}"
            confirmations.append(confirm(session, label, point, baseline, defaults))
    return TuneResult(trials, inc.config, baseline, pareto, confirmations, sampler.importances(),
                      session.invocations, session.hazards, stopped)


def _ci_of(inc: Incumbent, metric: str) -> tuple[float, float] | None:
    vals = np.log(np.maximum(inc.samples.get(metric, []), LOG_FLOOR))
    if vals.size < 2:
        return None
    half = 1.96 * vals.std(ddof=1) / math.sqrt(vals.size)
    return (float(math.exp(vals.mean() - half)), float(math.exp(vals.mean() + half)))


def _one_trial(session: Session, number: int, cfg: Config, inc: Incumbent,
               base: Incumbent) -> tuple[Trial, dict[str, list[float]]]:
    """The trial and the candidate's samples (what a promoted candidate starts with)."""
    if (why := session.rejected(cfg)) is not None:
        return Trial(number, cfg, "infeasible", 0, None, None, None, why), {}
    objs = session.config.objectives
    if session.config.multi:
        return _paired_with_baseline(session, number, cfg, base), {}
    result = race(session, cfg, inc, base)
    if result.state == "infeasible":
        return Trial(number, cfg, "infeasible", result.blocks, result.ratio, result.ci, None, result.reason), {}
    estimate = inc.estimate(objs[0].metric) * (result.ratio or 1.0)
    trial = Trial(number, cfg, result.state, result.blocks, result.ratio, result.ci, (estimate,), result.reason)
    return trial, result.samples


def _paired_with_baseline(session: Session, number: int, cfg: Config, base: Incumbent) -> Trial:
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
