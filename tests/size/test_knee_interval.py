"""Issue 31 item 7: each heap-sweep knee has a bootstrap interval over invocations, or is said
to be not resolved; two knees differ only when their ratio's interval leaves out 1."""

from __future__ import annotations

import numpy as np

from jvmlab.report.heapsweep import knee_sentence
from jvmlab.sizing.results import SweepResult
from jvmlab.sizing.sweep import HeapLevel, compare_knees, curve

MB = 1 << 20
SIZES = [72, 108, 144, 216, 288]
LEVELS = [HeapLevel(f"x{i}", s * MB, None) for i, s in enumerate(SIZES)]


def _values(means: list[float], rng: np.random.Generator, n: int, cv: float) -> dict[str, list[float]]:
    return {f"x{i}": list(m * rng.lognormal(0.0, cv, n)) for i, m in enumerate(means)}


def test_a_clear_knee_has_a_narrow_interval_around_it() -> None:
    c = curve("g", "wall_s", True, LEVELS, _values([2.0, 1.5, 1.2, 1.02, 1.0], np.random.default_rng(1), 10, 0.01))
    k = c.knee_estimate(0.05)
    assert k.resolved and k.point is not None and k.point.heap_bytes == 216 * MB
    assert k.low_bytes is not None and k.high_bytes is not None
    assert k.low_bytes <= 216 * MB <= k.high_bytes and k.high_bytes - k.low_bytes <= (288 - 144) * MB


def test_noisy_means_or_too_few_invocations_are_not_resolved() -> None:
    c = curve("g", "wall_s", True, LEVELS, _values([1.1, 1.05, 1.03, 1.02, 1.0], np.random.default_rng(2), 8, 0.2))
    k = c.knee_estimate(0.05)
    assert not k.resolved and k.reason == "its 95% interval spans every heap size swept"
    three = curve("g", "wall_s", True, LEVELS, _values([2.0, 1.5, 1.2, 1.02, 1.0], np.random.default_rng(3), 3, 0.2))
    assert three.knee_estimate().reason == "fewer than 6 invocations at a heap size"  # n=3 was called before


def test_seeded_knee_interval_covers_the_true_knee() -> None:
    """Seeded: 100 sweeps of a curve whose true knee is 144 MiB (means 1.3, 1.1, 1.04, 1.0, 1.0;
    within 5% from 144 on) at 6 invocations per heap with 3% noise; the knee's interval
    contains 144 MiB in at least 85% of them (a percentile interval over 5 discrete sizes)."""
    rng = np.random.default_rng(31_07)
    covered = 0
    for _ in range(100):
        k = curve("g", "wall_s", True, LEVELS, _values([1.3, 1.1, 1.04, 1.0, 1.0], rng, 6, 0.03)).knee_estimate()
        covered += k.low_bytes is not None and k.high_bytes is not None and k.low_bytes <= 144 * MB <= k.high_bytes
    assert covered >= 85


def test_compare_knees_calls_only_separated_knees() -> None:
    rng = np.random.default_rng(4)
    g1 = curve("G1", "wall_s", True, LEVELS, _values([2.0, 1.5, 1.2, 1.02, 1.0], rng, 8, 0.01))
    par = curve("Par", "wall_s", True, LEVELS, _values([1.6, 1.1, 1.0, 1.0, 1.0], rng, 8, 0.01))
    clear = compare_knees(par, g1)
    assert clear.clear and clear.ratio == 144 / 216 and clear.high is not None and clear.high < 1
    twin = curve("G1b", "wall_s", True, LEVELS, _values([2.0, 1.5, 1.2, 1.02, 1.0], rng, 8, 0.01))
    same = compare_knees(twin, g1)
    assert not same.clear and same.ratio == 1.0


def test_the_report_says_the_interval_or_not_resolved() -> None:
    rng = np.random.default_rng(5)
    clear = curve("clear", "wall_s", True, LEVELS, _values([2.0, 1.5, 1.2, 1.02, 1.0], rng, 10, 0.01))
    noisy = curve("noisy", "wall_s", True, LEVELS, _values([1.1, 1.05, 1.03, 1.02, 1.0], rng, 3, 0.2))  # n=3
    result = SweepResult(1, tuple(LEVELS), 72 * MB, 0.05, "wall_s", {"wall_s": (clear, noisy)})
    assert "knee at 216 MiB (95% interval" in knee_sentence(result, "clear")
    assert knee_sentence(result, "noisy").startswith("noisy: knee not resolved (fewer than 6 invocations")
    doc = result.to_json()
    assert doc["knee_intervals"]["clear"]["resolved"] and not doc["knee_intervals"]["noisy"]["resolved"]
