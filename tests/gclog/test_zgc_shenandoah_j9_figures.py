"""ZGC's heap table, Shenandoah's Trigger lines and OpenJ9's concurrent phases: read into
heap_settings_mb / heap_max_mb, collections_by_cause and concurrent_phases."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from jvmlab.gclog import analyze_paths, linescan
from jvmlab.gclog.triggers import trigger_cause

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("JVMLAB_GCLOGS", REPO.parent / "shared" / "gclogs"))

ZGC_LOG = """\
[0.107s][info][gc,init] Min Capacity: 1000M
[0.107s][info][gc,init] Initial Capacity: 1000M
[0.107s][info][gc,init] Max Capacity: 1000M
[0.111s][info][gc     ] Using The Z Garbage Collector
[0.918s][info][gc,start    ] GC(0) Garbage Collection (Warmup)
[0.918s][info][gc,phases   ] GC(0) Pause Mark Start 0.007ms
[0.950s][info][gc,heap     ] GC(0) Min Capacity: 1000M(100%)
[0.950s][info][gc,heap     ] GC(0) Max Capacity: 1000M(100%)
[0.950s][info][gc,heap     ] GC(0) Soft Max Capacity: 800M(80%)
[0.950s][info][gc,heap     ] GC(0)                Mark Start          Mark End        Relocate Start      Relocate End           High               Low
[0.950s][info][gc,heap     ] GC(0)  Capacity:      900M (90%)        1000M (100%)       1000M (100%)       1000M (100%)       1000M (100%)        900M (90%)
[0.950s][info][gc,heap     ] GC(0)      Free:      796M (80%)         792M (79%)         802M (80%)         812M (81%)         812M (81%)         792M (79%)
[0.950s][info][gc,heap     ] GC(0)      Used:      104M (10%)         208M (21%)          98M (10%)          88M (9%)          208M (21%)          88M (9%)
[0.950s][info][gc          ] GC(0) Garbage Collection (Warmup) 104M(10%)->88M(9%)
"""

SHENANDOAH_LOG = """\
[0.010s][info][gc] Using Shenandoah
[1.466s][info][gc] Trigger: Learning 1 of 5. Free (2767M) is below initial threshold (2767M)
[1.466s][info][gc,start] GC(0) Concurrent reset
[1.470s][info][gc] GC(0) Concurrent reset 4.000ms
[1.471s][info][gc] GC(0) Pause Init Mark 0.500ms
[1.480s][info][gc] GC(0) Concurrent marking 9.000ms
[1.481s][info][gc] GC(0) Pause Final Mark 0.700ms
[2.000s][info][gc] Trigger: Free (812M) is below minimum threshold (819M)
[2.004s][info][gc] GC(1) Concurrent reset 4.000ms
[2.010s][info][gc] GC(1) Concurrent marking 6.000ms
[3.000s][info][gc] Trigger: Handle Allocation Failure
[3.020s][info][gc] GC(2) Pause Degenerated GC (Outside of Cycle) 1000M->500M(2048M) 20.000ms
[4.000s][info][gc] Trigger: Free (800M) is below minimum threshold (819M)
[4.004s][info][gc] GC(3) Concurrent reset 4.000ms
"""


@pytest.fixture(params=["compiled", "python"])
def path_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setenv(linescan.ENV_SWITCH, "0")
    elif linescan.prefilter() is None:
        pytest.skip("no C compiler")
    return str(request.param)


def test_trigger_cause_drops_the_figures_keeps_the_reason() -> None:
    assert trigger_cause("Trigger: Free (812M) is below minimum threshold (819M)") == \
        "Free is below minimum threshold"
    assert trigger_cause("Trigger: Learning 3 of 5. Free (5732M) is below initial threshold (5734M)") == \
        "Learning: Free is below initial threshold"
    assert trigger_cause("Trigger (Global): GC request (System.gc())") == "GC request (System.gc())"
    assert trigger_cause("Trigger: Handle Allocation Failure") == "Handle Allocation Failure"
    assert trigger_cause("Triggered something") is None


def test_zgc_heap_table_gives_settings_committed_and_peak(tmp_path: Path, path_kind: str) -> None:
    log = tmp_path / "zgc.log"
    log.write_text(ZGC_LOG)
    doc = analyze_paths([log])[0].to_json()
    assert doc["heap_settings_mb"] == {"heap_initial_mb": 1000.0, "heap_max_mb": 1000.0,
                                       "heap_min_mb": 1000.0, "heap_soft_max_mb": 800.0}
    # committed: the largest Capacity in the table; used: the High column (208M), above the
    # summary line's before/after (104M -> 88M)
    assert doc["heap_max_mb"]["committed"] == 1000.0
    assert doc["heap_max_mb"]["used"] == 208.0
    assert doc["heap_max_mb"]["after_gc"] == 88.0


def test_shenandoah_triggers_are_the_causes_of_the_next_collection(tmp_path: Path, path_kind: str) -> None:
    log = tmp_path / "shen.log"
    log.write_text(SHENANDOAH_LOG)
    doc = analyze_paths([log])[0].to_json()
    causes = {k: v["count"] for k, v in doc["collections_by_cause"].items()}
    assert causes == {"Learning: Free is below initial threshold": 1, "Free is below minimum threshold": 2,
                      "Handle Allocation Failure": 1}
    assert doc["collections_by_cause"]["Handle Allocation Failure"]["total_ms"] == 20.0  # the degenerated GC
    assert doc["collections_by_cause"]["Learning: Free is below initial threshold"]["total_ms"] == 13.0


def _shared(rel: str) -> Path:
    path = SHARED / rel
    if not path.is_file():
        pytest.skip(f"no {rel} in {SHARED} (set JVMLAB_GCLOGS)")
    return path


def _table_figures(path: Path) -> tuple[float, float]:
    """(largest Capacity, largest Used High) read independently from the whole-heap rows."""
    cap, high = 0.0, 0.0
    for line in path.read_text().splitlines():
        m = re.search(r"\) (?:[YO]: )? *(Capacity|Used):((?:\s+\d+M \(\s*\d+%\)){6})\s*$", line)
        if m:
            cols = [float(c) for c in re.findall(r"(\d+)M", m[2])]
            if m[1] == "Capacity":
                cap = max(cap, *cols)
            else:
                high = max(high, cols[4])
    return cap, high


@pytest.mark.parametrize("rel", ["gcgc/datasets/ZGC.log.0", "gcgc/datasets/GenZGC.log",
                                 "jifa/analysis/gc-log/src/test/resources/17ZGCParser.log",
                                 "jifa/analysis/gc-log/src/test/resources/11ZGCParser.log"])
def test_corpus_zgc_tables(rel: str) -> None:
    path = _shared(rel)
    doc = analyze_paths([path])[0].to_json()
    cap, high = _table_figures(path)
    assert cap > 0 and high > 0
    assert doc["heap_max_mb"]["committed"] == cap
    assert doc["heap_max_mb"]["used"] >= high  # the High column, or a larger before/after
    if "Soft Max Capacity" in path.read_text():
        soft = re.search(r"Soft Max Capacity: (\d+)M", path.read_text())
        assert soft is not None and doc["heap_settings_mb"]["heap_soft_max_mb"] == float(soft[1])


@pytest.mark.parametrize("rel", [
    "gcgc/datasets/ShenandoahGC.log",
    "gctoolkit-testdata/gctoolkit-shenandoah-logs/shenandoah/shenandoah.log.0",
    "gcviewer/src/test/resources/openjdk/unified-jvm-logging/Sample-ujl-shenandoah-jdk11.txt",
])
def test_corpus_shenandoah_every_trigger_is_one_collection_cause(rel: str) -> None:
    path = _shared(rel)
    doc = analyze_paths([path])[0].to_json()
    triggers = [trigger_cause(line.split("] ", 1)[-1].split("]")[-1].strip())
                for line in path.read_text().splitlines() if "Trigger" in line]
    expected: dict[str, int] = {}
    for cause in triggers:
        assert cause is not None
        expected[cause] = expected.get(cause, 0) + 1
    assert {k: v["count"] for k, v in doc["collections_by_cause"].items()} == expected


def test_corpus_jdk8_shenandoah_triggers() -> None:
    path = _shared("gcviewer/src/test/resources/openjdk/SampleOpenJdk1_8_0-332.txt")
    doc = analyze_paths([path])[0].to_json()
    assert doc["concurrent_cycles"]["count"] == 2
    assert {k: v["count"] for k, v in doc["collections_by_cause"].items()} == {
        "Learning: Free is below initial threshold": 1, "Free is below minimum threshold": 1}


def test_corpus_openj9_concurrent_phases() -> None:
    collection = _shared("gcviewer/src/test/resources/ibm/SampleIBMJ9_R28_concurrent_collection.txt")
    doc = analyze_paths([collection])[0].to_json()
    # <concurrent-collection-start timestamp="...15:14:56.114"> to -end "...15:14:57.292"
    assert doc["concurrent_phases"] == {"concurrent-collection": {"count": 1, "total_ms": 1178.0, "max_ms": 1178.0}}
    kickoff = _shared("gcviewer/src/test/resources/ibm/SampleIBMJ9_R28_concurrentMinimal.txt")
    doc = analyze_paths([kickoff])[0].to_json()
    assert doc["concurrent_phases"]["concurrent-kickoff"]["count"] == 1
    assert doc["collections_by_cause"] == {"threshold reached": {"count": 1, "total_ms": 0.0, "max_ms": 0.0}}
    assert doc["concurrent_cycles"]["count"] == 1


def test_openj9_kickoff_at_the_end_of_a_truncated_log_still_counts(tmp_path: Path) -> None:
    log = tmp_path / "verbosegc.xml"
    log.write_text('<verbosegc xmlns="http://www.ibm.com/j9/verbosegc" version="R28_Java8_GA">\n'
                   '<concurrent-kickoff id="1" timestamp="2016-08-09T15:35:46.017">\n')
    doc = analyze_paths([log])[0].to_json()
    assert doc["concurrent_phases"]["concurrent-kickoff"]["count"] == 1
    assert doc["concurrent_cycles"]["count"] == 1
    assert doc["collections_by_cause"] is None  # the reason was cut off


def test_zgc_cycle_without_sizes_takes_before_and_after_from_its_table(tmp_path: Path) -> None:
    from jvmlab.gclog import iter_events

    log = tmp_path / "zgc.log"
    log.write_text(ZGC_LOG + """\
[2.000s][info][gc,start    ] GC(1) Minor Collection (Allocation Rate)
[2.010s][info][gc,heap     ] GC(1) Y:  Capacity:      900M (90%)         900M (90%)         950M (95%)         950M (95%)         950M (95%)         900M (90%)
[2.010s][info][gc,heap     ] GC(1) Y:      Used:      300M (30%)         320M (32%)         200M (20%)         150M (15%)         330M (33%)         150M (15%)
[2.010s][info][gc,heap     ] GC(1) Y:      Used:      300M (30%)         320M (32%)         200M (20%)         150M (15%)
[2.010s][info][gc          ] GC(1) Minor Collection (Allocation Rate) 0.010s
""")
    cycles = [e for e in iter_events(log) if e.type == "cycle"]
    assert [(e.heap_before_mb, e.heap_after_mb, e.heap_committed_mb, e.heap_peak_mb) for e in cycles] == [
        (104.0, 88.0, 1000.0, 208.0),   # sizes from the summary line, committed and peak from the table
        (300.0, 150.0, 950.0, 330.0)]   # no sizes on the line: Used at Mark Start / Relocate End
