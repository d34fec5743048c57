"""Reading, grouping, format detection, sketches and clocks on small real fragments."""

from __future__ import annotations

import gzip
import math
import random
import zipfile
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.gclog import analyze_paths, iter_events, summary_metrics
from jvmlab.gclog.sketch import PauseSketch

DATA = Path(__file__).resolve().parents[1] / "data" / "gclogs"
G1_ONELINE = DATA / "jdk17-g1-oneline.log"

LEGACY_CMS = """\
OpenJDK 64-Bit Server VM (25.342-b07) for linux-amd64 JRE (1.8.0_342-b07), built on Jul 16 2022
CommandLine flags: -XX:InitialHeapSize=33554432 -XX:MaxHeapSize=536870912 -XX:+UseConcMarkSweepGC
0.169: [GC (Allocation Failure) 0.170: [ParNew: 8678K->1081K(9792K), 0.0088699 secs] 8678K->8064K(31680K), 0.0106548 secs] [Times: user=0.02 sys=0.00, real=0.01 secs]
0.197: [GC (CMS Initial Mark) [1 CMS-initial-mark: 15645K(21888K)] 18533K(31680K), 0.0010369 secs] [Times: user=0.00 sys=0.00, real=0.00 secs]
0.199: [CMS-concurrent-mark-start]
0.201: [GC (Allocation Failure) 0.201: [ParNew0.212: [CMS-concurrent-mark: 0.005/0.013 secs] [Times: user=0.01 sys=0.01, real=0.02 secs]
: 9746K->1056K(9792K), 0.0062763 secs] 25391K->25378K(34560K), 0.0073592 secs] [Times: user=0.01 sys=0.01, real=0.01 secs]
0.229: [GC (CMS Final Remark) [YG occupancy: 1868 K (9792 K)]0.230: [Rescan (parallel) , 0.0007821 secs][1 CMS-remark: 41674K(42048K)] 43542K(51840K), 0.0039463 secs] [Times: user=0.01 sys=0.00, real=0.01 secs]
0.234: [CMS-concurrent-sweep-start]
0.234: [CMS-concurrent-sweep: 0.000/0.000 secs] [Times: user=0.00 sys=0.00, real=0.00 secs]
0.300: [Full GC (System.gc()) 0.300: [CMS: 41674K->20000K(42048K), 0.0500000 secs] 43542K->20000K(51840K), [Metaspace: 3000K->3000K(1056768K)], 0.0500000 secs] [Times: user=0.05 sys=0.00, real=0.05 secs]
"""

J9 = """<?xml version="1.0" ?>
<verbosegc xmlns="http://www.ibm.com/j9/verbosegc" version="R28_Java8_GA">
<gc-start id="5" type="scavenge" contextid="4" timestamp="2015-12-31T15:22:46.957">
</gc-start>
<gc-end id="8" type="scavenge" contextid="4" durationms="25.007" timestamp="2015-12-31T15:22:46.982">
  <mem-info id="9" free="1048576" total="4194304" percent="25" />
</gc-end>
<gc-end id="9" type="global" contextid="4" durationms="5.5" timestamp="2015-12-31T15:22:47.982">
</gc-end>
</verbosegc>
"""


def test_legacy_cms_interleaved_concurrent_phase(tmp_path: Path) -> None:
    log = tmp_path / "gc.log"
    log.write_text(LEGACY_CMS)
    (s,) = analyze_paths([log])
    j = s.to_json()
    assert (j["format"], j["collector"], j["jvm_version"]) == ("hotspot-legacy", "CMS", "1.8.0_342-b07")
    kinds = {k: v["count"] for k, v in j["pauses"]["by_kind"].items()}
    assert kinds == {"young": 2, "mixed": 0, "full": 1, "remark": 1, "cleanup": 0, "initial_mark": 1, "degenerated": 0,
                     "other": 0}
    assert j["pauses"]["total_ms"] == pytest.approx(10.6548 + 1.0369 + 7.3592 + 3.9463 + 50.0)
    assert j["concurrent_cycles"] == {"count": 1, "total_ms": 13.0}
    assert j["heap_settings_mb"] == {"heap_initial_mb": 32.0, "heap_max_mb": 512.0}
    full = next(e for e in iter_events(log) if e.kind == "full")
    assert (full.cause, full.heap_before_mb, full.heap_after_mb) == ("System.gc()", 43542 / 1024, 20000 / 1024)
    assert j["promotion_rate_mb_s"] is not None and j["unparsed_lines"] == 0


def test_j9_xml(tmp_path: Path) -> None:
    log = tmp_path / "verbosegc.xml"
    log.write_text(J9)
    (s,) = analyze_paths([log])
    events = list(iter_events(log))
    assert s.format == "openj9-xml" and s.pause_count == 2
    assert [(e.kind, e.duration_ms) for e in events] == [("young", 25.007), ("full", 5.5)]
    assert events[0].heap_after_mb == 3.0 and events[1].t_s == pytest.approx(1.0)


def test_gz_zip_and_rotated_set_read_as_one(tmp_path: Path) -> None:
    lines = G1_ONELINE.read_text().splitlines(keepends=True)
    half = len(lines) // 2
    # Rotation numbers wrap: .1 holds the older half, .0 the newer one.
    (tmp_path / "gc.log.1").write_text("".join(lines[:half]))
    with gzip.open(tmp_path / "gc.log.0.gz", "wt") as fh:
        fh.write("".join(lines[half:]))
    with zipfile.ZipFile(tmp_path / "other.log.zip", "w") as zf:
        zf.writestr("other.log", G1_ONELINE.read_text())
    summaries = analyze_paths([tmp_path / "gc.log.0.gz", tmp_path / "gc.log.1", tmp_path / "other.log.zip"])
    assert len(summaries) == 2
    rotated, whole = summaries
    assert [f.name for f in rotated.files] == ["gc.log.1", "gc.log.0.gz"]
    (reference,) = analyze_paths([G1_ONELINE])
    assert rotated.pause_count == whole.pause_count == reference.pause_count
    assert rotated.span_s == pytest.approx(reference.span_s)


def test_concatenated_copies_keep_time_moving(tmp_path: Path) -> None:
    log = tmp_path / "twice.log"
    log.write_text(G1_ONELINE.read_text() * 2)
    (one,) = analyze_paths([G1_ONELINE])
    (two,) = analyze_paths([log])
    assert two.pause_count == 2 * one.pause_count
    assert two.span_s > 1.9 * one.span_s
    times = [e.t_s for e in iter_events(log)]
    assert times == sorted(times)


@pytest.mark.parametrize("content,needle", [
    ("hello world\nthis is not a log\n", "not a GC log"),
    ("", "empty"),
    ("[INFO ][memory ] GC mode: Garbage collection optimized for throughput\n", "JRockit"),
])
def test_not_a_gc_log_is_one_clear_user_error(tmp_path: Path, content: str, needle: str) -> None:
    bad = tmp_path / "x.log"
    bad.write_text(content)
    with pytest.raises(UserError) as info:
        analyze_paths([bad])
    assert needle in str(info.value) and str(bad) in str(info.value) and "\n" not in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        analyze_paths([tmp_path / "nope.log"])


def test_decorators_in_any_order(tmp_path: Path) -> None:
    body = ["GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(256M) 3.500ms",
            "GC(1) Pause Full (System.gc()) 30M->2M(256M) 12.250ms"]
    # span: from the JVM start (uptime 0) to the last stamp; wall-clock-only stamps: from the
    # first pause's start (its end stamp less 3.5 ms)
    decos = [("[2024-01-01T00:00:01.000+0000][1234][5678][info][gc]", "[2024-01-01T00:00:03.000+0000][1234][5678][info][gc]",
              2.0035),
             ("[gc][info][1500ms]", "[gc][info][3500ms]", 3.5),
             ("[1704067201000ms][info][2.0s]", "[1704067203000ms][info][4.0s]", 4.0),
             ("[0,500s][info][gc]", "[2,500s][info][gc]", 2.5),
             ("[1500000000ns]", "[3500000000ns]", 3.5)]
    for i, (a, b, span) in enumerate(decos):
        log = tmp_path / f"d{i}.log"
        log.write_text(f"{a} Using G1\n{a} {body[0]}\n{b} {body[1]}\n")
        (s,) = analyze_paths([log])
        assert s.pause_count == 2 and s.collector == "G1", a
        assert s.span_s == pytest.approx(span), a
        events = list(iter_events(log))
        assert [e.kind for e in events] == ["young", "full"] and events[1].cause == "System.gc()"


def test_unparsed_lines_counted_with_samples(tmp_path: Path) -> None:
    log = tmp_path / "g.log"
    log.write_text(G1_ONELINE.read_text() + "garbage line\n\x00\x01 binary\n")
    (s,) = analyze_paths([log])
    assert s.unparsed_lines == 2 and s.unparsed_samples[0] == "garbage line"


def test_summary_metrics_omit_unknowns() -> None:
    (zgc,) = analyze_paths([DATA / "jdk17-zgc-oneline.log"])
    m = summary_metrics(zgc)
    assert "gc.pause_count" not in m and "gc.paused_pct" not in m  # -Xlog:gc hides ZGC pauses
    assert m["gc.stall_count"] > 0 and m["gc.concurrent_cycles"] > 0
    (g1,) = analyze_paths([G1_ONELINE])
    m = summary_metrics(g1, wall_s=10.0)
    assert "gc.stall_count" not in m and "gc.pacing_total_ms" not in m
    assert m["gc.paused_pct"] == pytest.approx(g1.pauses.total / 1000 / 10.0 * 100)


def test_sketch_exact_then_bounded_error() -> None:
    rng = random.Random(7)
    values = [rng.lognormvariate(0, 2) for _ in range(50_000)]
    exact = PauseSketch()
    small = PauseSketch(exact_cap=1000)
    for v in values:
        exact.add(v)
        small.add(v)
    assert exact.exact and not small.exact
    ordered = sorted(values)
    for q in (0.5, 0.9, 0.99):
        truth = ordered[math.ceil(q * len(values)) - 1]
        assert exact.quantile(q) == truth
        assert small.quantile(q) == pytest.approx(truth, rel=0.006)
    assert small.max == max(values) and small.total == pytest.approx(sum(values))


def test_header_lines_are_found_before_the_first_gc_and_after_a_restart() -> None:
    from jvmlab.gclog.unified import header_spans, plain_matches

    chunk = ("[0.001s][info][gc] Using G1\n[0.002s][info][gc] GC(0) Pause Young (Normal) 10M->2M(64M) 1.000ms\n"
             + "[1.000s][info][gc] GC(1) Pause Young (Normal) 10M->2M(64M) 1.000ms\n" * 50
             + "[0.001s][info][gc] Using Parallel\n[0.002s][info][gc] GC(0) Pause Young 10M->2M(64M) 1.000ms\n")
    spans = header_spans(chunk)
    assert len(spans) == 3 and spans[0][0] == 0
    found = [m["m"] for _, m in sorted(plain_matches(chunk), key=lambda x: x[0])]
    assert found == ["Using G1", "Using Parallel"]


def test_jdk8_shenandoah_pauses_cycles_and_pacing() -> None:
    """The format GCViewer 1.36 reads as 33 s of pauses: these lines hold 8.8 ms."""
    from jvmlab.gclog import events as ev
    from jvmlab.gclog.legacy import LegacyParser

    log = """CommandLine flags: -XX:+PrintGCDetails -XX:+UseShenandoahGC
2022-08-17T16:20:47.680+0800: 2.464: [Concurrent reset, start]
2022-08-17T16:20:47.680+0800: 2.464: [Concurrent reset, 0.333 ms]
2022-08-17T16:20:47.685+0800: 2.469: [Pause Init Mark (process weakrefs), start]
    Using 2 of 2 workers for init marking
2022-08-17T16:20:47.688+0800: 2.472: [Pause Init Mark (process weakrefs), 3.341 ms]
2022-08-17T16:20:48.555+0800: 3.338: [Concurrent marking (process weakrefs), 866.393 ms]
2022-08-17T16:20:48.561+0800: 3.344: [Pause Final Mark (process weakrefs), 4.423 ms]
2022-08-17T16:20:48.561+0800: 3.344: [Concurrent cleanup 1613M->1361M(1636M), 0.092 ms]
2022-08-17T16:20:48.776+0800: 3.559: [Pause Init Update Refs, 0.027 ms]
2022-08-17T16:20:49.655+0800: 4.439: [Pause Final Update Refs, 0.267 ms]
Allocation pacing accrued:
     11 of 23607 ms (  0.0%): <total>
2022-08-17T16:20:50.680+0800: 5.464: [Concurrent reset, 0.300 ms]
2022-08-17T16:20:51.000+0800: 5.800: [Pause Full (System.gc()) 100M->20M(200M), 700.000 ms]
"""
    parser = LegacyParser()
    events = [e for e in parser.parse(log.splitlines(keepends=True)) if isinstance(e, ev.GcEvent)]
    pauses = [e for e in events if e.type == ev.PAUSE]
    assert [e.kind for e in pauses] == [ev.INITIAL_MARK, ev.OTHER, ev.OTHER, ev.OTHER, ev.FULL]
    assert sum(e.duration_ms for e in pauses[:4]) == pytest.approx(8.058)
    assert pauses[-1].heap_after_mb == 20.0 and pauses[-1].t_s == pytest.approx(5.8)
    cycles = [e for e in events if e.type == ev.CYCLE]
    assert len(cycles) == 2 and cycles[0].duration_ms == pytest.approx(0.333 + 866.393 + 0.092)
    assert [e.duration_ms for e in events if e.type == ev.PACING] == [11.0]
    assert parser.collector == "Shenandoah" and parser.unparsed == 0


def test_openj9_policy_name_is_kept_whole() -> None:
    """`-Xgcpolicy:gencon` is "gencon" (a character-set strip would eat its leading g)."""
    from jvmlab.gclog.j9 import J9Parser

    parser = J9Parser()
    xml = ['<verbosegc xmlns="http://www.ibm.com/j9/verbosegc" version="R28_jvm.28">\n',
           '<initialized id="1" timestamp="2014-05-27T15:31:02.391">\n',
           '  <attribute name="gcPolicy" value="-Xgcpolicy:gencon" />\n', '</initialized>\n']
    list(parser.parse(xml))
    assert parser.collector == "OpenJ9 gencon"


def test_safepoint_lines_are_found_in_every_chunk_and_after_a_restart() -> None:
    """The scan stops looking for safepoint lines after a chunk with pauses and none, and
    looks again where a JVM restarts; a log that has them keeps every one."""
    from jvmlab.gclog.unified import UnifiedParser

    with gzip.open(DATA / "jdk17-g1-details.log.gz", "rt") as fh:
        with_sp = fh.read()
    without_sp = G1_ONELINE.read_text()
    n_sp = with_sp.count('Safepoint "')
    n_pauses = sum(1 for line in without_sp.splitlines() if " Pause " in line and line.endswith("ms"))

    def count(chunks: list[str]) -> tuple[int, int]:
        events = [e for e in UnifiedParser().parse(chunks) if not hasattr(e, "key")]
        return sum(e.type == "safepoint" for e in events), sum(e.type == "pause" for e in events)

    assert count([with_sp, with_sp, with_sp])[0] == 3 * n_sp
    assert count([without_sp, with_sp]) == (n_sp, count([with_sp])[1] + n_pauses)


def test_peer_figures_for_a_legacy_log(tmp_path: Path) -> None:
    """Causes, heap maxima and the last pause of LEGACY_CMS, worked out from its text."""
    log = tmp_path / "gc.log"
    log.write_text(LEGACY_CMS)
    (s,) = analyze_paths([log])
    j = s.to_json()
    assert {k: v["count"] for k, v in j["collections_by_cause"].items()} == {
        "Allocation Failure": 2, "CMS Initial Mark": 1, "System.gc()": 1}
    assert j["failures"] is None
    heap = j["heap_max_mb"]
    assert heap["setting"] == 512.0
    assert heap["used"] == pytest.approx(43542 / 1024, abs=1e-4)
    assert heap["after_gc"] == pytest.approx(25378 / 1024, abs=1e-4)
    assert heap["young_used"] == pytest.approx(9746 / 1024, abs=1e-4)
    assert heap["old_used"] == pytest.approx((25378 - 1056) / 1024, abs=1e-4)
    assert j["last_pause"] == {"t_s": 0.3, "duration_ms": 50.0, "kind": "full", "name": "Full GC (System.gc())"}
    assert (j["first_event_s"], j["last_event_s"]) == (0.169, 0.3)
    assert j["concurrent_phases"] == {"CMS-concurrent-mark": {"count": 1, "total_ms": 13.0, "max_ms": 13.0},
                                      "CMS-concurrent-sweep": {"count": 1, "total_ms": 0.0, "max_ms": 0.0}}


def test_peer_figures_absent_from_a_log_are_null(tmp_path: Path) -> None:
    log = tmp_path / "gc.xml"
    log.write_text(J9)
    (s,) = analyze_paths([log])
    j = s.to_json()
    assert j["concurrent_phases"] is None and j["failures"] is None
    # <mem-info free="1048576" total="4194304"/>: 3 MB used of 4 MB; no -Xmx, no generations.
    assert j["heap_max_mb"] == {"setting": None, "committed": 4.0, "used": 3.0, "after_gc": 3.0,
                                "young_used": None, "old_used": None}
    assert j["last_pause"]["kind"] == "full" and j["event_types"]["count"] == 2


@pytest.mark.parametrize("name", ["jdk17-g1-oneline.log", "jdk25-shenandoah-oneline.log"])
def test_unified_ten_copies_have_the_throughput_of_one(tmp_path: Path, name: str) -> None:
    text = (DATA / name).read_text()
    one, ten = tmp_path / "one.log", tmp_path / "ten.log"
    one.write_text(text)
    ten.write_text(text * 10)
    (s1,), (s10,) = analyze_paths([one]), analyze_paths([ten])
    assert (s1.jvm_runs, s10.jvm_runs) == (1, 10)
    assert s10.span_s == pytest.approx(10 * s1.span_s)
    assert s10.throughput_pct() == pytest.approx(s1.throughput_pct())
    assert s10.pause_count == 10 * s1.pause_count


def test_zgc_relocation_stalls_are_counted_apart_from_allocation_stalls() -> None:
    import os

    shared = Path(os.environ.get("JVMLAB_GCLOGS", Path(__file__).resolve().parents[3] / "shared" / "gclogs"))
    path = shared / "gcviewer/src/test/resources/openjdk/unified-jvm-logging/sample-ujl-zgc-gc-other.txt"
    if not path.is_file():
        pytest.skip("no shared GC logs")
    lines = path.read_text().splitlines()
    reloc = [float(line.rsplit(" ", 1)[1][:-2]) for line in lines if "] Relocation Stall (" in line]
    alloc = [line for line in lines if "] Allocation Stall (" in line]
    (s,) = analyze_paths([path])
    j = s.to_json()
    assert reloc and j["relocation_stalls"]["count"] == len(reloc)
    assert j["relocation_stalls"]["total_ms"] == pytest.approx(sum(reloc), abs=1e-3)
    assert j["stalls"]["count"] == len(alloc)
