"""The bisection on a fake executor whose answer is read from the heap size (and a seeded coin)."""

from __future__ import annotations

import random

import pytest

from jvmlab.sizing.minheap import MinHeapSettings, ProbeOutcome, ReplayingProbe, Status, Verdict, find_min_heap

MB = 1 << 20


class FakeJvm:
    """Passes at or above ``threshold``; inside ``[threshold - band, threshold)`` passes with
    chance ``p_band`` (a seeded coin): the flaky zone a real GC boundary often has."""

    def __init__(self, threshold: int, band: int = 0, p_band: float = 0.5, seed: int = 0) -> None:
        self.threshold, self.band, self.p_band = threshold, band, p_band
        self.rng = random.Random(seed)
        self.calls = 0

    def __call__(self, size: int) -> ProbeOutcome:
        self.calls += 1
        if size >= self.threshold:
            passed = True
        elif size >= self.threshold - self.band:
            passed = self.rng.random() < self.p_band
        else:
            passed = False
        return ProbeOutcome(size, Verdict.PASS if passed else Verdict.OOM, None if passed else "OOM")


SETTINGS = MinHeapSettings(lower_bytes=8 * MB, upper_bytes=1024 * MB, step_bytes=1 * MB, repeats=5)


@pytest.mark.parametrize("threshold_mb", [9, 37, 64, 65, 500, 1023, 1024])
def test_sharp_threshold_is_found_within_one_step(threshold_mb: int) -> None:
    fake = FakeJvm(threshold_mb * MB)
    result = find_min_heap(fake, SETTINGS)
    assert result.status is Status.FOUND, result.note
    assert result.lower_bytes < threshold_mb * MB <= result.upper_bytes
    assert result.upper_bytes - result.lower_bytes == MB
    assert not result.flaky
    # log2(1016 steps) ~ 10 bisection probes + 2 bounds + 2 x 4 confirmations
    assert result.invocations <= 2 + 11 + 2 * 4
    assert result.confidence == pytest.approx(1 - 2 / 32)  # two ends, 5 repeats


def test_bounds_that_already_decide() -> None:
    assert find_min_heap(FakeJvm(4 * MB), SETTINGS).status is Status.BELOW_LOWER
    above = find_min_heap(FakeJvm(2048 * MB), SETTINGS)
    assert above.status is Status.ABOVE_UPPER and above.lower_bytes is None and above.invocations == 1


@pytest.mark.parametrize("p_band", [0.3, 0.5, 0.7])
def test_flaky_band_is_reported_and_never_excluded(p_band: float) -> None:
    threshold, band = 200 * MB, 12 * MB
    flagged = 0
    for seed in range(100):
        result = find_min_heap(FakeJvm(threshold, band, p_band, seed), SETTINGS)
        assert result.status is Status.FOUND, result.note
        assert all(threshold - band <= s < threshold for s in result.flaky_sizes)
        flagged += result.flaky
        # never an interval below where runs fail every time or above where they always pass
        assert result.lower_bytes < threshold and result.upper_bytes >= threshold - band
    assert flagged > 80  # a 12-step band of coins is nearly always seen


@pytest.mark.parametrize("p_band, crossing_mb", [(0.3, 200), (0.7, 188)])
def test_interval_covers_the_half_pass_size_at_the_stated_confidence(p_band: float, crossing_mb: int) -> None:
    """Seeded simulation: where p(s) crosses 1/2 (the threshold for p_band < 1/2, the band's
    start for p_band > 1/2) lies in (lower, upper] at least as often as the stated confidence."""
    runs, covered, stated = 400, 0, []
    for seed in range(runs):
        r = find_min_heap(FakeJvm(200 * MB, 12 * MB, p_band, seed), SETTINGS)
        covered += r.lower_bytes < crossing_mb * MB <= r.upper_bytes
        stated.append(r.confidence)
    assert covered / runs >= sum(stated) / runs - 0.02


def test_rarely_failing_boundary_is_flagged_when_it_shows() -> None:
    # passes 90% of the time just below the threshold: the upper end moves up when a fail shows
    results = [find_min_heap(FakeJvm(100 * MB, 4 * MB, 0.9, seed), SETTINGS) for seed in range(50)]
    assert all(r.status is Status.FOUND for r in results)
    assert any(r.flaky for r in results)
    assert all(r.upper_bytes >= 96 * MB for r in results)


def test_replay_resumes_without_running_stored_probes() -> None:
    first = find_min_heap(FakeJvm(300 * MB, 8 * MB, 0.5, seed=3), SETTINGS)
    stored = list(first.probes)
    # all stored: no new run, same answer
    fresh = FakeJvm(300 * MB, 8 * MB, 0.5, seed=99)
    replay = ReplayingProbe(stored, fresh)
    again = find_min_heap(replay, SETTINGS)
    assert fresh.calls == 0 and replay.replayed == len(stored)
    assert (again.lower_bytes, again.upper_bytes, again.flaky_sizes) == (first.lower_bytes, first.upper_bytes,
                                                                         first.flaky_sizes)
    # half stored (an interrupted run): the rest is run and handed to on_new
    new: list[ProbeOutcome] = []
    resumed = find_min_heap(ReplayingProbe(stored[: len(stored) // 2], FakeJvm(300 * MB), new.append), SETTINGS)
    assert resumed.status is Status.FOUND and len(new) == resumed.invocations - len(stored) // 2


def test_budget_stops_the_search() -> None:
    settings = MinHeapSettings(8 * MB, 1024 * MB, MB, repeats=5, max_probes=6)
    result = find_min_heap(FakeJvm(300 * MB), settings)
    assert result.status is Status.BUDGET and result.invocations == 6


def test_flaky_upper_bound_is_unconfirmed() -> None:
    settings = MinHeapSettings(8 * MB, 64 * MB, MB, repeats=5)
    result = find_min_heap(FakeJvm(80 * MB, 40 * MB, 0.7, seed=1), settings)
    assert result.status in (Status.UNCONFIRMED, Status.ABOVE_UPPER)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        find_min_heap(FakeJvm(MB), MinHeapSettings(64 * MB, 32 * MB, MB))
