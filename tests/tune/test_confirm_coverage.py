"""The confirmation CI's coverage over many seeded confirmations (the bench's 20 seeds are
too few to tell a 95% CI from a 90% one: 3 misses in 20 happen in about 7% of runs), and
Stein's two-stage rule that fixes the confirmation's length."""

import dataclasses
import math

import numpy as np
from scipy import stats

from jvmlab.tune.confirm import MIN_BLOCKS, confirm
from jvmlab.tune.model import Config
from jvmlab.tune.sim import SimMeasurer, sim_config, true_metrics
from jvmlab.tune.stats import stein_blocks, stein_interval
from jvmlab.tune.tuning import Tuning


def test_the_winner_baseline_ci_covers_the_true_ratio_about_95_percent_of_the_time():
    cfg = dataclasses.replace(sim_config(), guardrails=())
    winner = Config({}, "default", ("-XX:+UseParallelGC", "-Xmx1536m", "-XX:ParallelGCThreads=4"))
    baseline = Config({}, "default", ("-Xmx512m",))
    truth = true_metrics(winner.flags)["wall_s"] / true_metrics(baseline.flags)["wall_s"]
    covered, widths, n = 0, [], 200
    for seed in range(n):
        session = Tuning(cfg, SimMeasurer(seed), seed)
        session.block = 300  # as after a search: the confirmation's blocks are fresh ones
        got = confirm(session, "winner", winner, baseline, Config({}, "default", ()))
        lo, hi = got.against["baseline"][1]
        covered += lo <= truth <= hi
        widths.append(hi / lo - 1)
        assert MIN_BLOCKS <= got.blocks <= cfg.confirm_max_blocks
    # a 95% CI: 190 expected; 182 or fewer happens in under 1% of runs (binomial)
    assert covered >= 183, covered
    assert np.mean(widths) < 0.07 and max(widths) < 0.11  # not covering by being wide


def test_stein_blocks_are_fixed_by_the_first_stage_spread():
    first = np.array([-1.0, 1.0] * 5) * 0.03  # sd = 0.03 * sqrt(10/9)
    t9 = stats.t.ppf(0.975, 9)
    want = math.ceil((t9 * 0.03 * math.sqrt(10 / 9) / math.log1p(0.02)) ** 2)
    assert want == 14
    assert stein_blocks(first, math.log1p(0.02)) == want
    assert stein_blocks(first / 10, math.log1p(0.02)) == 10  # never fewer than the first stage


def test_stein_interval_has_its_coverage_where_stop_when_narrow_does_not():
    rng = np.random.default_rng(7)
    target, sd, reps = math.log1p(0.02), 0.05, 3000
    stein_hits = narrow_hits = 0
    for _ in range(reps):
        d = rng.normal(0.0, sd, 200)
        n = min(200, stein_blocks(d[:MIN_BLOCKS], target))
        lo, hi = stein_interval(d[:n], MIN_BLOCKS)
        stein_hits += lo <= 0.0 <= hi
        k = MIN_BLOCKS  # the rule it replaced: stop at the first block whose t CI looks narrow
        while k < 200:
            half = stats.t.ppf(0.975, k - 1) * d[:k].std(ddof=1) / math.sqrt(k)
            if half <= target:
                break
            k += 1
        half = stats.t.ppf(0.975, k - 1) * d[:k].std(ddof=1) / math.sqrt(k)
        narrow_hits += abs(d[:k].mean()) <= half
    assert stein_hits / reps >= 0.94, stein_hits / reps
    assert narrow_hits < stein_hits  # the stop-when-narrow interval undercovers
