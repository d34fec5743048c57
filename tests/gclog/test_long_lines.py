"""gclog/reader.py: a line longer than MAX_LINE_BYTES is left out and stands as one line no
parser understands, wherever it falls (inside a block, across blocks, at the end); a truncated
.gz is read up to its cut and says so. Both the compiled pre-filter and the Python path see it."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from jvmlab.gclog import analyze_paths, reader

LINE = b"[0.010s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(256M) 3.123ms\n"


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 1000)
    return 1000


@pytest.mark.parametrize("chunk", [64, 700, 4096, 1 << 20])
def test_long_lines_are_left_out_wherever_they_fall(small_cap: int, chunk: int, tmp_path: Path) -> None:
    log = tmp_path / "gc.log"
    log.write_bytes(LINE * 3 + b"x" * 2500 + b"\n" + LINE * 2 + b"y" * 1001 + b"\n" + LINE + b"z" * 5000)
    text = "".join(reader.iter_chunks(log, chunk_bytes=chunk))
    lines = text.splitlines()
    assert [line for line in lines if not line.startswith("[")] == [
        reader.LONG_LINE.format(n=n, cap=0) for n in (2500, 1001, 5000)]
    assert sum(line == LINE.decode().strip() for line in lines) == 6  # every GC line kept, in order


def test_a_line_at_the_cap_is_kept(small_cap: int, tmp_path: Path) -> None:
    log = tmp_path / "gc.log"
    log.write_bytes(LINE + b"x" * small_cap + b"\n" + LINE)
    assert "x" * small_cap in "".join(reader.iter_chunks(log, chunk_bytes=300))


@pytest.mark.parametrize("native", ["1", "0"])
def test_a_left_out_line_is_counted_as_not_understood(native: str, small_cap: int, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JVMLAB_GCLOG_NATIVE", native)
    log = tmp_path / "gc.log"
    log.write_bytes(b"[0.001s][info][gc] Using G1\n" + LINE + b"q" * 3000 + b"\n" + LINE)
    (summary,) = analyze_paths([log])
    assert summary.unparsed_lines == 1
    assert summary.unparsed_samples[0].startswith("jvmlab: a line of 3000 bytes left out")


def test_a_truncated_gz_keeps_what_came_before_its_cut(tmp_path: Path) -> None:
    data = gzip.compress(LINE * 20_000)
    log = tmp_path / "gc.log.gz"
    log.write_bytes(data[: len(data) // 2])
    lines = "".join(reader.iter_chunks(log)).splitlines()
    assert lines[-1].startswith("jvmlab: the file ends early (")
    assert len(lines) > 5_000 and all(line == LINE.decode().strip() for line in lines[:-2])
