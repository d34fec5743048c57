"""ZGC allocation stalls: the wall-clock union, not only the sum over threads (issue 31 item 10)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from jvmlab.collect.jfr_parse import stall_wall_ms
from jvmlab.scenarios.why import metric_changes


def _stall(start_s: float, length_s: float) -> dict[str, object]:
    return {"startTime": 1_700_000_000 + start_s, "duration": length_s}


def test_two_threads_stalled_at_once_count_once() -> None:
    events = [_stall(0.0, 0.010), _stall(0.005, 0.010), _stall(1.0, 0.002)]  # 15 ms overlap-merged + 2 ms
    assert stall_wall_ms(events) == pytest.approx(17.0, abs=1e-3)
    assert stall_wall_ms([_stall(0.0, 0.010), _stall(0.0, 0.010)]) == pytest.approx(10.0, abs=1e-3)
    assert stall_wall_ms([{"duration": 0.01}]) is None  # no start: not measurable


@dataclass
class _Stats:
    mean: float | None
    mean_ci95: tuple[float, float] | None = None


@dataclass
class _Cell:
    name: str
    levels: dict[str, str]


@dataclass
class _CellSummary:
    cell: _Cell
    stats: dict[str, _Stats] = field(default_factory=dict)


@dataclass
class _Summary:
    baseline: str
    cells: list[_CellSummary]


def test_the_why_phrase_names_wall_time_and_says_the_sum_is_thread_ms() -> None:
    g1 = _CellSummary(_Cell("G1", {"gc": "G1"}))
    z = _CellSummary(_Cell("ZGC", {"gc": "ZGC"}), {"jfr.alloc_stall_wall_ms": _Stats(9000.0),
                                                   "jfr.alloc_stall_total_ms": _Stats(27581.0)})
    phrases = metric_changes(_Summary("G1", [g1, z]))
    assert phrases[0] == ("ZGC: threads stalled in allocation during 9000 ms of wall time per run "
                          "(27581 thread-ms summed over threads)")
