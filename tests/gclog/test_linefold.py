"""The compiled event folder (gclog/linefold.c) against the pure-Python parser: the same
summary on every log it accepts, and a clean give-up (then the Python parser) on the rest."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from tests.gclog.fuzzing import mutate

from jvmlab.errors import UserError
from jvmlab.gclog import analyze_paths, detect, linefold, linescan
from jvmlab.gclog.findings import summary_document
from jvmlab.gclog.findings_fold import LogFold
from jvmlab.gclog.summary import LogSummary
from jvmlab.gclog.unified import UnifiedParser

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("JVMLAB_GCLOGS", REPO.parent / "shared" / "gclogs"))
FOLDED = (  # corpus logs of each collector the folder reads
    "gctoolkit-testdata/gctoolkit-gclogs/unified/g1gc/minimal.log",
    "jifa/analysis/gc-log/src/test/resources/17G1Parser.log",
    "jifa/analysis/gc-log/src/test/resources/11G1PrintGC.log",
    "gcgc/datasets/G1GC.log",
    "gcgc/datasets/G1GCMetaspace.log",
    "gcviewer/src/test/resources/openjdk/unified-jvm-logging/sample-ujl-g1-gc-defaults.txt",
    "gctoolkit-testdata/gctoolkit-gclogs/unified/parallel/parallelgc.log",
    "gcgc/datasets/ParallelGCMetaspace.log",
    "jifa/analysis/gc-log/src/test/resources/17ParallelGCParser.log",
    "gctoolkit-testdata/gctoolkit-gclogs/unified/serial/gc.log",
    "jifa/analysis/gc-log/src/test/resources/17SerialGCParser.log",
    "gcgc/datasets/ZGCMetaspace.log",
    "gcgc/datasets/ZGC.log.0",
    "jifa/analysis/gc-log/src/test/resources/17ZGCParser.log",
    "gcviewer/src/test/resources/openjdk/unified-jvm-logging/sample-ujl-zgc-gc-all.txt",
)

needs_cc = pytest.mark.skipif(linescan.prefilter() is None, reason="no C compiler: the Python path is all there is")


def _folds(path: Path) -> bool:
    return linefold.fold([path], LogSummary(files=[path], format=detect.UNIFIED), UnifiedParser())


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """(default path, pure-Python path) summaries of one file with their findings and the
    findings' folded facts (timelines, example lines), as JSON."""
    def run() -> str:
        try:
            return json.dumps([[summary_document(s), repr(s.fold.e), repr(s.fold.lines), s.fold.examples,
                                s.fold.collector_hint, *(list(a) for a in (s.fold.pause_t, s.fold.pause_ms,
                                                                           s.fold.heap_t, s.fold.heap_mb))]
                               for s in analyze_paths([path])], sort_keys=True, default=str)
        except UserError as err:
            return f"refused: {err}"
    fast = run()
    with monkeypatch.context() as m:
        m.setenv(linescan.ENV_SWITCH, "0")
        slow = run()
    return fast, slow


def _shared(name: str) -> Path:
    path = SHARED / name
    if not path.is_file():
        pytest.skip(f"no {name} under {SHARED} (set JVMLAB_GCLOGS)")
    return path


@needs_cc
@pytest.mark.parametrize("name", FOLDED)
def test_folder_reads_the_log_as_the_python_parser_does(name: str, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    path = _shared(name)
    assert _folds(path)  # else this compares the Python parser with itself
    fast, slow = _both(path, monkeypatch)
    assert fast == slow
    # Three copies in one file: JVM restarts, GC ids from 0 again, header lines before each GC(0).
    copies = tmp_path / "copies.log"
    copies.write_bytes((path.read_bytes().rstrip(b"\n") + b"\n") * 3)
    assert _folds(copies)
    fast, slow = _both(copies, monkeypatch)
    assert fast == slow


_PARALLEL = (
    "[0.009s][info][gc] Using Parallel\n"
    "[1.000s][info][gc,heap] GC(0) PSYoungGen: 16384K->2559K(18944K)\n"
    "[1.000s][info][gc] GC(0) Pause Young (Allocation Failure) 16M->4M(61M) 5.423ms\n"
    "[2.000s][info][gc,heap] GC(1) PSYoungGen: 18693K->2556K(18944K)\n"
    "[2.000s][info][gc] GC(1) Pause Full (Ergonomics) 20M->6M(61M) 14.139ms\n"
)


@needs_cc
@pytest.mark.parametrize(("extra", "why"), [
    ("", None),
    ("[2.500s][info][safepoint] Safepoint \"Cleanup\", Time since last: 1 ns, Total: 1000 ns\n", "safepoint"),
    ("[3,000s][info][gc] GC(2) Pause Young (Allocation Failure) 16M->4M(61M) 1,5ms\n", "decimal comma"),
    ("[3.000s][info][gc] GC(2) Pause Remark 1.0ms\n[3.1s][info][gc] GC(2) Concurrent Mark 9.0ms\n", "phases"),
    ("not a log line\n", "unread line"),
    ("[3.000s][info][gc] GC(2) Concurrent Cycle 9.0ms\n", "G1 cycle in a Parallel log"),
    ("[3.000s][info][gc] GC(2) To-space exhausted\n", None),
    ("[2017-01-01T00:00:03.000+0000][info][gc] GC(2) Pause Young (Allocation Failure) 1M->1M(2M) 1.0ms\n",
     "wall-clock decorator"),
])
def test_folder_gives_up_on_what_it_does_not_read(extra: str, why: str | None, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "gc.log"
    log.write_text(_PARALLEL + extra)
    assert _folds(log) == (why is None)
    fast, slow = _both(log, monkeypatch)
    assert fast == slow


@needs_cc
def test_collector_of_a_headless_log_followed_by_another_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ZGC log without its "Using" line, then a Parallel log: the ZGC cycle names the
    collector first, so the Parallel log's "Using" line is not the log's collector."""
    log = tmp_path / "gc.log"
    log.write_text("[0.95s][info][gc,start] GC(0) Garbage Collection (Warmup)\n"
                   "[0.96s][info][gc] GC(0) Garbage Collection (Warmup) 104M(10%)->88M(9%)\n" + _PARALLEL)
    fast, slow = _both(log, monkeypatch)
    assert fast == slow
    assert json.loads(slow)[0][0]["collector"] == "ZGC"


@needs_cc
def test_a_cut_collector_line_names_no_collector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "gc.log"
    log.write_text("[0.11s][info][gc] Using The Z \n"
                   "[0.96s][info][gc] GC(0) Garbage Collection (Warmup) 104M(10%)->88M(9%)\n")
    fast, slow = _both(log, monkeypatch)
    assert fast == slow


@needs_cc
def test_mutated_logs_read_the_same_on_both_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Truncated, byte-flipped, shuffled and concatenated Parallel/Serial/ZGC logs: where the
    folder reads one, its summary is the Python parser's."""
    names = [n for n in FOLDED if (SHARED / n).is_file()]
    if not names:
        pytest.skip(f"no shared GC logs at {SHARED} (set JVMLAB_GCLOGS)")
    sources = [(SHARED / n).read_bytes()[:100_000] for n in names]
    rng = random.Random(34)
    folded = 0
    log = tmp_path / "gc.log"
    for case in range(120):
        log.write_bytes(mutate(rng, sources))
        folded += _folds(log)
        fast, slow = _both(log, monkeypatch)
        assert fast == slow, f"case {case}"
    assert folded >= 30  # the folder was exercised, not only its give-up


_G1 = (  # a G1 log with what the folder reads of G1: cycles, phases, remark and cleanup, an evacuation failure
    "[0.016s][info][gc,heap] Heap region size: 1M\n"
    "[0.018s][info][gc     ] Using G1\n"
    "[1.000s][info][gc,start] GC(0) Pause Young (Normal) (G1 Evacuation Pause)\n"
    "[1.001s][info][gc,heap] GC(0) Eden regions: 24->0(21)\n"
    "[1.001s][info][gc,cpu] GC(0) User=0.03s Sys=0.00s Real=0.00s\n"
    "[1.004s][info][gc     ] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(64M) 4.6ms\n"
    "[2.000s][info][gc,task] GC(1) Using 6 workers of 8 for evacuation\n"
    "[2.000s][info][gc,cpu] GC(1) User=0.01s Sys=0.00s Real=0.01s\n"
    "[2.000s][info][gc     ] GC(1) Pause Young (Concurrent Start) (G1 Humongous Allocation) 30M->20M(64M) 2.1ms\n"
    "[2.001s][info][gc     ] GC(2) Concurrent Cycle\n"
    "[2.050s][info][gc,marking] GC(2) Concurrent Mark (2.001s, 2.050s) 49.000ms\n"
    "[2.051s][info][gc     ] GC(2) Pause Remark 31M->31M(64M) 1.2ms\n"
    "[2.060s][info][gc     ] GC(2) Pause Cleanup 31M->31M(64M) 0.1ms\n"
    "[2.070s][info][gc     ] GC(2) Concurrent Cycle 69.123ms\n"
    "[3.000s][info][gc     ] GC(3) To-space exhausted\n"
    "[3.002s][info][gc,task] GC(3) Using 2 workers of 8 for evacuation\n"
    "[3.002s][info][gc,cpu] GC(3) User=0.01s Sys=0.00s Real=0.09s\n"
    "[3.002s][info][gc     ] GC(3) Pause Young (Mixed) (G1 Evacuation Pause) 60M->58M(64M) 9.5ms\n"
    "[4.000s][info][gc     ] GC(4) Pause Full (G1 Compaction Pause) 63M->40M(64M) 120.0ms\n"
    "[5.000s][info][gc     ] GC(5) Pause Young (Normal) (G1 Evacuation Pause) 50M->41M(64M) 3.0ms\n"
)


@needs_cc
def test_folder_reads_g1_as_the_python_parser_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """G1's cycles, phases and an evacuation failure ("To-space exhausted" before its pause)
    are folded, with the findings' facts, as the Python parser folds them; twice in one file too.
    CPU-time lines of short pauses and worker counts are counted by the folder, not set aside."""
    log = tmp_path / "gc.log"
    for text in (_G1, _G1 * 2):
        log.write_text(text)
        assert _folds(log)
        fast, slow = _both(log, monkeypatch)
        assert fast == slow
    doc = json.loads(slow)[0][0]
    assert doc["collector"] == "G1"
    assert doc["failures"]["to-space exhausted"]["count"] == 2
    assert doc["concurrent_phases"]["Concurrent Mark"]["count"] == 2
    assert "cycle:Concurrent Cycle" in doc["event_types"]["names"]
    (summary,) = analyze_paths([log])
    cpu = summary.fold.lines.cpu
    assert (cpu.pauses, cpu.starved.count) == (6, 2)  # 0.09 s real for 0.01 s of CPU: starved
    assert (summary.fold.lines.workers, summary.fold.lines.workers_max) == (6, 8)


def _long_g1(collections: int) -> str:
    """A G1 log of several read blocks (4 MB each): young pauses, cycles, evacuation failures,
    runs of full collections, requested ones, CPU-time and worker lines."""
    out = ["[0.010s][info][gc] Using G1\n"]
    t = 1.0
    for gid in range(collections):
        t += 0.25
        stamp = f"[{t:.3f}s][info]"
        out.append(f"{stamp}[gc,task] GC({gid}) Using {2 + gid % 7} workers of 8 for evacuation\n")
        out.append(f"{stamp}[gc,cpu] GC({gid}) User=0.0{gid % 10}s Sys=0.00s Real=0.{gid % 13:02d}s\n")
        if gid % 997 in (500, 501, 502, 504, 505):  # a run of three, a young pause, two more
            out.append(f"{stamp}[gc] GC({gid}) Pause Full (G1 Compaction Pause) 63M->{60 - gid % 3}M(64M) 80.{gid % 9}ms\n")
        elif gid % 997 == 600:
            out.append(f"{stamp}[gc] GC({gid}) Pause Full (System.gc()) 40M->20M(64M) 50.5ms\n")
        elif gid % 89 == 7:
            out.append(f"{stamp}[gc] GC({gid}) To-space exhausted\n")
            out.append(f"{stamp}[gc] GC({gid}) Pause Young (Mixed) (G1 Evacuation Pause) 60M->58M(64M) 9.{gid % 7}ms\n")
        elif gid % 50 == 20:
            out.append(f"{stamp}[gc] GC({gid}) Pause Young (Concurrent Start) (G1 Humongous Allocation) "
                       f"30M->20M(64M) 2.{gid % 10}ms\n")
            out.append(f"{stamp}[gc,marking] GC({gid}) Concurrent Mark ({t:.3f}s, {t:.3f}s) 4{gid % 10}.000ms\n")
            out.append(f"{stamp}[gc] GC({gid}) Pause Remark 31M->31M(64M) 1.{gid % 3}ms\n")
            out.append(f"{stamp}[gc] GC({gid}) Concurrent Cycle 69.{gid % 100:03d}ms\n")
        else:
            out.append(f"{stamp}[gc] GC({gid}) Pause Young (Normal) (G1 Evacuation Pause) "
                       f"{24 + gid % 9}M->{4 + gid % 5}M(64M) {1 + gid % 4}.{gid % 1000:03d}ms\n")
    return "".join(out)


@needs_cc
def test_folder_hands_over_only_what_the_findings_do_more_with(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the first block the folder counts plain young and other pauses itself (timelines,
    the young tally, the sketch): the findings' facts are still the Python parser's, with runs
    of full collections, requested ones and evacuation failures among them."""
    log = tmp_path / "gc.log"
    log.write_text(_long_g1(40_000))
    assert log.stat().st_size > 2 * (4 << 20)  # three blocks
    handed: list[str] = []
    collection = LogFold.collection

    def spy(self: LogFold, typ: str, kind: str, *args: Any, **kwargs: Any) -> None:
        handed.append(kind)
        collection(self, typ, kind, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(LogFold, "collection", spy)
        summary = LogSummary(files=[log], format=detect.UNIFIED)
        assert linefold.fold([log], summary, UnifiedParser())
    assert 0 < len(handed) < summary.fold.e.events / 2  # most were only counted, in C
    fast, slow = _both(log, monkeypatch)
    assert fast == slow
    e = summary.fold.e
    assert (e.full_runs, e.longest_full_run) == (40, 3) and e.by_failure["to-space exhausted"].count > 400
    assert e.young.count > 30_000 and len(summary.fold.pause_t) == e.events - summary.cycles.count  # cycles: none


_SERIAL_ERGO = (  # Serial's ergonomics line carries "User= Sys= Real=" too: not a pause's CPU time
    "[0.010s][info][gc] Using Serial\n"
    "[0.773s][info][gc,start] GC(0) Pause Young (Allocation Failure)\n"
    "[0.773s][info][gc,cpu] GC(0) User=0.13s Sys=0.00s Real=0.12s\n"
    "[0.773s][info][gc] GC(0) Pause Young (Allocation Failure) 40M->8M(128M) 120.000ms\n"
    "[0.859s][info][gc,ergo] GC(1) Adaptive Heap Sizing: GC Overhead: 100. User=0.090000s Sys=0.000000s "
    "Real=0.080000s, Time since last GC=0.090000s\n"
    "[0.860s][info][gc,cpu] GC(1) User=0.59s Sys=0.21s Real=0.79s\n"
    "[0.860s][info][gc] GC(1) Pause Full (Allocation Failure) 120M->60M(128M) 790.000ms\n"
)


def test_serial_ergonomics_line_is_not_a_pause_cpu_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two gc,cpu lines, two pauses with CPU times, on both paths (the Python path counted the
    ergonomics line's "User=... Real=..." as a third; factorization-serialgc-tip.log: 32 for 16)."""
    log = tmp_path / "gc.log"
    log.write_text(_SERIAL_ERGO)
    fast, slow = _both(log, monkeypatch)
    assert fast == slow
    (summary,) = analyze_paths([log])
    assert summary.fold.lines.cpu.pauses == 2
