"""Archive preparation is visible (issue 12 item 10): a non-interactive `run` says what it
is doing while it trains, and the terminal, JSON and HTML reports show each archive."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from testing_jdks import JDK17_HOME, need

pytestmark = pytest.mark.jvm

SPEC = '''name = "cds visible"
[workload]
builtin = "hello"
[jvms]
jdk17 = "{home}"
[factors.cds]
default = []
appcds = ["@cds-archive"]
[run]
invocations = 2
warmup = 0
timeout = "60s"
'''


def _jvmlab(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80"}
    return subprocess.run([sys.executable, "-m", "jvmlab", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL, env=env)


def test_archives_show_in_the_run_and_every_report(tmp_path: Path) -> None:
    (tmp_path / "cds.toml").write_text(SPEC.format(home=need(JDK17_HOME)), encoding="utf-8")
    run = _jvmlab(["run", "cds.toml", "--store", "lab.db"], tmp_path)  # stderr is a pipe: no progress bar
    assert run.returncode == 0, run.stderr
    assert "preparing the cds-archive of cell 'jdk17 cds=appcds'" in run.stderr
    assert "trained in" in run.stderr and "application classes loaded from it" in run.stderr
    assert run.stderr.index("preparing the cds-archive") < run.stderr.index("trained in")
    # Terminal report.
    assert "Archives made before the run" in run.stdout and "cds-archive" in run.stdout
    assert "jdk17 cds=appcds: in use: JvmlabHello source: shared objects file (top)" in run.stdout
    assert "training warnings: none" in run.stdout
    # JSON.
    report = _jvmlab(["report", "--store", "lab.db", "--json", "--html", "r.html"], tmp_path)
    assert report.returncode == 0, report.stderr
    (entry,) = json.loads(report.stdout)["archives"]
    assert entry["cell"] == "jdk17 cds=appcds" and entry["size_bytes"] > 0 and entry["train_s"] > 0
    assert entry["app_classes_from_archive"] >= 1 and Path(entry["path"]).is_absolute()
    # HTML.
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="archives"' in page and "JvmlabHello source: shared objects file (top)" in page
