"""Issue 31 item 3: a gate that could not see the change says `inconclusive` (its own word,
exit code and policy) with the number of blocks that would decide it; never a silent pass."""

from __future__ import annotations

import math

import numpy as np
import pytest

from jvmlab.analyze import CellData
from jvmlab.analyze.compare import compare
from jvmlab.analyze.correction import adjust
from jvmlab.analyze.gate import (
    EXIT_INCONCLUSIVE,
    GateOutcome,
    blocks_to_decide,
    decide,
    judge,
    parse_condition,
)
from jvmlab.analyze.model import Comparison, clean
from jvmlab.errors import UserError
from jvmlab.report.gate import summary_line, summary_markdown


def _comparison(ratio: float, ci: tuple[float, float], significant: bool, n: int = 6) -> Comparison:
    return Comparison(cell="c", baseline="c in #1", metric="wall_s", ratio=ratio, ci95=ci,
                      rel_diff_pct=(ratio - 1) * 100, p_value=0.3 if not significant else 0.001,
                      p_adjusted=0.3 if not significant else 0.001, significant=significant, n_cell=n,
                      n_baseline=n, paired=False)


def test_the_reported_wide_interval_is_inconclusive_not_a_pass() -> None:
    """`compare 1 2 --fail-if "wall_s > +3%"` printed "closest: +27.1% (95% CI -22.1% ... +84.7%,
    not significant)" and exited 0."""
    cond = parse_condition("wall_s > +3%")
    check = cond.decide(_comparison(1.271, (0.779, 1.847), False))
    assert check.outcome is GateOutcome.INCONCLUSIVE and check.blocks_to_decide is not None
    result = judge([cond], [_comparison(1.271, (0.779, 1.847), False)])
    assert result.outcome is GateOutcome.INCONCLUSIVE
    assert result.exit_code == EXIT_INCONCLUSIVE == 3 and result.exit_code_for("pass") == 0
    with pytest.raises(UserError, match="--inconclusive"):
        result.exit_code_for("maybe")
    line = summary_line(result, 1, 2)
    assert line.startswith("jvmlab gate: INCONCLUSIVE 1 of 1 checks, exit 3: wall_s > +3%: c wall_s +27.1%")
    assert "blocks per cell would decide it (now 6)" in line
    assert "exit 0 (--inconclusive pass)" in summary_line(result, 1, 2, "pass")
    md = summary_markdown(result, 1, 2)
    assert "jvmlab gate inconclusive" in md and "| **INCONCLUSIVE**: about " in md


@pytest.mark.parametrize(("ratio", "ci", "significant", "outcome"), [
    (1.10, (1.05, 1.15), True, GateOutcome.FAIL),  # surely beyond +3%
    (1.10, (1.05, 1.15), False, GateOutcome.INCONCLUSIVE),  # beyond, but the test did not hold after correction
    (1.04, (1.01, 1.07), True, GateOutcome.INCONCLUSIVE),  # a real change that may or may not pass 3%
    (1.00, (0.98, 1.02), False, GateOutcome.PASS),  # the whole CI below +3%
    (0.90, (0.85, 0.95), True, GateOutcome.PASS),  # surely faster
    (1.00, (0.98, 1.03), False, GateOutcome.PASS),  # touching the threshold is not beyond it
])
def test_three_outcomes(ratio: float, ci: tuple[float, float], significant: bool, outcome: GateOutcome) -> None:
    assert parse_condition("wall_s > +3%").decide(_comparison(ratio, ci, significant)).outcome is outcome


def test_direction_follows_the_condition() -> None:
    drop = parse_condition("rate < -5%")
    assert drop.decide(_comparison(0.9, (0.85, 0.97), False)).outcome is GateOutcome.INCONCLUSIVE
    assert drop.decide(_comparison(0.9, (0.85, 0.93), True)).outcome is GateOutcome.FAIL
    worse = parse_condition("jmh.* worse 5%")  # higher is better: a drop below 0.95 fails
    assert worse.decide(_comparison(0.9, (0.85, 0.93), True), lower_is_better=False).outcome is GateOutcome.FAIL
    assert worse.decide(_comparison(1.1, (1.05, 1.2), True), lower_is_better=False).outcome is GateOutcome.PASS
    assert decide(1.03, True, None, None, False, 0).outcome is GateOutcome.INCONCLUSIVE


def test_blocks_to_decide_scales_the_interval_to_the_distance() -> None:
    # half-width log(1.1/1.0) facing the limit, distance log(1.1/1.03) to it: 10 x 2.10 blocks
    assert blocks_to_decide(1.03, 1.10, (1.0, 1.2), 10) == math.ceil(10 * (math.log(1.1) / math.log(1.1 / 1.03)) ** 2)
    assert blocks_to_decide(1.03, 0.98, (0.95, 1.05), 10) == math.ceil(
        10 * (math.log(1.05 / 0.98) / math.log(1.03 / 0.98)) ** 2)  # below the limit: the upper half faces it
    assert blocks_to_decide(1.03, 1.03, (1.0, 1.06), 10) is None  # on the threshold: no number decides it


def test_seeded_blocks_to_decide_is_about_right() -> None:
    """A true +10% change under 10% noise, threshold +3%, judged at 6 invocations per cell, is
    usually inconclusive; rerun at the number of blocks the gate asked for, most runs decide
    (fail, the truth) rather than stay inconclusive. 60 seeded pairs."""
    rng = np.random.default_rng(31_03)
    cond = parse_condition("wall_s > +3%")
    asked: list[int] = []
    for k in range(60):
        a, b = rng.lognormal(0.0, 0.1, 6), rng.lognormal(np.log(1.1), 0.1, 6)
        comp = adjust([compare("c", clean(CellData.of(b)), "c", clean(CellData.of(a)), "wall_s",
                               np.random.default_rng(k), n_boot=400, n_perm=400)])[0]
        check = judge([cond], [comp]).checks[0]
        if check.inconclusive and check.decision.blocks_to_decide is not None:
            asked.append(check.decision.blocks_to_decide)
    assert len(asked) >= 30
    n = int(np.median(asked))
    decided = 0
    for k in range(60):
        a, b = rng.lognormal(0.0, 0.1, n), rng.lognormal(np.log(1.1), 0.1, n)
        comp = adjust([compare("c", clean(CellData.of(b)), "c", clean(CellData.of(a)), "wall_s",
                               np.random.default_rng(k), n_boot=400, n_perm=400)])[0]
        decided += judge([cond], [comp]).outcome is not GateOutcome.INCONCLUSIVE
    assert decided >= 30, f"{decided} of 60 decided at the asked {n} blocks"
