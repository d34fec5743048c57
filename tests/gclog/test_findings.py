"""Findings: thresholds on small hand-written logs (each on both sides of its threshold),
the JSON schema, `gc compare`'s appear/disappear, and recorded logs of the shared corpus."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jvmlab.gclog import analyze_paths
from jvmlab.gclog import findings_rules as rules
from jvmlab.gclog.findings import summary_document
from jvmlab.gclog.findings_compare import APPEARS, BOTH, DISAPPEARS, UNKNOWN, compare_findings
from jvmlab.gclog.findings_model import Finding, findings_of
from jvmlab.gclog.findings_rules import evaluate as find

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("JVMLAB_GCLOGS", REPO.parent / "shared" / "gclogs"))


def _log(tmp_path: Path, lines: list[str], name: str = "gc.log") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(["[0.001s][info][gc,init] Version: 17.0.9+9 (release)",
                               "[0.002s][info][gc] Using G1",
                               "[0.003s][info][gc,init] Heap Region Size: 1M",
                               "[0.004s][info][gc,init] Heap Max Capacity: 256M", *lines]) + "\n")
    return path


def _young(gid: int, t: float, ms: float, cause: str = "G1 Evacuation Pause", extra: str = "") -> list[str]:
    return [f"[{t:.3f}s][info][gc,start    ] GC({gid}) Pause Young (Normal) ({cause}){extra}",
            f"[{t + ms / 1000:.3f}s][info][gc          ] GC({gid}) Pause Young (Normal) ({cause}){extra} "
            f"24M->4M(256M) {ms:.3f}ms"]


def _ids(path: Path) -> dict[str, Finding]:
    (summary,) = analyze_paths([path])
    return {f.id: f for f in find(summary)}


def test_explicit_gc_names_the_collection_that_served_it(tmp_path: Path) -> None:
    lines = [
        "[1.000s][info][gc,start    ] GC(0) Pause Full (System.gc())",
        "[1.050s][info][gc          ] GC(0) Pause Full (System.gc()) 20M->2M(256M) 50.000ms",
        "[2.000s][info][gc,start    ] GC(1) Pause Full (System.gc())",
        "[2.030s][info][gc          ] GC(1) Pause Full (System.gc()) 20M->2M(256M) 30.000ms",
    ]
    f = _ids(_log(tmp_path, lines))["explicit-gc"]
    assert f.severity == "error"  # G1 served it with a stop-the-world full collection
    assert "2x Pause Full" in f.explanation
    e = f.evidence
    assert (e.count, e.total_ms, e.worst_ms) == (2, 80.0, 50.0)
    assert e.first_t_s == pytest.approx(1.05) and e.last_t_s == pytest.approx(2.03)
    assert len(e.examples) == 2 and all("System.gc()" in x for x in e.examples)
    assert [x.flags for x in f.fixes] == [("-XX:+DisableExplicitGC",), ("-XX:+ExplicitGCInvokesConcurrent",)]
    assert "full-gc" not in _ids(_log(tmp_path, lines))  # a request is not a fallback


def test_gc_overhead_fires_above_its_threshold_only(tmp_path: Path) -> None:
    def log(ms: float) -> Path:
        # a heap near its maximum: the bigger heap is the fix (tests/gclog/test_overhead_fixes.py: when not)
        lines = [x.replace("24M->4M", "230M->200M") for i in range(10) for x in _young(i, 1.0 + i, ms)]
        return _log(tmp_path, lines, f"gc-{ms}.log")

    assert "gc-overhead" in _ids(log(300.0))  # ~300 ms in every second
    assert "gc-overhead" not in _ids(log(20.0))
    f = _ids(log(300.0))["gc-overhead"]
    figures = dict(f.evidence.figures)
    assert figures["threshold_pct"] == rules.GC_OVERHEAD_PCT and figures["paused_pct"] > rules.GC_OVERHEAD_PCT
    assert f.fixes[0].flags == ("-Xmx384m",)  # 1.5x the 256 MB the log states


def test_frequent_young_threshold(tmp_path: Path) -> None:
    fast = [x for i in range(30) for x in _young(i, 1.0 + 0.05 * i, 1.0)]
    slow = [x for i in range(30) for x in _young(i, 1.0 + 1.0 * i, 1.0)]
    assert "frequent-young" in _ids(_log(tmp_path, fast, "fast.log"))
    assert "frequent-young" not in _ids(_log(tmp_path, slow, "slow.log"))


def _cpu_log(tmp_path: Path, times: list[tuple[float, float, float]], name: str) -> Path:
    lines = []
    for i, (user, sys_, real) in enumerate(times):
        lines += _young(i, 1.0 + i, real * 1000)
        lines.append(f"[{1.0 + i + real:.3f}s][info][gc,cpu      ] GC({i}) User={user:.2f}s Sys={sys_:.2f}s "
                     f"Real={real:.2f}s")
    return _log(tmp_path, lines, name)


def test_cpu_starved_needs_three_pauses_far_above_user_plus_sys(tmp_path: Path) -> None:
    starved = _ids(_cpu_log(tmp_path, [(0.01, 0.01, 0.20)] * 3, "starved.log"))
    assert "cpu-starved" in starved and "User=0.01s" in starved["cpu-starved"].evidence.examples[0]
    assert "cpu-starved" not in _ids(_cpu_log(tmp_path, [(0.01, 0.01, 0.20)] * 2, "two.log"))
    assert "cpu-starved" not in _ids(_cpu_log(tmp_path, [(0.40, 0.01, 0.20)] * 5, "fine.log"))
    assert "cpu-starved" in _ids(_cpu_log(tmp_path, [(0.10, 0.20, 0.20)] * 3, "sys.log"))  # sys above user


def test_parallelism_inverted_between_one_and_half_a_cpu(tmp_path: Path) -> None:
    found = _ids(_cpu_log(tmp_path, [(0.15, 0.0, 0.20)] * 4, "inv.log"))
    assert "parallelism-inverted" in found and "cpu-starved" not in found
    assert "parallelism-inverted" not in _ids(_cpu_log(tmp_path, [(0.30, 0.0, 0.20)] * 4, "par.log"))


def test_long_safepoint_from_time_to_safepoint(tmp_path: Path) -> None:
    def log(reach_ns: int, name: str) -> Path:
        lines = [x for i in range(3) for x in _young(i, 1.0 + i, 5.0)]
        lines += [f'[{5.0 + i:.3f}s][info][safepoint   ] Safepoint "G1CollectForAllocation", Time since last: '
                  f'1000 ns, Reaching safepoint: {reach_ns} ns, At safepoint: 5000000 ns, '
                  f'Total: {reach_ns + 5000000} ns' for i in range(3)]
        return _log(tmp_path, lines, name)

    slow = _ids(log(150_000_000, "slow.log"))["long-safepoint"]
    assert slow.evidence.worst_ms == pytest.approx(150.0)
    assert slow.fixes == ()  # JDK 10+ already poll in counted loops: nothing to propose
    assert "long-safepoint" not in _ids(log(100_000, "fast.log"))


def test_unidentified_lines_are_never_silent(tmp_path: Path) -> None:
    f = _ids(_log(tmp_path, [*_young(0, 1.0, 2.0), "some application output"]))["unidentified-lines"]
    assert f.evidence.count == 1 and f.evidence.examples == ("some application output",)


def test_json_schema_round_trip_and_document(tmp_path: Path) -> None:
    lines = [*_young(0, 1.0, 5.0, "G1 Humongous Allocation"), *_young(1, 2.0, 5.0, "G1 Humongous Allocation")]
    (summary,) = analyze_paths([_log(tmp_path, lines)])
    doc = json.loads(json.dumps(summary_document(summary)))
    (raw,) = doc["findings"]
    assert set(raw) == {"id", "severity", "title", "explanation", "evidence", "fixes", "advice"}
    assert set(raw["evidence"]) == {"count", "total_ms", "worst_ms", "first_t_s", "last_t_s", "examples", "figures"}
    assert raw["id"] == "humongous-allocation"
    assert [f["flags"] for f in raw["fixes"]] == [["-XX:G1HeapRegionSize=2m"], ["-XX:G1HeapRegionSize=4m"],
                                                  ["-XX:G1HeapRegionSize=32m"]]
    (back,) = findings_of(doc) or []
    assert back.to_json() == raw


def test_compare_says_which_findings_appear_and_disappear() -> None:
    def doc(*ids: str) -> dict[str, object]:
        return {"findings": [{"id": i, "severity": "warn", "evidence": {"count": 2}} for i in ids]}

    changes = {c.id: c for c in compare_findings([doc("explicit-gc", "full-gc"), doc("full-gc")],
                                                 [doc("full-gc", "gc-locker"), doc()])}
    assert changes["explicit-gc"].status == DISAPPEARS and changes["explicit-gc"].logs_a == 1
    assert changes["gc-locker"].status == APPEARS and changes["gc-locker"].count_b == 2
    assert changes["full-gc"].status == BOTH and (changes["full-gc"].logs_a, changes["full-gc"].logs_b) == (2, 1)
    (old,) = compare_findings([{"pauses": {}}], [doc("full-gc")])  # an older document: not "none"
    assert old.status == UNKNOWN


# -- recorded logs of the shared corpus (skipped when absent) ----------------------------

CORPUS_EXPECTED = {
    "jifa/analysis/gc-log/src/test/resources/8CMSParser.log": {"concurrent-mode-failure", "heap-dump-gc"},
    "jifa/analysis/gc-log/src/test/resources/8CMSPromotionFailed.log": {"promotion-failure"},
    "jifa/analysis/gc-log/src/test/resources/11ZGCParser.log": {"allocation-stall"},
    "jifa/analysis/gc-log/src/test/resources/8G1GCParser.log": {"evacuation-failure", "metaspace-gc"},
    "jifa/analysis/gc-log/src/test/resources/8G1PrintGC.log": {"humongous-allocation", "full-gc"},
    "gctoolkit-testdata/gctoolkit-shenandoah-logs/shenandoah/shenandoah.log.2": {"degenerated-gc", "full-gc"},
    "gctoolkit-testdata/gctoolkit-gclogs/unified/parallel/parallelgc.log": {"gc-locker"},
    "gctoolkit-testdata/gctoolkit-gclogs/unified/g1gc/jdk11_details.log.zip": {"evacuation-failure", "full-gc"},
    "gcgc/datasets/G1GCMetaspace.log": {"explicit-gc"},
    "jifa/analysis/gc-log/src/test/resources/17SerialGCParser.log": {"heap-near-max"},
    "gcgc/datasets/GraalVM.log": {"unidentified-lines"},
}
# Real runs without trouble, one per collector: a finding on them would be a false one.
CORPUS_CLEAN = ("gcgc/datasets/G1GC.log", "gcgc/datasets/GenZGC.log", "gcgc/datasets/ParallelGC.log",
                "gcgc/datasets/SerialGC.log", "gcgc/datasets/ShenandoahGC.log", "gcgc/datasets/ZGC.log.0")


def _corpus(rel: str) -> Path:
    path = SHARED / rel
    if not path.is_file():
        pytest.skip(f"no shared GC log {rel} (set JVMLAB_GCLOGS)")
    return path


@pytest.mark.parametrize("rel", sorted(CORPUS_EXPECTED))
def test_corpus_logs_show_their_findings(rel: str) -> None:
    found = set()
    for summary in analyze_paths([_corpus(rel)]):
        found |= {f.id for f in find(summary)}
    assert CORPUS_EXPECTED[rel] <= found


@pytest.mark.parametrize("rel", CORPUS_CLEAN)
def test_corpus_logs_without_trouble_have_no_finding(rel: str) -> None:
    for summary in analyze_paths([_corpus(rel)]):
        assert summary.pause_count > 20
        assert [f.id for f in find(summary)] == []


def test_jdk8_times_with_datestamps_and_cms_failures_count_as_pauses(tmp_path: Path) -> None:
    lines = []
    for i in range(3):
        t = 1.0 + i
        lines.append(f"2021-01-01T00:00:0{i + 1}.000+0000: {t:.3f}: [GC (Allocation Failure) {t:.3f}: [ParNew: "
                     f"1000K->100K(2000K), 0.0100000 secs]{t:.3f}: [CMS (concurrent mode failure): "
                     f"5000K->4000K(8000K), 0.2000000 secs] 6000K->4000K(10000K), 0.2100000 secs] "
                     f"[Times: user=0.01 sys=0.00, real=0.21 secs]")
    lines.append("2021-01-01T00:00:09.000+0000: 9.000: [CMS-concurrent-mark: 0.010/0.500 secs] "
                 "[Times: user=0.01 sys=0.00, real=0.50 secs]")  # concurrent: beside the application
    path = tmp_path / "cms.log"
    path.write_text("\n".join(lines) + "\n")
    f = _ids(path)["cpu-starved"]
    assert f.evidence.count == 3
    assert f.evidence.first_t_s == pytest.approx(1.0) and f.evidence.last_t_s == pytest.approx(3.0)


def test_requested_collections_are_their_own_findings(tmp_path: Path) -> None:
    lines = ["[1.000s][info][gc] GC(0) Pause Full (Heap Inspection Initiated GC) 20M->2M(256M) 40.000ms",
             "[2.000s][info][gc] GC(1) Pause Young (Normal) (GCLocker Initiated GC) 20M->2M(256M) 4.000ms"]
    found = _ids(_log(tmp_path, lines))
    assert set(found) == {"heap-inspection-gc", "gc-locker"}  # not full-gc: a request is no fallback
    assert found["heap-inspection-gc"].evidence.worst_ms == 40.0 and found["heap-inspection-gc"].fixes == ()


def _parallel_log(tmp_path: Path, heap_shrink_mb: int, name: str) -> Path:
    lines = ["[0.001s][info][gc] Using Parallel", "[0.002s][info][gc,init] Heap Max Capacity: 1G"]
    after = 100
    for i in range(12):
        before = after + 50
        after = before - heap_shrink_mb
        t = 1.0 + i
        lines += [f"[{t:.3f}s][info][gc,heap] GC({i}) PSYoungGen: 61440K(76288K)->10240K(76288K) Eden: x",
                  f"[{t:.3f}s][info][gc     ] GC({i}) Pause Young (Allocation Failure) {before}M->{after}M(900M) "
                  f"5.000ms"]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_premature_promotion_from_young_generation_figures(tmp_path: Path) -> None:
    promoting = _ids(_parallel_log(tmp_path, 20, "promote.log"))  # 50 MB leave young, 20 MB leave the heap
    f = promoting["premature-promotion"]
    # 12 young GCs promote 30 MB each; allocation is counted between pauses (11 x 50 MB)
    assert dict(f.evidence.figures)["promoted_fraction"] == pytest.approx(12 * 30 / (11 * 50), abs=1e-3)
    assert [x.flags for x in f.fixes] == [("-Xmn120m",), ("-XX:MaxTenuringThreshold=15",)]
    assert "premature-promotion" not in _ids(_parallel_log(tmp_path, 48, "healthy.log"))


def test_heap_near_max_after_full_collections(tmp_path: Path) -> None:
    def log(after: int, name: str) -> Path:
        return _log(tmp_path, [f"[1.000s][info][gc] GC(0) Pause Full (G1 Compaction Pause) 250M->{after}M(256M) "
                               f"90.000ms"], name)

    near = _ids(log(220, "near.log"))["heap-near-max"]
    assert dict(near.evidence.figures)["max_mb"] == 256.0 and near.fixes[0].flags == ("-Xmx384m",)
    assert "heap-near-max" not in _ids(log(150, "room.log"))


def test_findings_on_the_html_page_are_escaped(tmp_path: Path) -> None:
    from jvmlab.gclog.points import view_of
    from jvmlab.report.gcpage import gc_context
    from jvmlab.report.page import render_page

    path = _log(tmp_path, [*_young(0, 1.0, 2.0), "<script>alert(1)</script>"])
    (summary,) = analyze_paths([path])
    page = render_page("gc.html.j2", gc_context([view_of(summary, with_points=False)]))
    assert "unidentified-lines" in page
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
