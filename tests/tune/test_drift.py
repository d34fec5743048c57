"""The per-race drift check (seeded simulations): a machine that moves under a race is caught
and the race is never promoted; steady blocks with jitter are rarely flagged."""

import dataclasses

import numpy as np

from jvmlab.tune.drift import MIN_BLOCKS, block_drift
from jvmlab.tune.model import Config
from jvmlab.tune.racing import Incumbent, race
from jvmlab.tune.sim import SimMeasurer, sim_config
from jvmlab.tune.tuning import Tuning

GOOD = ("-XX:+UseParallelGC", "-Xmx1536m", "-XX:ParallelGCThreads=4")


def _pair(rng, n, cv=0.05, jitter=0.03, step=None, trend=0.0):
    """Per-block values of a candidate 20% faster than the incumbent, on a machine whose
    level jitters per block, optionally with a step (block, factor) or a linear trend."""
    level = np.exp(jitter * rng.standard_normal(n) + trend * np.arange(n) / max(n - 1, 1))
    if step is not None:
        level[step[0]:] *= step[1]
    inc = 10.0 * level * rng.lognormal(0, cv, n)
    cand = 8.0 * level * rng.lognormal(0, cv, n)
    return cand, inc


def test_steady_blocks_with_jitter_are_rarely_called_drift():
    rng = np.random.default_rng(11)
    flagged = sum(block_drift(*_pair(rng, 8)) is not None for _ in range(400))
    assert flagged <= 0.06 * 400


def test_a_step_in_the_machine_level_is_caught_and_located():
    rng = np.random.default_rng(12)
    found = [block_drift(*_pair(rng, 8, step=(4, 1.3))) for _ in range(200)]
    assert sum(f is not None for f in found) >= 0.9 * 200
    steps = [f for f in found if f is not None and f.kind == "step"]
    assert steps and np.median([f.at_block for f in steps]) == 4
    assert sum(f.series == "level" and f.shift > 0 for f in steps) >= 0.95 * len(steps)


def test_a_trend_is_caught_and_too_few_blocks_give_no_verdict():
    rng = np.random.default_rng(13)
    found = [block_drift(*_pair(rng, 8, trend=0.4)) for _ in range(200)]
    assert sum(f is not None for f in found) >= 0.9 * 200
    assert block_drift(*_pair(rng, MIN_BLOCKS - 1, step=(2, 2.0))) is None


def test_a_better_candidate_raced_while_the_machine_slows_down_is_not_promoted():
    """The same better candidate: promoted on a steady machine; marked drift (and kept from
    promotion) when the machine becomes 40% slower in the middle of its race."""
    cfg = dataclasses.replace(sim_config(), guardrails=())  # the race alone, no RSS guardrail
    cand = Config({}, "default", GOOD)
    base = Config({}, "default", ("-XX:+UseSerialGC", "-Xmx512m"))
    outcomes = {"steady": [], "step": []}
    for seed in range(10):
        for kind, step in (("steady", None), ("step", (4, 1.4))):
            session = Tuning(cfg, SimMeasurer(seed, drift=0.01, step=step), seed)
            result = race(session, cand, Incumbent(base), Incumbent(base))
            outcomes[kind].append(result)
    assert sum(r.state == "promoted" for r in outcomes["steady"]) >= 9
    assert all(r.blocks >= MIN_BLOCKS for r in outcomes["steady"] if r.state == "promoted")
    drifted = [r for r in outcomes["step"] if r.state == "drift"]
    assert len(drifted) >= 9
    assert all("measured during drift" in r.reason for r in drifted)
    assert sum(r.state == "promoted" for r in outcomes["step"]) <= 1


def test_the_summary_names_a_drift_trial_and_why_it_was_not_promoted():
    from jvmlab.tune.engine import TuneResult
    from jvmlab.tune.model import Trial
    from jvmlab.tune.summary import summary_text

    cfg = sim_config()
    base = Config({}, "default", ())
    cand = Config({}, "default", GOOD)
    session = Tuning(dataclasses.replace(cfg, guardrails=()), SimMeasurer(3, drift=0.01, step=(4, 1.4)), 3)
    raced = race(session, cand, Incumbent(Config({}, "default", ("-XX:+UseSerialGC",))),
                 Incumbent(base))
    assert raced.state == "drift"
    trial = Trial(0, cand, raced.state, raced.blocks, raced.ratio, raced.ci, (9.0,), raced.reason)
    text = summary_text(cfg, TuneResult([trial], base, base, [base], [], {}, session.invocations,
                                        session.hazards), 7)
    assert "1 drift" in text and "drift trial 1: -XX:+UseParallelGC" in text and "not promoted" in text
    assert "warning: block" in text and "drift during a race" in text
