"""End to end: `jvmlab run --collect jfr --collect startup` on two cells that differ by a
known extra method; the JSON, terminal and HTML report show that method as the largest growth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_jvmlab

pytestmark = [pytest.mark.jvm, pytest.mark.slow]


def _spec(classes: Path) -> str:
    return f'''name = "jfr why"

[workload]
main = "JfrWork"
classpath = ["{classes}"]
args = ["2"]
ready = "^ready$"

[jvms]
jdk17 = "/usr/lib/jvm/java-17-openjdk-amd64"

[factors.work]
plain = ""
extra = "-Djfrwork.extra=true"

[matrix]
baseline = {{ work = "plain" }}

[run]
invocations = 2
warmup = 0
'''


def test_diff_names_the_extra_method_in_json_terminal_and_html(jdk17, jfr_classes, tmp_path: Path) -> None:
    spec = tmp_path / "why.toml"
    spec.write_text(_spec(jfr_classes))
    proc = run_jvmlab("run", str(spec), "--store", "lab.db", "--json", "--quiet", "--collect", "jfr",
                      "--collect", "startup", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    why = json.loads(proc.stdout)["why"]
    cpu = [d for d in why["profile_diffs"] if d["kind"] == "cpu"]
    assert len(cpu) == 1 and cpu[0]["cell"].endswith("extra")
    assert cpu[0]["grew"][0]["frame"] == "JfrWork.extraWork"
    assert cpu[0]["grew"][0]["delta_share"] > 0.2
    assert any(c["frame"] == "JfrWork.hotLoop" for c in cpu[0]["shrank"])
    phases = why["startup_phases_s"]
    assert len(phases) == 2 and all(p["jvm_init"] and p["jvm_init"] > 0 for p in phases.values())

    text = run_jvmlab("report", "--store", "lab.db", "--html", "r.html", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "JfrWork.extraWork" in text.stdout and "Startup phases" in text.stdout
    page = (tmp_path / "r.html").read_text()
    assert 'id="why"' in page and "icicle" in page and "JfrWork.extraWork" in page
    assert "JFR metrics (mean per invocation)" in page and "jfr.safepoint_count" in page
    assert isinstance(why["missing"], list)

    from jvmlab.report.summary import summarize
    from jvmlab.scenarios.why import frame_changes
    from jvmlab.store import open_store

    db = open_store(str(tmp_path / "lab.db"))
    summary = summarize(db, db.latest_experiment().id)
    (phrase,) = frame_changes(summary, db)
    assert phrase.endswith("of samples in JfrWork.extraWork") and phrase.split(":")[1].strip().startswith("+")
