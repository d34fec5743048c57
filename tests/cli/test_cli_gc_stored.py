"""`jvmlab gc analyze N`: a stored experiment's GC columns and page, from what the store
kept (summaries and timelines), after its GC log files were deleted."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from cli_runner import run_jvmlab

SPEC = '''
[workload]
builtin = "hold"
args = ["--live-mb", "8", "--alloc-mb", "256"]
[jvms]
j = "{home}"
[factors.gc]
serial = "-XX:+UseSerialGC -Xmx48m"
[run]
invocations = 2
warmup = 0
[collect]
proc = false
flag_effect = false
'''


@pytest.mark.jvm
def test_gc_analyze_renders_a_stored_experiment_without_its_logs(tmp_path: Path, jdk17_home: Path) -> None:
    (tmp_path / "spec.toml").write_text(SPEC.format(home=jdk17_home))
    run = run_jvmlab("run", "spec.toml", "--store", "lab.db", "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    logs = list((tmp_path / "lab-artifacts").rglob("gc-*.log"))
    assert logs, "the gc collector kept no log to delete"
    shutil.rmtree(tmp_path / "lab-artifacts")

    page = tmp_path / "gc.html"
    out = run_jvmlab("gc", "analyze", "1", "--store", "lab.db", "--html", str(page), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "invocation 1 (block 0)" in out.stdout and "pause p99" in out.stdout
    text = page.read_text(encoding="utf-8")
    blocks = re.findall(r'<script type="application/json" data-plot="[^"]+">(.*?)</script>', text, re.S)
    titles = [json.loads(b)["layout"]["title"]["text"] for b in blocks]
    assert "GC pause durations (log axis)" in titles  # drawn from the stored gc.pause_ms timelines

    as_json = run_jvmlab("gc", "analyze", "1", "--store", "lab.db", "--json", cwd=tmp_path)
    docs = json.loads(as_json.stdout)["logs"]
    assert len(docs) == 2 and all(d["pauses"]["count"] > 0 for d in docs)
