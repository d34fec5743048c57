"""The minimum-heap search's progress line: probes expected per cell and the time left."""

from __future__ import annotations

from jvmlab.sizing.eta import ProbeEta, expected_probes
from jvmlab.sizing.minheap import MinHeapSettings, ProbeOutcome, Verdict, find_min_heap

MIB = 1 << 20


def _settings(repeats: int = 3) -> MinHeapSettings:
    return MinHeapSettings(lower_bytes=16 * MIB, upper_bytes=512 * MIB, step_bytes=8 * MIB, repeats=repeats)


def test_the_expected_count_is_what_a_clean_search_makes() -> None:
    """A deterministic boundary anywhere in the range: the search makes the expected number of
    probes, or up to two fewer (a bisection that lands on a bound's side early)."""
    for boundary in (17, 100, 250, 511):
        for repeats in (1, 3, 5):
            settings = _settings(repeats)
            result = find_min_heap(lambda size, b=boundary: ProbeOutcome(
                size, Verdict.PASS if size >= b * MIB else Verdict.OOM, ""), settings)
            assert expected_probes(settings) - 2 <= result.invocations <= expected_probes(settings), \
                (boundary, repeats, result.invocations)


def test_the_line_counts_probes_and_the_time_left() -> None:
    settings = _settings()
    assert expected_probes(settings) == 12  # 2 bounds + 6 halvings of 496 MiB to 8 MiB + 2 x 2 repeats
    eta = ProbeEta(settings, cells=2, started_s=100.0)
    eta.record(0)
    eta.record(0)
    # 2 probes in 10 s; 10 left in cell 0 and 12 in cell 1: 22 x 5 s
    assert eta.line(0, 110.0) == "probe 2 of ~12 in this cell; ~1:50 left (about 22 probes)"


def test_a_cell_past_its_clean_count_expects_more_not_fewer() -> None:
    settings = _settings()
    eta = ProbeEta(settings, cells=1, started_s=0.0)
    for _ in range(13):
        eta.record(0)
    assert eta.expected(0) == 13 + settings.repeats
    assert "probe 13 of ~16" in eta.line(0, 13.0)
