"""Findings on logs of real JVMs (presence only, never counts or times: they vary with load).

A growing live set gives ``live-set-growth``; ``-XX:MaxGCPauseMillis=1`` under allocation gives
``pause-goal-missed`` (the goal from the invocation's flags, as the gc collector passes it); a
healthy run has neither. The programs make the same collections whatever the machine's load:
LiveSet asks for its full collections, Churn's young pauses copy a window of survivors.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jvmlab.collect.gc import pause_goal_ms
from jvmlab.gclog import analyze_paths
from jvmlab.gclog.findings_rules import evaluate as find

JAVA = Path("/usr/lib/jvm/java-17-openjdk-amd64/bin/java")
DATA = Path(__file__).resolve().parents[1] / "data" / "gclogs"


def _ids(tmp_path: Path, flags: list[str], program: str, *args: str) -> set[str]:
    if not JAVA.exists():
        pytest.skip("JDK 17 not installed")
    log = tmp_path / f"gc-{program}-{'-'.join(args)}.log"
    subprocess.run([str(JAVA), *flags, f"-Xlog:gc:file={log}", str(DATA / f"{program}.java"), *args],
                   check=True, capture_output=True, timeout=180)
    (summary,) = analyze_paths([log])
    summary.pause_goal_ms = summary.pause_goal_ms or pause_goal_ms(tuple(flags))
    return {f.id for f in find(summary)}


@pytest.mark.jvm
def test_growing_live_set_is_live_set_growth(tmp_path: Path) -> None:
    assert "live-set-growth" in _ids(tmp_path, ["-Xmx128m", "-XX:+UseSerialGC"], "LiveSet", "1", "16")


@pytest.mark.jvm
def test_unmeetable_pause_goal_is_pause_goal_missed(tmp_path: Path) -> None:
    assert "pause-goal-missed" in _ids(tmp_path, ["-Xmx256m", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=1"], "Churn", "2")


@pytest.mark.jvm
def test_healthy_run_has_neither(tmp_path: Path) -> None:
    flat = _ids(tmp_path, ["-Xmx128m", "-XX:+UseSerialGC"], "LiveSet", "0", "16")
    churn = _ids(tmp_path, ["-Xmx256m", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=5000"], "Churn", "2")
    assert not {"live-set-growth", "pause-goal-missed"} & (flat | churn)
