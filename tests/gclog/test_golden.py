"""Golden summaries of the logs the project generated itself on real JVMs (17 and 25).

The golden JSON files pin every figure of the summary so that a parser change that moves
any number shows up; the independent checks below count pause lines with plain string
tests (no regex shared with the parser), so the goldens are not just our own output.
Refresh after regenerating the logs: ``.venv/bin/python tests/gclog/test_golden.py --update``.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from jvmlab.gclog import analyze_paths, summary_metrics

DATA = Path(__file__).resolve().parents[1] / "data" / "gclogs"
GOLDEN = Path(__file__).resolve().parent / "golden"
LOGS = sorted(p for p in DATA.iterdir() if p.name.endswith((".log", ".log.gz")))


def _summary_json(path: Path) -> dict[str, Any]:
    (summary,) = analyze_paths([path])
    out = summary.to_json()
    out["files"] = [Path(f).name for f in out["files"]]
    return out


def _text(path: Path) -> str:
    if path.name.endswith(".gz"):
        return gzip.decompress(path.read_bytes()).decode()
    return path.read_text()


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_golden_summary(path: Path) -> None:
    golden = GOLDEN / (path.name.removesuffix(".gz") + ".json")
    assert golden.is_file(), f"no golden for {path.name}; run this file with --update"
    assert _summary_json(path) == json.loads(golden.read_text())


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_pause_count_equals_pause_lines(path: Path) -> None:
    """Every line ending '<n>ms' whose message starts with 'Pause' is one pause, no more."""
    pause_lines = 0
    for line in _text(path).splitlines():
        message = line.rsplit("]", 1)[-1].strip()
        message = re.sub(r"^GC\(\d+\) ([yYO]: )?", "", message)
        if message.startswith("Pause ") and message.endswith("ms"):
            pause_lines += 1
    (summary,) = analyze_paths([path])
    if "zgc-oneline" in path.name:
        assert summary.to_json()["pauses"]["count"] is None  # -Xlog:gc hides ZGC pauses
        assert pause_lines == 0
    else:
        assert summary.pause_count == pause_lines


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_collector_and_metrics(path: Path) -> None:
    (summary,) = analyze_paths([path])
    name = path.name
    expected = {"g1": "G1", "parallel": "Parallel", "serial": "Serial", "zgc": "ZGC",
                "shenandoah": "Shenandoah"}[name.split("-")[1]]
    assert summary.collector is not None and summary.collector.startswith(expected)
    if "jdk25-zgc" in name or "shenandoah-gen-details" in name:
        assert summary.collector.endswith("(generational)")
    metrics = summary_metrics(summary)
    assert all(v == v for v in metrics.values())  # no NaN
    if summary.pauses_logged and summary.pause_count:
        assert metrics["gc.pause_max_ms"] >= metrics["gc.pause_p99_ms"] >= metrics["gc.pause_p50_ms"]
        assert 0 < metrics["gc.paused_pct"] < 100
    assert summary.unparsed_lines == 0


def update() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for path in LOGS:
        target = GOLDEN / (path.name.removesuffix(".gz") + ".json")
        target.write_text(json.dumps(_summary_json(path), indent=1, sort_keys=True) + "\n")
        print(f"wrote {target}")


if __name__ == "__main__":
    if "--update" in sys.argv:
        update()
