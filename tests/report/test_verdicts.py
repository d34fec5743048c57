"""Verdict sentences: direction from the metric registry, form from the ratio's size."""

from __future__ import annotations

import pytest

from jvmlab.analyze import CellData, analyze_metric
from jvmlab.analyze.model import Comparison, Effect
from jvmlab.metrics import get
from jvmlab.report.verdicts import effect_verdict, is_improvement, short_verdict, verdict


def _c(ratio: float | None, ci: tuple[float, float] | None, significant: bool) -> Comparison:
    return Comparison("AlwaysPreTouch=on", "baseline", "wall_s", ratio, ci,
                      None if ratio is None else (ratio - 1) * 100, 0.01, 0.02, significant,
                      20, 20, False)


@pytest.mark.parametrize(("ratio", "ci", "expected"), [
    (4.6, (4.3, 4.9), "AlwaysPreTouch=on is 4.6x slower (95% CI 4.3-4.9x)"),
    (0.4, (0.36, 0.44), "AlwaysPreTouch=on is 2.5x faster (95% CI 2.3-2.8x)"),
    (1.123, (1.101, 1.142), "AlwaysPreTouch=on is 12.3% slower (95% CI 10.1% ... 14.2%)"),
    (0.877, (0.858, 0.899), "AlwaysPreTouch=on is 12.3% faster (95% CI 10.1% ... 14.2%)"),
])
def test_time_verdicts(ratio: float, ci: tuple[float, float], expected: str) -> None:
    assert verdict(_c(ratio, ci, True), get("wall_s"), baseline_label="") == expected


def test_no_clear_difference_shows_signed_interval() -> None:
    text = verdict(_c(0.998, (0.988, 1.008), False), get("wall_s"), baseline_label="")
    assert text == "AlwaysPreTouch=on: no clear difference (95% CI -1.2% ... +0.8%)"
    named = verdict(_c(0.998, (0.988, 1.008), False), get("wall_s"))
    assert named == "AlwaysPreTouch=on: no clear difference from baseline (95% CI -1.2% ... +0.8%)"


def test_baseline_and_labels() -> None:
    text = verdict(_c(1.05, (1.03, 1.07), True), get("wall_s"), label="pre-touch", baseline_label="G1 defaults")
    assert text == "pre-touch is 5.0% slower than G1 defaults (95% CI 3.0% ... 7.0%)"


@pytest.mark.parametrize(("metric", "up", "down"), [
    ("max_rss_bytes", "uses 12.3% more memory", "uses 12.3% less memory"),
    ("progress.steady_rate", "has 12.3% higher throughput", "has 12.3% lower throughput"),
    ("gc.pause_count", "has 12.3% more stop-the-world GC pauses", "has 12.3% fewer stop-the-world GC pauses"),
    ("gc.interval_mean_s", "has 12.3% longer pause interval", "has 12.3% shorter pause interval"),
    # a pause or a request's latency is a time inside the run: never "faster" (seen: "ZGC is
    # 1095x faster than G1" on the p99 pause)
    ("gc.pause_p99_ms", "has 12.3% longer pause p99", "has 12.3% shorter pause p99"),
    ("load.latency_p99_ms", "has 12.3% longer latency p99", "has 12.3% shorter latency p99"),
    ("gc.paused_pct", "has 12.3% higher gc.paused_pct", "has 12.3% lower gc.paused_pct"),
    # CPU time is an amount used, not a speed (issue 45: a CPU objective's tune said "37% faster")
    ("cpu_s", "uses 12.3% more CPU time", "uses 12.3% less CPU time"),
    ("user_s", "uses 12.3% more user CPU time", "uses 12.3% less user CPU time"),
])
def test_direction_words_come_from_registry(metric: str, up: str, down: str) -> None:
    m = get(metric)
    assert up in verdict(_c(1.123, (1.1, 1.15), True), m)
    assert down in verdict(_c(0.877, (0.85, 0.9), True), m)


def test_better_or_worse_follows_lower_is_better() -> None:
    assert is_improvement(_c(0.9, (0.88, 0.92), True), get("wall_s")) is True
    assert is_improvement(_c(0.9, (0.88, 0.92), True), get("progress.steady_rate")) is False
    assert is_improvement(_c(0.9, (0.8, 1.1), False), get("wall_s")) is None


def test_short_and_insufficient_data() -> None:
    assert short_verdict(_c(4.6, (4.3, 4.9), True), get("wall_s")) == "4.6x slower"
    assert short_verdict(_c(1.0, (0.99, 1.01), False), get("wall_s")) == "~"
    text = verdict(_c(None, None, False), get("wall_s"))
    assert "not enough data" in text and "n=20 vs n=20" in text


def test_disagreeing_test_and_interval_show_signed_interval() -> None:
    text = verdict(_c(1.05, (0.99, 1.10), True), get("wall_s"), baseline_label="")
    assert text == "AlwaysPreTouch=on is 5.0% slower (95% CI -1.0% ... +10.0%)"


def test_effect_verdicts() -> None:
    wall = get("wall_s")
    main = Effect("AlwaysPreTouch", "on", "off", 1.1, (1.05, 1.15), "main", n_combinations=2)
    assert effect_verdict(main, wall) == (
        "AlwaysPreTouch=on (vs off, averaged over the other factors): 10.0% slower (95% CI 5.0% ... 15.0%)")
    inter = Effect("A", "on", "off", 1.1, (1.05, 1.15), "interaction", "B", "on", "off", 1)
    assert effect_verdict(inter, wall) == (
        "A=on with B=on is 10.0% slower than the two effects alone predict (95% CI 5.0% ... 15.0%)")
    none = Effect("A", "on", "off", 1.01, (0.98, 1.03), "interaction", "B", "on", "off", 1)
    assert "no clear interaction" in effect_verdict(none, wall)


def test_verdict_on_a_real_analysis() -> None:
    base = [1.00, 1.02, 0.99, 1.01, 1.00, 0.98, 1.01, 1.02, 0.99, 1.00]
    slow = [v * 1.5 for v in base]
    result = analyze_metric({"base": CellData.of(base), "slow": CellData.of(slow)}, "base", "wall_s")
    assert verdict(result.comparisons[0], get("wall_s")).startswith("slow is 50.0% slower than base (95% CI ")


def test_a_ci_that_excludes_one_without_significance_is_called_inconclusive() -> None:
    from jvmlab.analyze import Comparison
    from jvmlab.metrics import get

    comp = Comparison(cell="on", baseline="off", metric="wall_s", ratio=4.0, ci95=(3.8, 4.3), rel_diff_pct=300.0,
                      p_value=0.33, p_adjusted=0.33, significant=False, n_cell=2, n_baseline=2, paired=False)
    text = verdict(comp, get("wall_s"))
    assert text.startswith("on: inconclusive: perhaps 4.0x slower than off")
    assert "not significant (p=0.33 after correction, n=2 vs 2); add invocations" in text
    assert "no clear difference" not in text


def test_the_table_mark_follows_the_same_rule_as_the_sentence() -> None:
    """JMH printed "1.83x [1.63-2.06] ~": an interval that excludes 1 beside a no-difference mark."""
    metric = get("wall_s")
    unsure = _c(1.83, (1.63, 2.06), False)
    assert short_verdict(unsure, metric) == "inconclusive"
    assert "inconclusive" in verdict(unsure, metric)
    assert short_verdict(_c(1.02, (0.97, 1.08), False), metric) == "~"


def test_cpu_time_beside_a_disturbed_time_is_called_by_the_rule_of_every_verdict() -> None:
    """The verdict beside a disturbed time follows :func:`verdict_kind` (the corrected test
    decides, as `test_disagreeing_test_and_interval_show_signed_interval` says for the main
    verdict), and says "not called either" when the test is not significant."""
    from jvmlab.report.verdicts import beside_text
    from jvmlab.results.compare import VerdictKind, verdict_kind

    clear, edge, none = _c(6.906, (5.714, 7.927), True), _c(1.158, (0.998, 1.356), True), _c(1.05, (0.97, 1.1), False)
    for comp in (clear, edge, none):
        called = verdict_kind(comp, lower_is_better=True) in (VerdictKind.BETTER, VerdictKind.WORSE)
        text = beside_text(get("wall_s"), comp, get("cpu_s"))
        assert ("): called;" in text) == called and ("not called either" in text) == (not called)
    assert "not called either" in beside_text(get("wall_s"), none, get("cpu_s"))
    assert "): called;" in beside_text(get("wall_s"), clear, get("cpu_s"))
