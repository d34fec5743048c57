"""Which fix `gc advise` advises: one that removed every finding the current flags showed and
is not significantly worse on the metric or pause p99; of several, the best metric ratio."""

from __future__ import annotations

from jvmlab.plan.advise import FixLevel
from jvmlab.report.gcadvise import Advice, FixAdvice, MetricEffect, lines
from jvmlab.results.advise import GONE, NOT_REPRODUCED, STILL, FindingCount


def _fix(name: str, verdicts: list[str], ratio: float, worse: bool = False, p99_worse: bool = False) -> FixAdvice:
    c = FindingCount("x", "current", 3, 3, (0.3, 1.0), 1.0, (1.0, 1.0))
    rows = tuple((c, c, v, "") for v in verdicts)
    return FixAdvice(FixLevel(name, (f"-XX:+{name}",), ("x",), ("",), name), rows,
                     MetricEffect("wall_s", ratio, (ratio * 0.9, ratio * 1.1), "", worse),
                     MetricEffect("gc.pause_p99_ms", 1.0, (0.9, 1.1), "", p99_worse))


def test_winner_removed_everything_shown_and_costs_nothing() -> None:
    fixes = (_fix("A", [GONE, STILL], 0.8), _fix("B", [GONE, NOT_REPRODUCED], 0.95), _fix("C", [GONE], 0.9),
             _fix("D", [GONE], 0.5, worse=True), _fix("E", [GONE], 0.4, p99_worse=True),
             _fix("F", [NOT_REPRODUCED], 0.3))
    advice = Advice(1, "wall_s", fixes)
    assert [f.removed() for f in fixes] == [False, True, True, True, True, False]
    win = advice.winner()
    assert win is not None and win.level.name == "C"  # best ratio among B and C; D and E cost something
    assert any("advised: -XX:+C" in text for text, _ in lines(advice))
    higher_better = Advice(1, "ops_s", fixes, lower_is_better=False)
    assert higher_better.winner() is not None and higher_better.winner().level.name == "B"


def test_no_winner_is_said() -> None:
    advice = Advice(2, "wall_s", (_fix("A", [STILL], 0.5),))
    assert advice.winner() is None and advice.to_json()["winner"] is None
    assert any("no fix removed" in text for text, _ in lines(advice))
