"""The race's error rates on the simulated machine (seeded): the race looks at its interval
after every block from min_blocks to max_blocks, so a per-look 95% interval would promote a
candidate no better than the incumbent in about 8% of races; over hundreds of trials the
incumbent would then wander among near-equal configurations. The promotion boundary is
stricter (racing.PROMOTE_CONF) while a clearly better candidate is still promoted."""

import dataclasses

from jvmlab.tune.model import Config
from jvmlab.tune.racing import Incumbent, race
from jvmlab.tune.sim import SimMeasurer, sim_config, true_metrics
from jvmlab.tune.tuning import Tuning

BEST = ("-XX:+UseParallelGC", "-Xmx1536m", "-XX:ParallelGCThreads=4")
RACES = 150


def _promoted(cand: tuple[str, ...], inc: tuple[str, ...]) -> tuple[float, float]:
    """Share of races promoting ``cand`` over ``inc`` and their mean length in blocks."""
    cfg = dataclasses.replace(sim_config(), guardrails=())
    promoted = blocks = 0
    for seed in range(RACES):
        session = Tuning(cfg, SimMeasurer(seed), seed)
        incumbent = Incumbent(Config({}, "default", inc))
        result = race(session, Config({}, "default", cand), incumbent, Incumbent(incumbent.config))
        promoted += result.state == "promoted"
        blocks += result.blocks
    return promoted / RACES, blocks / RACES


def test_a_candidate_equal_to_the_incumbent_is_rarely_promoted():
    same = (*BEST, "-XX:-AlwaysPreTouch")  # the same truth, another configuration
    assert true_metrics(same) == true_metrics(BEST)
    share, blocks = _promoted(same, BEST)
    assert share <= 0.05, share  # a 95% interval at every look: about 8%
    assert blocks <= 12  # near-equal races do not run to max_blocks on average


def test_a_slightly_worse_candidate_is_almost_never_promoted():
    worse = ("-XX:+UseParallelGC", "-Xmx1536m", "-XX:ParallelGCThreads=3")  # 1.7% slower
    assert true_metrics(worse)["wall_s"] > 1.015 * true_metrics(BEST)["wall_s"]
    share, _ = _promoted(worse, BEST)
    assert share <= 0.02, share


def test_a_clearly_better_candidate_is_still_promoted():
    better = ("-XX:+UseParallelGC", "-Xmx1536m", "-XX:ParallelGCThreads=2")  # 4% faster than 1 thread
    slower = ("-XX:+UseParallelGC", "-Xmx1536m", "-XX:ParallelGCThreads=1")
    share, _ = _promoted(better, slower)
    assert share >= 0.45, share
    share, _ = _promoted(BEST, ("-XX:+UseSerialGC", "-Xmx1536m"))  # 15% faster
    assert share >= 0.9, share
