"""`gc compare` says why an interval is missing, and a zero-width interval from figures the logs
round alike is not a verdict (issue 45)."""

from __future__ import annotations

from jvmlab.gclog.compare import BETTER, INCONCLUSIVE, METRICS, NO_CI, compare_metric


def _m(key: str):  # type: ignore[no-untyped-def]
    return next(m for m in METRICS if m.key == key)


def _full(n: int) -> dict:
    return {"pauses": {"by_kind": {"full": {"count": n}}}}


def test_a_side_at_zero_in_every_log_is_the_reason_for_no_interval() -> None:
    c = compare_metric(_m("full_count"), [_full(3), _full(5), _full(4)], [_full(0)] * 3, seed=1)
    assert c.verdict == NO_CI and c.ratio == 0.0
    assert c.reason == "0 in every log of B (3 logs): no interval of a ratio to 0; B has none of it"
    one = compare_metric(_m("full_count"), [_full(3)], [_full(0), _full(1)], seed=1)
    assert one.reason is not None and one.reason.startswith("one log on a side")
    a_zero = compare_metric(_m("full_count"), [_full(0)] * 3, [_full(2), _full(1)], seed=1)
    assert a_zero.verdict == NO_CI and a_zero.reason == "0 in every log of A (3 logs): no ratio"


def test_a_zero_width_interval_of_rounded_figures_is_not_better() -> None:
    a, b = [{"throughput_pct": 99.5}] * 4, [{"throughput_pct": 99.6}] * 4
    c = compare_metric(_m("throughput_pct"), a, b, seed=1)
    assert c.ci is not None and c.ci[0] == c.ci[1]
    assert c.verdict == INCONCLUSIVE and "interval of width 0" in (c.reason or "")
    spread = compare_metric(_m("throughput_pct"), [{"throughput_pct": v} for v in (99.0, 99.1, 99.2, 99.05)],
                            [{"throughput_pct": v} for v in (99.6, 99.7, 99.65, 99.8)], seed=1)
    assert spread.verdict == BETTER  # figures that vary: the interval has a width and decides
