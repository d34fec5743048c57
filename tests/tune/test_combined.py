"""After the search, the best level of each parameter is put together and raced as one more
candidate (issue 32 item 4): good single changes often add up."""

import dataclasses

from jvmlab.tune.engine import best_levels, make_config, tune
from jvmlab.tune.model import Config, Trial
from jvmlab.tune.sim import SimMeasurer, sim_config
from jvmlab.tune.space import Budget, parse_tune

TWO = parse_tune({"objective": "wall_s", "budget": {"trials": 5}, "params": {
    "gc": {"type": "categorical", "values": {"a": "-XX:+UseSerialGC", "b": "-XX:+UseParallelGC"}},
    "heap": {"type": "categorical", "values": {"small": "-Xmx1g", "big": "-Xmx2g"}}}})


def _trial(n, gc, heap, wall):
    values = {"gc": gc, "heap": heap}
    return Trial(n, Config(values, "default", TWO.flags(values)), "not-better", 3, 1.0, None, (wall,))


def test_best_levels_take_each_parameter_s_best_mean_even_when_no_trial_had_them_together():
    trials = [_trial(0, "a", "small", 10.0), _trial(1, "b", "small", 9.0), _trial(2, "a", "big", 9.0)]
    assert best_levels(TWO, trials, 0, minimize=True) == {"gc": "b", "heap": "big"}
    assert best_levels(TWO, trials, 0, minimize=False) == {"gc": "a", "heap": "small"}
    failed = dataclasses.replace(trials[1], state="infeasible", estimate=None)
    assert best_levels(TWO, [trials[0], failed], 0, minimize=True) == {}  # one measured trial: nothing to combine


def test_best_levels_respect_conditions():
    cfg = sim_config()
    values = [{"gc": "serial", "heap": 1 << 30, "threads": 2, "pretouch": False},
              {"gc": "g1", "heap": 2 << 30, "pause": 50, "threads": 4, "pretouch": True},
              {"gc": "serial", "heap": 2 << 30, "threads": 4, "pretouch": True}]
    trials = [Trial(i, make_config(cfg, v, "default"), "not-better", 3, 1.0, None, (w,))
              for i, (v, w) in enumerate(zip(values, [8.0, 12.0, 9.0], strict=True))]
    best = best_levels(cfg, trials, 0, minimize=True)
    assert best["gc"] == "serial" and "pause" not in best  # pause only exists under g1


def _combined_expected(cfg, result):
    """The combinations due when the search had spent its share (the budget less one trial per objective)."""
    search = [t for t in result.trials if t.origin != "combined"][:cfg.budget.trials - len(cfg.objectives)]
    keys = {t.config.key for t in search} | {result.baseline.key}
    expected = []
    for i, o in enumerate(cfg.objectives):
        c = make_config(cfg, best_levels(cfg, search, i, o.minimize), "default")
        if c.key not in keys and c.key not in [e.key for e in expected]:
            expected.append(c)
    return expected


def test_the_tuner_races_only_combinations_of_moves_measured_against_its_incumbent():
    """One objective: a combined candidate is the improving one-factor moves raced against the
    incumbent of the moment, put together (tune/design.py), never best level means over trials
    raced against different incumbents (issue 45). Replayed from each run's trial list."""
    from jvmlab.tune.design import one_factor_effects, promising
    from jvmlab.tune.identity import literal_key

    for seed in range(1, 7):
        cfg = dataclasses.replace(sim_config(), guardrails=(), seed=seed, budget=Budget(12, None, None))
        result = tune(cfg, SimMeasurer(seed, cv=0.3), "default", do_confirm=False, identity=literal_key)
        assert len(result.trials) <= 12
        center, incumbent = None, literal_key(result.baseline)
        for i, t in enumerate(result.trials):
            if t.origin == "combined":
                assert center is not None
                found = promising(cfg, center, one_factor_effects(cfg, center, incumbent, result.trials[:i]), True)
                assert found is not None and found[0] == t.config.values
                assert t.state != "infeasible" and t.blocks >= cfg.min_blocks
            if t.state == "promoted":
                center, incumbent = dict(t.config.values), literal_key(t.config)


def test_a_multi_objective_run_races_one_combined_candidate_per_objective_end():
    raced = 0
    for seed in range(1, 4):
        cfg = dataclasses.replace(sim_config(objective=["wall_s", "max_rss_bytes"], guardrails=[]), seed=seed,
                                  budget=Budget(14, None, None))
        result = tune(cfg, SimMeasurer(seed), "default", do_confirm=False)
        combined = [t for t in result.trials if t.origin == "combined"]
        assert [t.config.key for t in combined] == [c.key for c in _combined_expected(cfg, result)]
        assert all(t.estimate is not None and len(t.estimate) == 2 for t in combined)
        raced += len(combined)
    assert raced >= 3
