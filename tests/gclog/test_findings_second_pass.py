"""Findings, second pass (issue 41): JDK 6-8 logs, headerless excerpts and the classic problems
peers name, each on a small log written from the format, read by the compiled and the Python
paths alike; and findings come from the summary's one pass (no second read of the log)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from jvmlab.gclog import analyze_paths
from jvmlab.gclog.findings_model import Finding
from jvmlab.gclog.findings_rules import evaluate as find

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("JVMLAB_GCLOGS", REPO.parent / "shared" / "gclogs"))

J8 = ["Java HotSpot(TM) 64-Bit Server VM (25.201-b09) for linux-amd64 JRE (1.8.0_201-b09), built on Dec 15 2018",
      "Memory: 4k page, physical 16318332k(1228788k free), swap 0k(0k free)"]


@pytest.fixture(params=["1", "0"], ids=["native", "python"])
def path_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test runs on the compiled path (C pre-filter and folder) and the pure-Python one."""
    monkeypatch.setenv("JVMLAB_GCLOG_NATIVE", request.param)
    return str(request.param)


def _write(tmp_path: Path, lines: list[str], name: str = "gc.log") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def _ids(path: Path) -> dict[str, Finding]:
    (summary,) = analyze_paths([path])
    return {f.id: f for f in find(summary)}


def _flags(*flags: str) -> str:
    return "CommandLine flags: -XX:InitialHeapSize=268435456 -XX:MaxHeapSize=1073741824 -XX:+PrintGCDetails " + \
        " ".join(flags)


def _ps_full(t: float, cause: str, old: str = "ParOldGen", before_k: int = 500000, after_k: int = 300000,
             secs: float = 0.2) -> str:
    return (f"{t:.3f}: [Full GC ({cause}) [PSYoungGen: 3000K->0K(76288K)] [{old}: {before_k - 3000}K->{after_k}K"
            f"(900000K)] {before_k}K->{after_k}K(976288K), [Metaspace: 3000K->3000K(1056768K)], {secs:.4f} secs] "
            f"[Times: user={secs * 2:.2f} sys=0.00, real={secs:.2f} secs]")


@pytest.mark.parametrize("cause", ["System", "JvmtiEnv ForceGarbageCollection", "Diagnostic Command"])
def test_jdk8_requested_causes_are_explicit_gc(tmp_path: Path, path_kind: str, cause: str) -> None:
    log = _write(tmp_path, [*J8, _flags("-XX:+UseParallelGC"), _ps_full(1.0, cause), _ps_full(2.0, cause)])
    found = _ids(log)
    f = found["explicit-gc"]
    assert f.evidence.count == 2 and f.evidence.examples and cause in f.evidence.examples[0]
    assert ("-XX:+DisableExplicitGC",) in [x.flags for x in f.fixes] if cause == "System" else not f.fixes
    assert "full-gc" not in found  # a request, not a fallback


def _unified_g1_full(gid: int, t: float, cause: str, ms: float) -> list[str]:
    return [f"[{t:.3f}s][info][gc,start    ] GC({gid}) Pause Full ({cause})",
            f"[{t:.3f}s][info][gc,heap     ] GC({gid}) Eden regions: 0->0(10)",
            f"[{t:.3f}s][info][gc,heap     ] GC({gid}) Old regions: 105->90",
            f"[{t + ms / 1000:.3f}s][info][gc          ] GC({gid}) Pause Full ({cause}) 210M->180M(256M) {ms:.3f}ms"]


def test_headerless_unified_log_infers_g1_and_judges_a_requested_full(tmp_path: Path, path_kind: str) -> None:
    log = _write(tmp_path, _unified_g1_full(41, 101.0, "Diagnostic Command", 10800.0))
    (summary,) = analyze_paths([log])
    assert summary.collector == "G1"  # from its region lines
    f = {x.id: x for x in find(summary)}["explicit-gc"]
    assert f.severity == "error" and f.evidence.worst_ms == pytest.approx(10800.0)


def test_unknown_collector_does_not_silence_full_gc(tmp_path: Path, path_kind: str) -> None:
    lines = []
    for i in range(3):
        t = 10.0 + 5 * i
        lines += [f"[{t:.3f}s][info][gc,start    ] GC({i}) Pause Full (Allocation Failure)",
                  f"[{t + 0.5:.3f}s][info][gc          ] GC({i}) Pause Full (Allocation Failure) 250M->200M(256M) "
                  f"500.000ms"]
    (summary,) = analyze_paths([_write(tmp_path, lines)])
    assert summary.collector is None
    f = {x.id: x for x in find(summary)}["full-gc"]
    assert f.severity == "warn" and f.evidence.count == 3 and "unknown" in f.title


def test_parallel_psoldgen_is_serial_old(tmp_path: Path, path_kind: str) -> None:
    log = _write(tmp_path, [*J8, _flags("-XX:+UseParallelGC", "-XX:-UseParallelOldGC"),
                            _ps_full(1.0, "Ergonomics", old="PSOldGen")])
    f = _ids(log)["serial-old"]
    assert f.severity == "error" and [x.flags for x in f.fixes] == [("-XX:+UseParallelOldGC",)]
    assert "PSOldGen" in f.evidence.examples[0]
    parallel_old = _write(tmp_path, [*J8, _flags("-XX:+UseParallelGC"), _ps_full(1.0, "Ergonomics")], "p.log")
    assert "serial-old" not in _ids(parallel_old)


def test_jdk8_g1_full_broken_by_a_concurrent_phase_is_a_serial_full(tmp_path: Path, path_kind: str) -> None:
    log = _write(tmp_path, [
        *J8, _flags("-XX:+UseG1GC"),
        "10.100: [GC pause (G1 Evacuation Pause) (young), 0.0100 secs]",
        "   [Eden: 20.0M(20.0M)->0.0B(20.0M) Survivors: 0.0B->3072.0K Heap: 900.0M(1024.0M)->885.0M(1024.0M)]",
        " [Times: user=0.02 sys=0.00, real=0.01 secs] ",
        "10.200: [Full GC (Allocation Failure) 10.201: [GC concurrent-root-region-scan-start]",
        "10.202: [GC concurrent-root-region-scan-end, 0.0010 secs]",
        " 1000M->990M(1024M), 2.5000 secs]",
        "   [Eden: 0.0B(20.0M)->0.0B(20.0M) Survivors: 0.0B->0.0B Heap: 1000.0M(1024.0M)->990.0M(1024.0M)], "
        "[Metaspace: 3000K->3000K(1056768K)]",
        " [Times: user=2.50 sys=0.00, real=2.50 secs] "])
    (summary,) = analyze_paths([log])
    assert summary.by_kind["full"].count == 1 and summary.by_kind["full"].total_ms == pytest.approx(2500.0)
    found = {x.id: x for x in find(summary)}
    assert found["serial-old"].evidence.count == 1 and "full-gc" in found


def test_cms_concurrent_mode_failure_across_lines_is_serial_old(tmp_path: Path, path_kind: str) -> None:
    log = _write(tmp_path, [
        *J8, _flags("-XX:+UseConcMarkSweepGC"),
        "6.000: [GC (Allocation Failure) 6.000: [ParNew: 20000K->20000K(20000K), 0.0000 secs]6.000: [CMS6.100: "
        "[CMS-concurrent-mark: 0.500/0.600 secs] [Times: user=1.00 sys=0.00, real=0.60 secs] ",
        " (concurrent mode failure): 900000K->800000K(980000K), 3.0000 secs] 920000K->800000K(1000000K), "
        "[Metaspace: 3000K->3000K(1056768K)], 3.0100 secs] [Times: user=3.00 sys=0.00, real=3.01 secs] "])
    found = _ids(log)
    assert {"serial-old", "concurrent-mode-failure", "full-gc"} <= set(found)
    assert found["serial-old"].evidence.worst_ms == pytest.approx(3010.0)


@pytest.mark.parametrize("words", ["GC time is exceeding GCTimeLimit of 98%", "GC time would exceed GCTimeLimit of 98%"])
def test_gc_time_limit_is_gc_overhead(tmp_path: Path, path_kind: str, words: str) -> None:
    log = _write(tmp_path, [*J8, _flags("-XX:+UseParallelGC"), _ps_full(100.0, "Ergonomics"), f"      {words}"])
    f = _ids(log)["gc-overhead"]
    assert f.severity == "error" and words in f.evidence.examples[0]


def test_jdk8_stopped_time_beyond_gc_is_long_safepoint(tmp_path: Path, path_kind: str) -> None:
    lines = [*J8, _flags("-XX:+UseParallelGC")]
    for i in range(40):  # 40 stops of 77.5 ms = 3.1 s, GC pauses 0.1 s of it, over a ~20 s span
        t = 0.5 * (i + 1)
        if i % 10 == 0:
            lines.append(f"{t:.3f}: [GC (Allocation Failure) [PSYoungGen: 20480K->3000K(76288K)] "
                         f"20480K->3008K(251392K), 0.0025 secs] [Times: user=0.01 sys=0.00, real=0.00 secs]")
        lines.append(f"{t + 0.1:.3f}: Total time for which application threads were stopped: 0.0775000 seconds, "
                     f"Stopping threads took: 0.0000100 seconds")
    f = _ids(_write(tmp_path, lines))["long-safepoint"]
    assert f.evidence.figures and dict(f.evidence.figures)["non_gc_share"] > 0.9


def _serial_unified(afters: list[float], young_between: int = 2) -> list[str]:
    lines = ["[0.001s][info][gc,init] Version: 17.0.9+9 (release)", "[0.002s][info][gc] Using Serial",
             "[0.004s][info][gc,init] Heap Max Capacity: 256M"]
    gid, t = 0, 1.0
    for after in afters:
        for _ in range(young_between):
            lines.append(f"[{t:.3f}s][info][gc] GC({gid}) Pause Young (Allocation Failure) "
                         f"{after + 40:.0f}M->{after + 5:.0f}M(256M) 3.000ms")
            gid, t = gid + 1, t + 1.0
        lines.append(f"[{t:.3f}s][info][gc] GC({gid}) Pause Full (Allocation Failure) "
                     f"{after + 60:.0f}M->{after:.0f}M(256M) 40.000ms")
        gid, t = gid + 1, t + 1.0
    return lines


def test_live_set_growth_on_a_growing_live_set_only(tmp_path: Path, path_kind: str) -> None:
    growing = [18 + (147 - 18) * i / 29 + (3 if i % 2 else -3) for i in range(30)]
    f = _ids(_write(tmp_path, _serial_unified(growing), "grow.log"))["live-set-growth"]
    figures = dict(f.evidence.figures)
    assert figures["slope_lo_mb_per_min"] > 0 and f.evidence.count >= 8
    flat = [60 + (3 if i % 2 else -3) for i in range(30)]
    assert "live-set-growth" not in _ids(_write(tmp_path, _serial_unified(flat), "flat.log"))
    warming = [18 + 10 * i for i in range(8)] + [90 + (3 if i % 2 else -3) for i in range(22)]
    assert "live-set-growth" not in _ids(_write(tmp_path, _serial_unified(warming), "warm.log"))
    few = [18 + 20 * i for i in range(8)]  # 8 collections, 6 after warm-up: too few for a slope
    assert "live-set-growth" not in _ids(_write(tmp_path, _serial_unified(few), "few.log"))


def test_consecutive_and_low_freed_full_collections(tmp_path: Path, path_kind: str) -> None:
    lines = _serial_unified([100.0, 110.0]) + [
        "[49.000s][info][gc] GC(99) Pause Young (Allocation Failure) 150M->115M(256M) 3.000ms"]
    for i in range(3):  # three full collections in a row, each freeing 2%
        lines.append(f"[{50 + i:.3f}s][info][gc] GC({100 + i}) Pause Full (Allocation Failure) 250M->245M(256M) "
                     f"300.000ms")
    found = _ids(_write(tmp_path, lines))
    assert found["consecutive-full-gc"].evidence.count == 3 and found["consecutive-full-gc"].severity == "error"
    assert found["low-freed-ratio"].evidence.count == 3
    assert "consecutive-full-gc" not in _ids(_write(tmp_path, _serial_unified([100.0, 110.0, 120.0]), "ok.log"))


def _g1_j8_young(n: int, ms: float) -> list[str]:
    return [f"{1.0 + i:.3f}: [GC pause (G1 Evacuation Pause) (young) 30M->10M(1024M), {ms / 1000:.7f} secs]"
            for i in range(n)]


def test_pause_goal_missed_from_the_header_goal(tmp_path: Path, path_kind: str) -> None:
    missed = _write(tmp_path, [*J8, _flags("-XX:+UseG1GC", "-XX:MaxGCPauseMillis=1"), *_g1_j8_young(12, 5.0)])
    f = _ids(missed)["pause-goal-missed"]
    assert dict(f.evidence.figures)["goal_ms"] == 1.0 and f.evidence.count == 12
    met = _write(tmp_path, [*J8, _flags("-XX:+UseG1GC", "-XX:MaxGCPauseMillis=50"), *_g1_j8_young(12, 5.0)], "m.log")
    assert "pause-goal-missed" not in _ids(met)
    unset = _write(tmp_path, [*J8, _flags("-XX:+UseG1GC"), *_g1_j8_young(12, 5.0)], "u.log")
    assert "pause-goal-missed" not in _ids(unset)


def test_header_facts_heap_memory_oops_and_large_pages(tmp_path: Path, path_kind: str) -> None:
    lines = ["Java HotSpot(TM) 64-Bit Server VM (25.201-b09) for linux-amd64 JRE (1.8.0_201-b09)",
             "Memory: 4k page, physical 1048576k(500000k free), swap 0k(0k free)",
             "OpenJDK 64-Bit Server VM warning: Failed to reserve shared memory. (error = 1)",
             "CommandLine flags: -XX:MaxHeapSize=2147483648 -XX:-UseCompressedOops -XX:+UseLargePages "
             "-XX:+UseParallelGC", _ps_full(1.0, "Ergonomics"),
             'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space']
    found = _ids(_write(tmp_path, lines))
    assert found["heap-exceeds-memory"].fixes[0].flags == ("-Xmx768m",)
    assert found["compressed-oops-off"].evidence.examples and found["compressed-oops-off"].severity == "info"
    assert "shared memory" in found["large-pages-failed"].evidence.examples[0]
    assert "OutOfMemoryError" in found["out-of-memory"].evidence.examples[0]
    healthy = ["Java HotSpot(TM) 64-Bit Server VM (25.201-b09) for linux-amd64 JRE (1.8.0_201-b09)",
               "Memory: 4k page, physical 16318332k(500000k free), swap 0k(0k free)",
               "CommandLine flags: -XX:MaxHeapSize=2147483648 -XX:+UseParallelGC", _ps_full(1.0, "Ergonomics")]
    assert not {"heap-exceeds-memory", "compressed-oops-off", "large-pages-failed", "out-of-memory"} & set(
        _ids(_write(tmp_path, healthy, "h.log")))


def test_unified_large_pages_and_big_heap_without_compressed_oops(tmp_path: Path, path_kind: str) -> None:
    lines = ["[0.001s][info][gc,init] Version: 17.0.9+9 (release)", "[0.002s][info][gc] Using G1",
             "[0.003s][warning][gc,os] UseLargePages disabled, no large pages configured and available on the system.",
             "[0.004s][info][gc,init] Heap Max Capacity: 40G",
             "[1.000s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 30M->10M(1024M) 3.000ms"]
    found = _ids(_write(tmp_path, lines))
    assert "large-pages-failed" in found
    assert found["compressed-oops-off"].fixes[0].flags == ("-Xmx31g",)


def test_findings_need_no_second_read_of_the_log(tmp_path: Path, path_kind: str) -> None:
    log = _write(tmp_path, [*J8, _flags("-XX:+UseParallelGC"), _ps_full(1.0, "System"), _ps_full(2.0, "Ergonomics",
                                                                                                  old="PSOldGen")])
    (summary,) = analyze_paths([log])
    log.unlink()  # the findings come from the summary's own pass
    ids = {f.id for f in find(summary)}
    assert {"explicit-gc", "serial-old"} <= ids
    assert all(f.evidence.examples for f in find(summary) if f.id in ("explicit-gc", "serial-old"))


def test_compiled_and_python_paths_agree_on_the_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled folder hands its pauses and cycles to the same fold as the Python parser."""
    names = ["gcgc/datasets/ZGCMetaspace.log", "gcgc/datasets/ParallelGC.log", "gcgc/datasets/SerialGC.log",
             "gctoolkit-testdata/gctoolkit-gclogs/unified/serial/serial.log"]
    paths = [SHARED / n for n in names if (SHARED / n).is_file()]
    if not paths:
        pytest.skip(f"no shared GC logs at {SHARED}")
    out = {}
    for switch in ("1", "0"):
        monkeypatch.setenv("JVMLAB_GCLOG_NATIVE", switch)
        out[switch] = [[f.to_json() for f in find(s)] for p in paths for s in analyze_paths([shutil.copy(p, tmp_path)])]
    assert out["1"] == out["0"]


def test_times_and_sizes_in_human_units(tmp_path: Path) -> None:
    """Terminal, HTML and Markdown all format through these: days, not 6.85e+03 min."""
    from jvmlab.metrics import format_duration_ms, format_mb
    from jvmlab.report import gcfindings

    assert format_duration_ms(6.85e3 * 60_000) == "4.76 d"
    assert format_duration_ms(3 * 3_600_000) == "3 h" and format_duration_ms(999.7) == "1000 ms"
    assert format_mb(5e6) == "4.77 TB"
    for v in (0.0004, 0.9996, 999.6, 5.9e5, 7.1e6, 1e9, 1e13):
        assert "e+" not in format_duration_ms(v) and "e-" not in format_duration_ms(v)
    lines = [*J8, _flags("-XX:+UseParallelGC"), _ps_full(411_000.0, "System"), _ps_full(411_500.0, "System")]
    (summary,) = analyze_paths([_write(tmp_path, lines)])
    row = gcfindings.row({f.id: f for f in find(summary)}["explicit-gc"])
    assert row[-1] == "4.76 d..4.76 d" and row[3] == "400 ms"


def test_pause_goal_from_the_invocations_flags() -> None:
    """The gc collector passes the cell's -XX:MaxGCPauseMillis (the last one wins, as in the JVM)."""
    from jvmlab.collect.gc import pause_goal_ms

    assert pause_goal_ms(("-Xmx1g", "-XX:MaxGCPauseMillis=50", "-XX:MaxGCPauseMillis=20")) == 20.0
    assert pause_goal_ms(("-Xmx1g", "-XX:+UseG1GC")) is None


def test_out_of_memory_is_the_error_not_the_class_loading(tmp_path: Path, path_kind: str) -> None:
    head = ["[0.001s][info][gc,init] Version: 17.0.9+9 (release)", "[0.002s][info][gc] Using Serial",
            "[0.300s][info][class,load   ] java.lang.OutOfMemoryError source: shared objects file",
            "[1.000s][info][gc] GC(0) Pause Young (Allocation Failure) 30M->10M(100M) 3.000ms"]
    assert "out-of-memory" not in _ids(_write(tmp_path, head, "a.log"))
    error = head + ['Exception in thread "main" java.lang.OutOfMemoryError: Java heap space']
    assert "out-of-memory" in _ids(_write(tmp_path, error, "b.log"))


def test_graalvm_native_image_full_collections_are_its_serial_gc(tmp_path: Path, path_kind: str) -> None:
    lines = [f"[{3 + i:.3f}s] GC({i}) Pause Full GC (Collect on allocation) 13.00M->3.00M 14.698ms" for i in range(3)]
    (summary,) = analyze_paths([_write(tmp_path, lines)])
    assert summary.collector == "Serial" and "full-gc" not in {f.id for f in find(summary)}
