"""The GC log analyzer's summary read as a record (``GcSummary``): the figures the tables show
come back as the analyzer counted them, and an older summary's missing parts read as empty."""

from __future__ import annotations

from pathlib import Path

from jvmlab.gclog import analyze_paths
from jvmlab.model.documents import GcDocument, GcStat, GcSummary

LOG = (
    "[0.010s][info][gc] Using Parallel\n"
    "[1.000s][info][gc,start] GC(0) Pause Young (Allocation Failure)\n"
    "[1.500s][info][gc      ] GC(0) Pause Young (Allocation Failure) 64M->1M(245M) 500.000ms\n"
    "[1.600s][info][gc,start] GC(1) Pause Full (Ergonomics)\n"
    "[1.700s][info][gc      ] GC(1) Pause Full (Ergonomics) 65M->1M(245M) 100.000ms\n"
)


def test_the_record_reads_the_figures_the_analyzer_counted(tmp_path: Path) -> None:
    path = tmp_path / "gc.log"
    path.write_text(LOG)
    [summary] = analyze_paths([path])
    record = GcDocument.of(summary.to_json()).typed
    assert record.collector == summary.collector and record.files == (str(path),)
    assert record.pauses.count == 2 and record.pauses.total_ms == 600.0 and record.pauses.max_ms == 500.0
    assert {k: (s.count, s.total_ms) for k, s in record.pauses.by_kind.items() if s.count} == {
        k: (s.count, round(s.total_ms, 4)) for k, s in summary.by_kind.items() if s.count}
    assert record.span_s == summary.span_s and record.stalls == GcStat()


def test_an_older_summary_without_relocation_stalls_or_pauses_reads_as_empty() -> None:
    record = GcSummary.of({"files": ["gc.log"], "format": "unified", "pauses": {"count": None, "total_ms": None},
                           "stalls": {"count": 2, "total_ms": 3.5}, "pacing": {"count": 0, "total_ms": 0.0}})
    assert record.relocation_stalls == GcStat() and record.stalls == GcStat(2, 3.5)
    assert record.pauses.count is None and record.pauses.by_kind == {} and record.last_pause is None
