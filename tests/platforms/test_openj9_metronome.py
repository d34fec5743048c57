"""OpenJ9 metronome: heartbeat summaries of quanta become pauses with the logged count, total,
shortest and longest; a synchronous GC is one full pause (tests/data/jvms/openj9-gc)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from jvmlab.gclog import analyze_paths, iter_events
from jvmlab.gclog.j9_metronome import quanta_pauses

LOGS = Path(__file__).resolve().parent.parent / "data" / "jvms" / "openj9-gc"


def test_current_layout_heartbeats_and_a_syncgc_by_hand():
    events = [e for e in iter_events(LOGS / "metronome.xml") if e.type == "pause"]
    # heartbeat 1: 4 quanta, min 0.4, mean 1.0, max 2.0 -> 0.4, 2.0 and two of (4.0 - 2.4) / 2 = 0.8
    assert [e.duration_ms for e in events[:4]] == pytest.approx([0.4, 2.0, 0.8, 0.8])
    assert {e.name for e in events[:4]} == {"metronome quantum (mark)"}
    assert events[4].duration_ms == pytest.approx(0.5) and events[4].name == "metronome quantum (sweep)"
    sync = events[5]
    assert (sync.kind, sync.name, sync.cause) == ("full", "syncgc", "out of memory")
    assert sync.duration_ms == pytest.approx(25.125)
    assert [e.t_s for e in events] == [0.0] * 4 + [1.0, 2.0]  # seconds after the first heartbeat
    (summary,) = analyze_paths([LOGS / "metronome.xml"])
    assert summary.pauses.count == 6 and summary.pauses.max == pytest.approx(25.125)
    assert summary.by_kind["other"].count == 5 and summary.by_kind["other"].total_ms == pytest.approx(4.5)
    assert summary.unparsed_lines == 0


def test_older_j9_heartbeat_layout_by_hand():
    events = list(iter_events(LOGS / "metronome-legacy.xml"))
    # 3 quanta: 0.25, 3.0 and 3 * 1.25 - 3.25 = 0.5; then 2 quanta: 0.75 and 1.25
    assert [e.duration_ms for e in events] == pytest.approx([0.25, 3.0, 0.5, 0.75, 1.25])
    assert [e.t_s for e in events] == [0.0] * 3 + [1.0] * 2
    (summary,) = analyze_paths([LOGS / "metronome-legacy.xml"])
    assert summary.format == "openj9-xml" and summary.pauses.count == 5 and summary.unparsed_lines == 0


@pytest.mark.parametrize("seed", range(20))
def test_reconstructed_quanta_keep_count_total_min_and_max(seed):
    # Seeded simulation of one heartbeat: OpenJ9 logs min, mean and max of the quanta in whole
    # microseconds (the mean truncated), so the total is exact to count x 1 us.
    rng = random.Random(seed)
    quanta_us = [rng.randint(100, 5000) for _ in range(rng.randint(1, 400))]
    n, lo, hi = len(quanta_us), min(quanta_us), max(quanta_us)
    mean_us = sum(quanta_us) // n
    pauses = quanta_pauses(7.0, n, lo / 1000, mean_us / 1000, hi / 1000, "mark")
    durations = [p.duration_ms for p in pauses]
    assert len(pauses) == n and all(p.t_s == 7.0 and p.kind == "other" for p in pauses)
    assert min(durations) == pytest.approx(lo / 1000) and max(durations) == pytest.approx(hi / 1000)
    assert sum(durations) == pytest.approx(sum(quanta_us) / 1000, abs=n / 1000)


def test_impossible_heartbeats_are_refused_not_expanded():
    assert quanta_pauses(None, 0, 0.0, 0.0, 0.0) == []
    with pytest.raises(ValueError):
        quanta_pauses(None, 10**9, 0.1, 0.2, 0.3)  # a damaged count: no billion events
    with pytest.raises(ValueError):
        quanta_pauses(None, 3, 2.0, 1.0, 1.0)  # shortest above longest


def test_metronome_percentiles_are_not_measured_and_say_why(capsys):
    import json

    from jvmlab.cli.main import main
    from jvmlab.gclog.summary import summary_metrics

    (summary,) = analyze_paths([LOGS / "metronome.xml"])
    metrics = summary_metrics(summary)
    assert metrics["gc.pause_count"] == 6 and metrics["gc.pause_max_ms"] == pytest.approx(25.125)
    assert "gc.pause_p50_ms" not in metrics and "gc.pause_p99_ms" not in metrics
    with pytest.raises(SystemExit) as done:
        main(["gc", "analyze", "--json", str(LOGS / "metronome.xml")])
    assert done.value.code == 0
    (log,) = json.loads(capsys.readouterr().out)["logs"]
    pauses = log["pauses"]
    assert pauses["p50_ms"] is None and pauses["p99_ms"] is None and pauses["count"] == 6
    assert "percentiles are not" in pauses["percentiles_not_measured"]
    # a policy that logs each pause keeps its percentiles and has no such note
    (gencon,) = analyze_paths([LOGS / "gencon.xml"])
    assert gencon.percentiles_unmeasured is None and "gc.pause_p50_ms" in summary_metrics(gencon)
