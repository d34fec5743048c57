"""The span a log's throughput is measured over (issue 31 item 1): from the JVM's start when
the stamps are uptimes, else from the first event's start, to the end of the last event;
the pauses it counts always lie inside it, so the paused share never exceeds 100%.

GCViewer and GCToolKit are the references (gclog/clock.py says where each starts its span);
``test_gcviewer_running_time_on_the_corpus`` checks ours against GCViewer's own asserted
figures from ``../shared/gclogs/EXPECTED.tsv`` and skips when the corpus is absent.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

from jvmlab.gclog import analyze_paths, summary_metrics

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("JVMLAB_GCLOGS", REPO.parent / "shared" / "gclogs"))

# The reproduction: span was 200 ms (end of the first pause to the last stamp),
# pauses 600 ms: "300% of span", throughput 0.00%.
PARALLEL = (
    "[0.010s][info][gc] Using Parallel\n"
    "[1.000s][info][gc,start] GC(0) Pause Young (Allocation Failure)\n"
    "[1.500s][info][gc      ] GC(0) Pause Young (Allocation Failure) 64M->1M(245M) 500.000ms\n"
    "[1.600s][info][gc,start] GC(1) Pause Young (Allocation Failure)\n"
    "[1.700s][info][gc      ] GC(1) Pause Young (Allocation Failure) 65M->1M(245M) 100.000ms\n"
)


def _doc(tmp_path: Path, text: str, name: str = "gc.log") -> dict:
    path = tmp_path / name
    path.write_text(text)
    [summary] = analyze_paths([path])
    return summary.to_json()


def test_span_starts_at_the_jvm_start_with_uptime(tmp_path: Path) -> None:
    doc = _doc(tmp_path, PARALLEL)
    assert doc["span_from"] == "jvm_start"
    assert doc["span_s"] == pytest.approx(1.7)
    assert doc["throughput_pct"] == pytest.approx(100.0 * (1 - 0.6 / 1.7), abs=1e-3)


def test_fragment_span_starts_at_the_first_event_start(tmp_path: Path) -> None:
    # A rotated file that begins an hour into the run: the hour before is not in the log.
    text = PARALLEL.replace("[1.", "[3601.").replace("[0.010s]", "[3600.010s]")
    doc = _doc(tmp_path, text)
    assert doc["span_from"] == "first_event"
    assert doc["span_s"] == pytest.approx(0.7)  # first pause started at 3601.000 s, last ended 3601.700 s
    assert doc["throughput_pct"] == pytest.approx(100.0 * (1 - 0.6 / 0.7), abs=1e-3)


def test_wall_clock_only_log_starts_at_the_first_event_start(tmp_path: Path) -> None:
    text = (
        "[2024-01-01T10:00:01.500+0000][info][gc] GC(0) Pause Young (Allocation Failure) 64M->1M(245M) 500.000ms\n"
        "[2024-01-01T10:00:01.700+0000][info][gc] GC(1) Pause Young (Allocation Failure) 65M->1M(245M) 100.000ms\n"
    )
    doc = _doc(tmp_path, text)
    assert doc["span_from"] == "first_event"
    assert doc["span_s"] == pytest.approx(0.7)
    assert 0.0 <= doc["throughput_pct"] <= 100.0


def test_paused_share_never_exceeds_the_span(tmp_path: Path) -> None:
    path = tmp_path / "gc.log"
    path.write_text(PARALLEL)
    [summary] = analyze_paths([path])
    paused = summary_metrics(summary)["gc.paused_pct"]
    assert paused == pytest.approx(100.0 * 0.6 / 1.7)
    assert summary.span_s is not None and summary.pauses.total / 1000.0 <= summary.span_s


def test_terminal_says_where_the_span_starts(tmp_path: Path) -> None:
    from jvmlab.report.gcrows import ROWS, summary_of

    doc = summary_of(_doc(tmp_path, PARALLEL))  # the rows read the summary as a record
    cells = {label: cell(doc) for label, cell in ROWS}
    assert "from JVM start" in cells["gc.span_s"]
    assert "35.3% of span" in cells["gc.held_total_ms"]


def _corpus_files() -> list[Path]:
    skip = (".tsv", ".md", ".txt.license")
    return sorted(p for p in SHARED.rglob("*") if p.is_file() and "licenses" not in p.parts
                  and not p.name.endswith(skip) and p.name not in ("README.md",))


@pytest.mark.skipif(not (SHARED / "EXPECTED.tsv").is_file(), reason="shared GC log corpus not present")
def test_no_corpus_log_is_paused_more_than_its_span() -> None:
    from jvmlab.errors import UserError

    checked = 0
    for path in _corpus_files():
        try:
            summaries = analyze_paths([path])
        except UserError:
            continue  # not a GC log format we read (JRockit, Go, ...)
        for s in summaries:
            doc = s.to_json()
            if doc["throughput_pct"] is not None:
                checked += 1
                assert 0.0 <= doc["throughput_pct"] <= 100.0, path
                assert s.pauses.total / 1000.0 <= s.span_s * (1 + 1e-9), path  # type: ignore[operator]
    assert checked > 100


def _gcviewer_rows() -> list[dict[str, str]]:
    with (SHARED / "EXPECTED.tsv").open() as fh:
        return [r for r in csv.DictReader(fh, delimiter="\t") if "GCViewer" in r["where_asserted"]]


@pytest.mark.skipif(not (SHARED / "EXPECTED.tsv").is_file(), reason="shared GC log corpus not present")
def test_gcviewer_running_time_on_the_corpus() -> None:
    """GCViewer's running time is first event start to last event end (GCModel.getRunningTime);
    ours from the JVM start is that plus the first event's uptime, and on GCViewer's basis our
    throughput is GCViewer's wherever the pause totals agree."""
    rows = _gcviewer_rows()
    by_file: dict[str, dict[str, float]] = {}
    for r in rows:
        by_file.setdefault(r["file"], {})[r["metric"]] = float(r["value"])
    checked = 0
    for name, ref in by_file.items():
        if "throughput_pct" not in ref:
            continue
        [summary] = analyze_paths([SHARED / name])
        doc = summary.to_json()
        assert doc["span_from"] == "jvm_start" and doc["jvm_runs"] == 1
        gcv_pause_s = ref.get("total_pause_time_s")
        runtime = ref.get("total_runtime_s")
        if runtime is None and gcv_pause_s is not None:
            runtime = gcv_pause_s / (1 - ref["throughput_pct"] / 100.0)
        assert runtime is not None
        # legacy stamps are event starts: GCViewer's span is ours less the time before the first event
        ours_gcv_basis = doc["span_s"] - doc["first_event_s"]
        assert ours_gcv_basis == pytest.approx(runtime, rel=1e-3), name
        paused_s = doc["pauses"]["total_ms"] / 1000.0
        if gcv_pause_s is not None and paused_s == pytest.approx(gcv_pause_s, rel=1e-6):
            assert 100.0 * (1 - paused_s / ours_gcv_basis) == pytest.approx(ref["throughput_pct"], abs=0.01)
        # from the JVM start the span is longer, so the throughput is at least GCViewer's basis
        assert doc["throughput_pct"] >= 100.0 * (1 - paused_s / ours_gcv_basis) - 1e-9
        checked += 1
    assert checked >= 2


def test_fragment_of_one_pause_has_no_throughput(tmp_path: Path) -> None:
    # A JDK 8 record 2 h into the run, alone: its span is the pause itself; "0% throughput"
    # would be a figure about nothing.
    text = ("7200.000: [GC (Allocation Failure) 7200.000: [ParNew: 8678K->1081K(9792K), 0.0088699 secs] "
            "8678K->8064K(31680K), 0.0106548 secs] [Times: user=0.02 sys=0.00, real=0.01 secs]\n")
    doc = _doc(tmp_path, text)
    assert doc["span_from"] == "first_event" and doc["span_s"] == pytest.approx(0.0107, abs=1e-4)
    assert doc["throughput_pct"] is None and "nothing but pauses" in doc["throughput_not_measured"]
