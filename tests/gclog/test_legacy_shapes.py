"""JDK 6-8 record shapes real production logs have, each in a small log written for it.

Every shape here was misread before (issue 21): the expected figures are worked out by
hand from the text of each record, not taken from the parser's output.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jvmlab.gclog import analyze_paths, iter_events
from jvmlab.gclog.legacy import LegacyParser

DATE_GLUED = """\
2014-03-04T13:59:49.153+0100: 2.573: [GC2014-03-04T13:59:49.153+0100: 2.573: [ParNew: 41306K->4000K(43008K), 0.0100000 secs] 115072K->80000K(138624K), 0.0110000 secs] [Times: user=0.02 sys=0.00, real=0.01 secs]
2014-03-04T13:59:51.153+0100: 4.573: [GC2014-03-04T13:59:51.153+0100: 4.573: [ParNew: 41306K->4100K(43008K), 0.0200000 secs] 115072K->81000K(138624K), 0.0220000 secs] [Times: user=0.02 sys=0.00, real=0.02 secs]
"""

REFERENCE_GC = """\
0.500: [GC0.510: [SoftReference, 0 refs, 0.0000200 secs]0.510: [WeakReference, 11 refs, 0.0000050 secs]0.510: [FinalReference, 58 refs, 0.0000250 secs]0.510: [PhantomReference, 0 refs, 0.0000030 secs]0.510: [JNI Weak Reference, 0.0000040 secs] [PSYoungGen: 2048K->512K(3072K)] 6024K->4500K(10240K), 0.0040000 secs] [Times: user=0.01 sys=0.00, real=0.00 secs]
0.855: [Full GC0.855: [SoftReference, 0 refs, 0.0000200 secs]0.855: [WeakReference, 11 refs, 0.0000050 secs]0.855: [FinalReference, 58 refs, 0.0000250 secs]0.855: [PhantomReference, 0 refs, 0.0000030 secs]0.855: [JNI Weak Reference, 0.0000040 secs] [PSYoungGen: 1024K->0K(2048K)] [ParOldGen: 5000K->4000K(8192K)] 6024K->4000K(10240K) [PSPermGen: 2560K->2560K(21248K)], 0.0300000 secs] [Times: user=0.05 sys=0.00, real=0.03 secs]
1.855: [Full GC1.855: [SoftReference, 0 refs, 0.0000200 secs]1.855: [WeakReference, 11 refs, 0.0000050 secs]1.855: [FinalReference, 58 refs, 0.0000250 secs]1.855: [PhantomReference, 0 refs, 0.0000030 secs]1.855: [JNI Weak Reference, 0.0000040 secs] [PSYoungGen: 1024K->0K(2048K)] [ParOldGen: 5000K->4000K(8192K)] 6024K->4000K(10240K) [PSPermGen: 2560K->2560K(21248K)], 0.0400000 secs] [Times: user=0.05 sys=0.00, real=0.04 secs]
"""

SCAVENGE_BEFORE_REMARK = """\
171.721: [GC (CMS Final Remark) [YG occupancy: 1056998 K (1922432 K)]171.721: [GC (CMS Final Remark) 171.721: [ParNew: 1056998K->151245K(1922432K), 0.1588173 secs] 2442587K->1615175K(4019584K), 0.1590607 secs] [Times: user=0.49 sys=0.05, real=0.16 secs]
171.880: [Rescan (parallel) , 0.0482726 secs]171.929: [weak refs processing, 0.0000506 secs]171.929: [class unloading, 0.0809186 secs]172.010: [scrub symbol table, 0.0649216 secs]172.075: [scrub string table, 0.0045311 secs][1 CMS-remark: 1463930K(2097152K)] 1615175K(4019584K), 0.3629243 secs] [Times: user=0.83 sys=0.06, real=0.36 secs]
172.085: [CMS-concurrent-sweep-start]
"""

VERBOSE_CMS = """\
[GC 8678K->8064K(31680K), 0.0106548 secs]
[GC 15645K(21888K), 0.0010369 secs]
[GC 9746K->8378K(34560K), 0.0073592 secs]
[GC 41674K(51840K), 0.0039463 secs]
[Full GC 43542K->20000K(51840K), 0.0500000 secs]
"""

# A concurrent phase ends in the middle of a collection that runs 4.6 s; its stamp is later
# than the ones that follow, and the next collection's stamp is more than 1 s earlier.
INTERLEAVED = """\
796.991: [GC (Allocation Failure) 796.992: [ParNew: 1922432K->1922432K(1922432K), 0.0000267 secs]796.992: [CMS803.832: [CMS-concurrent-sweep: 1.180/3.376 secs] [Times: user=3.42 sys=0.14, real=1.38 secs]
 (concurrent mode failure): 2034154K->1051300K(2097152K), 4.6146919 secs] 3956586K->1051300K(4019584K), [Metaspace: 296232K->296083K(1325056K)], 4.6165192 secs] [Times: user=4.60 sys=0.05, real=4.62 secs]
801.700: [GC (Allocation Failure) 801.700: [ParNew: 69952K->8704K(78656K), 0.0104509 secs] 69952K->11354K(253440K), 0.0105137 secs] [Times: user=0.02 sys=0.00, real=0.01 secs]
"""

G1_JDK6_PHASES = """\
0.388: [GC pause (young) (initial-mark) 10080K->10080K(16M), 0.0020000 secs]
0.390: [GC concurrent-mark-start]
0.403: [GC concurrent-mark-end, 0.0126670 sec]
0.404: [GC remark, 0.0010000 secs]
0.410: [GC concurrent-count-start]
0.412: [GC concurrent-count-end, 0.0019007]
0.413: [GC cleanup 12M->11M(16M), 0.0005000 secs]
"""

SHENANDOAH_EXIT_ONLY = """\
Cancelling concurrent GC: Stopping VM
Heap
Shenandoah Heap
 268435456K total, 261685248K committed, 226747245K used
 8192 x 32768K regions

GC STATISTICS:
  "(G)" (gross) pauses include VM time: time to notify and block threads, do the pre-
Total Pauses (G)            =    60.47 s (a =     7786 us) (n =  7766) (lvls, us =      689,     4746,     7109,     9609,    85448)
"""

SHENANDOAH_NO_HEADER = """\
2.469: [Pause Init Mark (process weakrefs), 3.341 ms]
2.470: [Concurrent marking (process weakrefs) 1613M->1613M(1636M), 40.123 ms]
2.511: [Pause Final Mark (process weakrefs) 1613M->1361M(1636M), 2.500 ms]
2.600: [Pause Degenerated GC (Mark) 1613M->1361M(1636M), 12.000 ms]
"""


def _one(tmp_path: Path, text: str, name: str = "gc.log") -> dict:
    log = tmp_path / name
    log.write_text(text)
    (s,) = analyze_paths([log])
    return s.to_json()


def _kinds(doc: dict) -> dict[str, int]:
    return {k: v["count"] for k, v in doc["pauses"]["by_kind"].items() if v["count"]}


def test_date_glued_to_gc(tmp_path: Path) -> None:
    doc = _one(tmp_path, DATE_GLUED)
    assert _kinds(doc) == {"young": 2}
    assert doc["pauses"]["total_ms"] == pytest.approx(11.0 + 22.0)
    assert doc["collector"] == "CMS"


def test_reference_gc_records(tmp_path: Path) -> None:
    doc = _one(tmp_path, REFERENCE_GC)
    assert _kinds(doc) == {"young": 1, "full": 2}
    assert doc["pauses"]["by_kind"]["full"]["total_ms"] == pytest.approx(70.0)
    assert doc["pauses"]["total_ms"] == pytest.approx(74.0)
    assert doc["unparsed_lines"] == 0


def test_cms_scavenge_before_remark_keeps_the_remark(tmp_path: Path) -> None:
    doc = _one(tmp_path, SCAVENGE_BEFORE_REMARK)
    assert _kinds(doc) == {"remark": 1}
    assert doc["pauses"]["max_ms"] == pytest.approx(362.9243)


def test_verbose_gc_cms_marks_are_not_young(tmp_path: Path) -> None:
    doc = _one(tmp_path, VERBOSE_CMS)
    assert _kinds(doc) == {"young": 2, "initial_mark": 1, "remark": 1, "full": 1}


def test_interleaved_phase_keeps_pause_and_run(tmp_path: Path) -> None:
    doc = _one(tmp_path, INTERLEAVED)
    assert _kinds(doc) == {"young": 1, "full": 1}
    assert doc["pauses"]["by_kind"]["full"]["total_ms"] == pytest.approx(4616.5192)
    assert doc["jvm_runs"] == 1
    # One run from 796.991 to the concurrent phase's end (803.832), the latest event.
    assert doc["span_s"] == pytest.approx(803.832 - 796.991, abs=1e-3)
    assert doc["failures"] == {"concurrent mode failure": {"count": 1, "total_ms": 4616.5192,
                                                           "max_ms": 4616.5192}}
    assert doc["concurrent_phases"]["CMS-concurrent-sweep"]["total_ms"] == pytest.approx(3376.0)


def test_g1_phase_ends_without_secs_have_durations(tmp_path: Path) -> None:
    doc = _one(tmp_path, G1_JDK6_PHASES)
    assert doc["unparsed_lines"] == 0
    assert doc["concurrent_cycles"]["count"] == 1
    assert doc["concurrent_cycles"]["total_ms"] == pytest.approx(12.667 + 1.9007)
    assert set(doc["concurrent_phases"]) == {"GC concurrent-mark-end", "GC concurrent-count-end"}
    cycles = [e for e in iter_events(tmp_path / "gc.log") if e.type == "cycle"]
    assert all(e.duration_ms for e in cycles)


@pytest.mark.parametrize("text", [SHENANDOAH_EXIT_ONLY, SHENANDOAH_NO_HEADER], ids=["exit-stats", "no-header"])
def test_jdk8_shenandoah_is_recognised(tmp_path: Path, text: str) -> None:
    doc = _one(tmp_path, text)
    assert doc["format"] == "hotspot-legacy"


def test_jdk8_shenandoah_degenerated_gc(tmp_path: Path) -> None:
    doc = _one(tmp_path, SHENANDOAH_NO_HEADER)
    assert _kinds(doc) == {"initial_mark": 1, "other": 1, "degenerated": 1}
    assert doc["collector"] == "Shenandoah"


@pytest.mark.parametrize("text", [DATE_GLUED, REFERENCE_GC, INTERLEAVED], ids=["cms", "parallel", "interleaved"])
def test_ten_copies_have_the_throughput_of_one(tmp_path: Path, text: str) -> None:
    one = _one(tmp_path, text, "one.log")
    ten = _one(tmp_path, text * 10, "ten.log")
    assert ten["jvm_runs"] == 10 and one["jvm_runs"] == 1
    assert ten["span_s"] == pytest.approx(10 * one["span_s"], rel=1e-4)
    assert ten["throughput_pct"] == pytest.approx(one["throughput_pct"], abs=1e-3)


# --- property: a concurrent-phase line inside a record never changes the record's pause ---

RECORDS = [
    "10.000: [GC (Allocation Failure) 10.000: [ParNew: 9746K->1056K(9792K), 0.0062763 secs] "
    "25391K->25378K(34560K), 0.0073592 secs] [Times: user=0.01 sys=0.01, real=0.01 secs]",
    "10.000: [Full GC (Allocation Failure) 10.000: [CMS: 2034154K->1051300K(2097152K), 4.6146919 secs] "
    "3956586K->1051300K(4019584K), [Metaspace: 296232K->296083K(1325056K)], 4.6165192 secs] "
    "[Times: user=4.60 sys=0.05, real=4.62 secs]",
    "10.000: [GC (CMS Final Remark) [YG occupancy: 1868 K (9792 K)]10.000: [Rescan (parallel) , 0.0007821 secs]"
    "[1 CMS-remark: 41674K(42048K)] 43542K(51840K), 0.0039463 secs] [Times: user=0.01 sys=0.00, real=0.01 secs]",
    "10.000: [GC (CMS Initial Mark) [1 CMS-initial-mark: 15645K(21888K)] 18533K(31680K), 0.0010369 secs] "
    "[Times: user=0.00 sys=0.00, real=0.00 secs]",
    "10.000: [GC pause (G1 Evacuation Pause) (young) 10.001: [SoftReference, 0 refs, 0.0000200 secs], "
    "0.0123000 secs]",
    "10.000: [GC10.000: [DefNew: 1024K->128K(2048K), 0.0020000 secs] 4096K->3200K(8192K), 0.0021000 secs]",
]
PHASES = [
    "12.345: [CMS-concurrent-mark-start]",
    "12.345: [CMS-concurrent-mark: 0.005/0.013 secs] [Times: user=0.01 sys=0.01, real=0.02 secs]",
    "2014-03-04T13:59:49.153+0100: 12.345: [CMS-concurrent-abortable-preclean: 3.498/3.909 secs]",
    "12.345: [GC concurrent-root-region-scan-end, 0.0001 secs]",
    "12.345: [GC concurrent-mark-end, 0.0126670 sec]",
    "9.000: [CMS-concurrent-sweep: 1.180/1.376 secs]",
]


def _boundaries(record: str) -> list[int]:
    """Where a JVM can print another thread's line inside a record: between tokens from its
    first nested part on (the head ``[GC (cause)`` is printed in one piece), never inside a
    number, and before the record's closing figures end."""
    start = record.index("[", record.index("[") + 1)
    end = record.rindex("secs]")
    return [i for i in range(start, end)
            if (record[i] in " [" or record[i - 1] in "] ") and not record[i - 1].isdigit()]


def _pauses(text: str) -> list[tuple[str, float | None]]:
    parser = LegacyParser()
    return [(e.kind, e.duration_ms) for e in parser.parse(text.split("\n")) if e.type == "pause"]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_interleaved_phase_never_changes_the_pause(data: st.DataObject) -> None:
    record = data.draw(st.sampled_from(RECORDS))
    pos = data.draw(st.sampled_from(_boundaries(record)))
    phase = data.draw(st.sampled_from(PHASES))
    newline = data.draw(st.booleans())
    mixed = record[:pos] + phase + ("\n" if newline else "") + record[pos:]
    assert _pauses(mixed) == _pauses(record)
    assert len(_pauses(record)) == 1
