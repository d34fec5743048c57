"""The compiled line pre-filter (gclog/linescan.c) against the pure-Python path."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.gclog import analyze_paths, linescan

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("JVMLAB_GCLOGS", REPO.parent / "shared" / "gclogs"))

needs_cc = pytest.mark.skipif(linescan.prefilter() is None, reason="no C compiler: the Python path is all there is")


def _summaries(path: Path) -> str:
    try:
        return json.dumps([s.to_json() for s in analyze_paths([path])], sort_keys=True, default=str)
    except UserError as err:
        return f"refused: {err}"


@needs_cc
def test_filter_keeps_event_header_and_unread_lines_and_drops_details() -> None:
    keep = linescan.prefilter()
    assert keep is not None
    lines = [
        b"[0.01s][info][gc] Using G1\n",                                         # no GC id: kept
        b"[0.02s][info][gc,start] GC(3) Pause Young (Normal) (G1 Evacuation Pause)\n",  # first GC( line
        b"[0.02s][info][gc,phases] GC(3)   Evacuate Collection Set: 4.1ms\n",  # detail: dropped
        b"[0.02s][debug][gc,phases] GC(3)     Object Copy (ms): Min: 1.9\n",    # detail: dropped
        b"[0.03s][info][gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(64M) 5.1ms\n",
        b"[0.03s][info][gc,start] GC(4) Pause Young (Normal) (G1 Evacuation Pause)\n",  # no duration: dropped
        b"[0.03s][info][gc,phases] GC(4) Concurrent Mark 1.5s \t\n",          # duration in s, blanks: kept
        b"\n",                                                                  # blank: dropped
        b"continued text of a wrapped line\n",                                  # not '[': kept (counted)
        b"[0.04s][info][gc] GC(4) y: Pause Init Mark 0.1ms\n",
        b"[0.05s][info][gc] GC(0) Using 8 workers\n",                           # GC(0): kept (restart)
        b"[0.06s][info][gc,heap] GC(5) DefNew: 10M(20M)->1M(20M)\n",
        b"[0.07s][info][gc] GC(6) Garbage Collection (Warmup) 10M(5%)->8M(4%)\n",
        b"[0.08s][info][gc] GC(7) To-space exhausted\n",
        b"[0.09s][info][gc,ref] GC(7) Reference Processing: 0.1ms",             # no newline at the end
    ]
    block = b"".join(lines) + b"tail of the next block"
    kept = keep(block, len(block) - len(b"tail of the next block"))
    dropped = {2, 3, 5, 7, 14}
    assert kept == b"".join(line for i, line in enumerate(lines) if i not in dropped)


@needs_cc
def test_bare_carriage_returns_bypass_the_filter() -> None:
    keep = linescan.prefilter()
    assert keep is not None
    block = b"[0.1s][info][gc] GC(1) Pause Young 1ms\r[0.2s][info][gc] GC(1) detail\r"
    assert keep(block, len(block)) == block


def test_switch_turns_the_compiled_path_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(linescan.ENV_SWITCH, "0")
    assert linescan.prefilter() is None


def test_without_a_compiler_the_python_path_reads_the_log(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JVMLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    linescan._library_path.cache_clear()
    linescan._native.cache_clear()
    try:
        assert linescan.prefilter() is None
        log = tmp_path / "gc.log"
        log.write_text("[0.01s][info][gc] Using G1\n"
                       "[0.50s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(64M) 5.000ms\n")
        (summary,) = analyze_paths([log])
        assert summary.pause_count == 1
    finally:
        linescan._library_path.cache_clear()
        linescan._native.cache_clear()


def _corpus() -> list[Path]:
    if not SHARED.is_dir():
        return []
    return sorted(p for p in SHARED.rglob("*") if p.is_file() and "licenses" not in p.parts
                  and not p.name.endswith((".tsv", ".md")))


@needs_cc
def test_compiled_and_python_paths_agree_on_the_whole_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _corpus()
    if not files:
        pytest.skip(f"no shared GC logs at {SHARED} (set JVMLAB_GCLOGS)")
    fast = {p: _summaries(p) for p in files}
    monkeypatch.setenv(linescan.ENV_SWITCH, "0")
    slow = {p: _summaries(p) for p in files}
    assert [p.name for p in files if fast[p] != slow[p]] == []
    assert sum(s.count('"format": "unified"') for s in fast.values()) >= 50  # the filter was exercised


@needs_cc
def test_threads_filter_independently() -> None:
    """ctypes drops the GIL during the call: each thread must have its own output buffer."""
    from concurrent.futures import ThreadPoolExecutor

    keep = linescan.prefilter()
    assert keep is not None
    blocks = [b"".join(b"[%d.0s][info][gc] GC(%d) Pause Young %dms\n[%d.0s][info][gc] GC(%d) detail\n"
                       % (i, j, j, i, j) for j in range(20000)) for i in range(4)]
    expected = [b"".join(line + b"\n" for line in b.split(b"\n") if b"Pause" in line or b"GC(0) " in line) for b in blocks]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(5):
            assert list(pool.map(lambda b: keep(b, len(b)), blocks)) == expected


@needs_cc
def test_lines_run_together_keep_their_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cut write runs a header line into a GC-id line; the Python parser still reads the
    header (its decorators end in ']'), so the filter must keep that line."""
    log = tmp_path / "gc.log"
    log.write_text("[0.01s][info][gc] Using G1\n"
                   "[0.5s][info][gc] GC(4) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(64M) 5.0ms\n"
                   "[1.0s][info][gc] GC(5) Small Pages: 4 / [0.016s][info][gc,heap] Heap region size: 1M\n"
                   "[2.0s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(64M) 5.0ms\n")
    fast = _summaries(log)
    monkeypatch.setenv(linescan.ENV_SWITCH, "0")
    assert fast == _summaries(log)
    assert '"region_mb": 1.0' in fast
