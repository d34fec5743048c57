"""A fresh log from a real JVM: our pause count equals the number of `Pause` lines."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jvmlab.gclog import analyze_paths, iter_events

JAVA = Path("/usr/lib/jvm/java-17-openjdk-amd64/bin/java")
ALLOC = Path(__file__).resolve().parents[1] / "data" / "gclogs" / "Alloc.java"


@pytest.mark.jvm
def test_fresh_g1_log_pause_count(tmp_path: Path) -> None:
    if not JAVA.exists():
        pytest.skip("JDK 17 not installed")
    log = tmp_path / "gc.log"
    subprocess.run([str(JAVA), "-Xmx64m", "-XX:+UseG1GC", f"-Xlog:gc:file={log}", str(ALLOC), "1"],
                   check=True, capture_output=True, timeout=120)
    pause_lines = sum(1 for line in log.read_text().splitlines() if " Pause " in line)
    assert pause_lines > 0
    (summary,) = analyze_paths([log])
    assert summary.pause_count == pause_lines
    events = [e for e in iter_events(log) if e.type == "pause"]
    assert len(events) == pause_lines
    assert all(e.duration_ms is not None and e.t_s is not None for e in events)
    assert [e.t_s for e in events] == sorted(e.t_s for e in events)
