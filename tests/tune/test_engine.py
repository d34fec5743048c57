"""The tuner on a simulated JVM with a known response surface and 5% noise (seeded)."""

import dataclasses

import pytest

from jvmlab.tune.engine import tune
from jvmlab.tune.model import Config
from jvmlab.tune.racing import Incumbent, race
from jvmlab.tune.sim import SimMeasurer, sim_config, true_metrics
from jvmlab.tune.space import Budget
from jvmlab.tune.tuning import Tuning


def _cfg(seed=3, **budget):
    return dataclasses.replace(sim_config(), seed=seed, budget=Budget(budget.get("trials"),
                                                                        budget.get("invocations"), None))


def test_tuner_finds_a_much_better_config_and_confirms_it_with_a_ci_covering_the_truth():
    cfg = _cfg(invocations=1500)
    result = tune(cfg, SimMeasurer(3), "default")
    default_wall = true_metrics(())["wall_s"]
    winner_wall = true_metrics(result.winner.flags)["wall_s"]
    assert winner_wall < 0.9 * default_wall  # the surface's defaults are ~33% off its optimum
    _ratio, (lo, hi) = result.confirmations[0].against["baseline"]
    assert lo <= winner_wall / default_wall <= hi
    assert "faster" in result.confirmations[0].verdicts["baseline"]
    # the search stops within one race block (up to 3 invocations) past its budget; the confirmation
    # runs winner and baseline (the defaults here) for at most confirm_max_blocks blocks
    assert result.invocations <= 1500 + 3 + cfg.confirm_max_blocks * 2


def test_a_clearly_worse_candidate_is_dropped_after_min_blocks():
    cfg = sim_config()
    session = Tuning(cfg, SimMeasurer(1), 1)
    good = Config({}, "default", ("-XX:+UseParallelGC", "-Xmx1536m", "-XX:ParallelGCThreads=4"))
    bad = Config({}, "default", ("-XX:+UseSerialGC", "-Xmx256m"))
    result = race(session, bad, Incumbent(good), Incumbent(good))
    assert result.state == "worse" and result.blocks == cfg.min_blocks
    assert session.invocations == 2 * cfg.min_blocks


def test_a_failing_launch_is_an_infeasible_trial_not_a_crash():
    cfg = dataclasses.replace(sim_config(), budget=Budget(12, None, None))
    bogus = dataclasses.replace(cfg.params[0], choice_flags={**cfg.params[0].choice_flags,
                                                              "serial": ("-XX:+BogusFlag",)})
    cfg = dataclasses.replace(cfg, params=(bogus, *cfg.params[1:]))
    result = tune(cfg, SimMeasurer(2), "default", do_confirm=False)
    bogus_trials = [t for t in result.trials if "-XX:+BogusFlag" in t.config.flags]
    assert bogus_trials and all(t.state == "infeasible" and "BogusFlag" in t.reason for t in bogus_trials)
    assert "-XX:+BogusFlag" not in result.winner.flags


class _Killed(Exception):
    pass


class _DiesAfter(SimMeasurer):
    """Dies like a killed process after ``n`` real measurements."""

    def __init__(self, seed, n):
        super().__init__(seed)
        self.n = n

    def measure(self, jvm, flags, block, position):
        if self.measured >= self.n and (block, position, " ".join(flags)) not in self.history:
            raise _Killed()
        return super().measure(jvm, flags, block, position)


def test_resume_after_a_kill_continues_exactly_and_measures_nothing_twice():
    cfg = _cfg(seed=5, trials=15)
    whole = SimMeasurer(5)
    expected = tune(cfg, whole, "default")
    dying = _DiesAfter(5, 80)
    with pytest.raises(_Killed):
        tune(cfg, dying, "default")
    resumed = SimMeasurer(5)
    resumed.history = dict(dying.history)  # what the store held at the kill
    before = len(resumed.history)
    result = tune(cfg, resumed, "default")
    assert result.winner == expected.winner
    assert [t.config.key for t in result.trials] == [t.config.key for t in expected.trials]
    assert before + resumed.measured == whole.measured  # every invocation measured exactly once


def test_several_objectives_give_a_pareto_front_each_point_confirmed():
    cfg = dataclasses.replace(_cfg(seed=2, trials=16), guardrails=(),
                              objectives=sim_config(objective=["wall_s", "max_rss_bytes"]).objectives,
                              confirm_max_blocks=6)
    result = tune(cfg, SimMeasurer(2), "default")
    assert result.pareto and len(result.confirmations) == len(result.pareto)
    walls = [true_metrics(c.flags)["wall_s"] for c in result.pareto]
    rss = [true_metrics(c.flags)["max_rss_bytes"] for c in result.pareto]
    assert len(set(zip(walls, rss, strict=True))) == len(result.pareto)


def test_guardrails_make_trials_infeasible_and_the_winner_keeps_them():
    cfg = dataclasses.replace(_cfg(seed=4, trials=25), guardrails=sim_config(
        guardrails=["max_rss_bytes <= 1.2x baseline"]).guardrails)
    result = tune(cfg, SimMeasurer(4), "default", do_confirm=False)
    broken = [t for t in result.trials if t.state == "infeasible"]
    assert broken and all("guardrail" in t.reason for t in broken)
    baseline_rss = true_metrics(())["max_rss_bytes"]
    assert true_metrics(result.winner.flags)["max_rss_bytes"] <= 1.2 * baseline_rss * 1.03


@pytest.mark.parametrize("budget, max_blocks, expected", [
    (Budget(None, None, None), 4, "undecided (blocks)"),
    (Budget(None, 8, None), 30, "undecided (budget)"),
])
def test_a_race_stopped_while_the_candidate_looks_better_is_undecided_not_not_better(budget, max_blocks, expected):
    """4% better under 5% noise: many races cannot decide in 4 blocks (or 8 invocations). Each
    one stopped with the candidate ahead says why it stopped, with its interval."""
    cfg = dataclasses.replace(sim_config(), guardrails=(), budget=budget, max_blocks=max_blocks)
    better = Config({}, "default", ("-XX:+UseParallelGC", "-Xmx1536m", "-XX:ParallelGCThreads=2"))
    slower = Config({}, "default", ("-XX:+UseParallelGC", "-Xmx1536m", "-XX:ParallelGCThreads=1"))
    states = []
    for seed in range(40):
        result = race(Tuning(cfg, SimMeasurer(seed), seed), better, Incumbent(slower), Incumbent(slower))
        states.append(result.state)
        if result.state == "not-better":
            assert result.ratio is not None and result.ratio >= 1.0
        if result.state.startswith("undecided"):
            assert result.state == expected
            assert result.ratio is not None and result.ratio < 1.0 and result.ci is not None
            assert result.ci[0] < result.ratio < result.ci[1]
    assert states.count(expected) >= 5, states


def test_the_search_stays_within_its_invocation_budget():
    """A race takes at least min_blocks paired blocks: one that cannot fit is not begun, so the
    search (the confirmation is apart) never spends more than its budget."""
    over = []
    for seed in range(6):
        cfg = dataclasses.replace(sim_config(), guardrails=(), seed=seed, budget=Budget(None, 40, None))
        result = tune(cfg, SimMeasurer(seed), "default", do_confirm=False)
        over.append(result.invocations - 40)
        assert len(result.trials) >= 3
    assert max(over) <= 0, over
