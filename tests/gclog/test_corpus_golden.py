"""The bench log's summary pinned (issue 34 item 2: a faster parser, the same figures).

``bench/gclog_vs_gcviewer.py`` times ten copies of the shared corpus's
``jdk11_details.log``; this pins every figure of one copy's summary and checks that ten
copies give ten times its counts, totals and span with the same percentiles and
throughput, on the compiled and the pure-Python path. Skipped without ../shared/gclogs.
Refresh after an intended change: ``.venv/bin/python tests/gclog/test_corpus_golden.py --update``.
"""

from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from jvmlab.gclog import analyze_paths

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("JVMLAB_GCLOGS", REPO.parent / "shared" / "gclogs"))
SOURCE = SHARED / "gctoolkit-testdata/gctoolkit-gclogs/unified/g1gc/jdk11_details.log.zip"
GOLDEN = Path(__file__).resolve().parent / "golden" / "corpus-jdk11_details.json"


def _summary(path: Path) -> dict[str, Any]:
    (s,) = analyze_paths([path])
    doc = s.to_json()
    doc["files"] = [Path(f).name for f in doc["files"]]
    return doc


def _copies(tmp: Path, n: int) -> Path:
    with zipfile.ZipFile(SOURCE) as zf:
        data = zf.read(next(name for name in zf.namelist() if name.endswith(".log")))
    path = tmp / "jdk11_details.log"
    path.write_bytes(data * n)
    return path


@pytest.mark.skipif(not SOURCE.is_file(), reason="shared GC log corpus not present")
@pytest.mark.parametrize("native", ["1", "0"], ids=["compiled-filter", "python"])
def test_bench_log_summary_is_pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, native: str) -> None:
    monkeypatch.setenv("JVMLAB_GCLOG_NATIVE", native)
    assert _summary(_copies(tmp_path, 1)) == json.loads(GOLDEN.read_text())


@pytest.mark.slow
@pytest.mark.skipif(not SOURCE.is_file(), reason="shared GC log corpus not present")
def test_ten_copies_scale_the_figures(tmp_path: Path) -> None:
    one = json.loads(GOLDEN.read_text())
    ten = _summary(_copies(tmp_path, 10))
    assert ten["jvm_runs"] == 10
    assert ten["pauses"]["count"] == 10 * one["pauses"]["count"]
    assert ten["pauses"]["total_ms"] == pytest.approx(10 * one["pauses"]["total_ms"], rel=1e-9)
    assert ten["span_s"] == pytest.approx(10 * one["span_s"], rel=1e-6)
    assert ten["throughput_pct"] == pytest.approx(one["throughput_pct"], abs=1e-3)
    assert ten["pauses"]["max_ms"] == one["pauses"]["max_ms"]
    # over 100 000 pauses the percentiles come from the log-spaced histogram (within 0.5%)
    assert not ten["pauses"]["percentiles_exact"] and one["pauses"]["percentiles_exact"]
    for key in ("p50_ms", "p90_ms", "p99_ms"):
        assert ten["pauses"][key] == pytest.approx(one["pauses"][key], rel=0.005), key
    assert ten["concurrent_cycles"]["count"] == 10 * one["concurrent_cycles"]["count"]


if __name__ == "__main__" and "--update" in sys.argv:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        GOLDEN.write_text(json.dumps(_summary(_copies(Path(tmp), 1)), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
