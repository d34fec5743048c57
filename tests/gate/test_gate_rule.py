"""The gate's rule without JVMs: condition syntax, direction-aware `worse`, and a seeded
simulation of its false alarms on A/A data."""

from __future__ import annotations

import numpy as np
import pytest

from jvmlab.analyze import CellData
from jvmlab.analyze.compare import compare
from jvmlab.analyze.gate import judge, parse_condition
from jvmlab.analyze.model import Comparison, clean
from jvmlab.errors import UserError


def test_condition_syntax() -> None:
    c = parse_condition("jmh.* < -5%")
    assert (c.metric, c.op, c.threshold_pct, c.limit_for()) == ("jmh.*", "<", -5.0, 0.95)
    assert c.matches("jmh.Bench.run[n=1]") and not c.matches("wall_s")
    assert parse_condition(" wall_s>3.5% ").threshold_pct == 3.5
    worse = parse_condition("jmh.* worse 5%")
    assert (worse.metric, worse.op, worse.threshold_pct) == ("jmh.*", "worse", 5.0)
    for bad in ("wall_s > 3", "wall_s => 3%", "> 3%", "wall_s > -3%", "wall_s < +3%", "", "x worse -5%",
                "x worse5%"):
        with pytest.raises(UserError, match="--fail-if"):
            parse_condition(bad)


def test_a_aa_gate_rarely_fails_even_at_a_zero_threshold() -> None:
    """Seeded simulation: 200 A/A pairs of 12 log-normal values (cv 10%) each, threshold 0%.
    The gate can only fail on a significant comparison, so its false-alarm rate is at most
    the test's 5% level (allowing for the binomial spread of 200 trials)."""
    rng = np.random.default_rng(20261123)
    cond = parse_condition("wall_s > +0%")
    alarms = 0
    for k in range(200):
        a, b = (rng.lognormal(0.0, 0.1, 12) for _ in range(2))
        comp = compare("c", clean(CellData.of(b)), "c", clean(CellData.of(a)), "wall_s",
                       np.random.default_rng(k), n_boot=400, n_perm=400)
        alarms += len(judge([cond], [comp]).failed)
    assert alarms <= 20  # expected about 5 (one-sided half of a two-sided 5% test)


def _comparison(metric: str, ratio: float, ci: tuple[float, float]) -> Comparison:
    return Comparison(cell="c", baseline="c", metric=metric, ratio=ratio, ci95=ci, rel_diff_pct=(ratio - 1) * 100,
                      p_value=0.0001, p_adjusted=None, significant=False, n_cell=20, n_baseline=20, paired=False)


def test_worse_follows_each_metrics_direction() -> None:
    """``jmh.* worse 5%`` on a throughput benchmark (higher is better) and a time one (lower)."""
    cond = parse_condition("jmh.* worse 5%")
    thrpt_drop = _comparison("jmh.A.thrpt", 0.90, (0.88, 0.92))
    time_drop = _comparison("jmh.B.avgt", 0.90, (0.88, 0.92))  # 10% less time: better
    time_rise = _comparison("jmh.C.avgt", 1.03, (1.01, 1.05))  # worse, but not surely 5% worse
    result = judge([cond], [thrpt_drop, time_drop, time_rise],
                   {"jmh.A.thrpt": False, "jmh.B.avgt": True, "jmh.C.avgt": True})
    assert [c.comparison.metric for c in result.failed] == ["jmh.A.thrpt"]
    assert result.exit_code == 1
    plain = judge([parse_condition("jmh.* < -5%")], [thrpt_drop, time_drop])
    assert len(plain.failed) == 2  # '<' is literal: it fails the faster avgt benchmark too
