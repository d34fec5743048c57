"""`jvmlab tune` starts each trial's JVM exactly as `jvmlab run` starts a cell's: with
[workload] jvm_args before the trial's flags, the workload's env and its cwd (real JVMs).

`tune` used to drop jvm_args: a web application's loopback and exit-after-start flags were
lost, so it listened on all interfaces, never exited and every baseline invocation timed out."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from cli_runner import run_jvmlab

pytestmark = pytest.mark.jvm

SPEC = """
name = "tune-settings"
[workload]
command = ["{{java}}", "{{jvm_args}}", "-XshowSettings:properties", "-version"]
jvm_args = "-Djvmlab.only.jvm.args=from-jvm-args"
env = {{ JAVA_TOOL_OPTIONS = "-Djvmlab.only.env=from-env" }}
cwd = "work"
[jvms]
j = "{jdk}"
{tail}
"""
TUNE = """[tune]
objective = "wall_s"
budget = { trials = 1 }
min_blocks = 2
max_blocks = 2
confirm_max_blocks = 2
[tune.params.gc]
type = "categorical"
values = { serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }
"""
_SETTING = re.compile(r"^\s*(jvmlab\.only\.[\w.]+|user\.dir) = (.*)$", re.M)


def _settings(db: Path) -> list[dict[str, str]]:
    """What each stored invocation's JVM said of the three settings (-XshowSettings on stderr)."""
    with sqlite3.connect(db) as conn:
        tails = [row[0] or "" for row in conn.execute("select stderr_tail from invocation")]
    return [dict(_SETTING.findall(tail)) for tail in tails]


def test_tune_starts_jvms_with_the_workloads_jvm_args_env_and_cwd_as_run_does(tmp_path: Path,
                                                                               jdk17_home: Path) -> None:
    (tmp_path / "work").mkdir()
    expected = {"jvmlab.only.jvm.args": "from-jvm-args", "jvmlab.only.env": "from-env",
                "user.dir": str(tmp_path / "work")}
    (tmp_path / "run.toml").write_text(SPEC.format(jdk=jdk17_home, tail="[run]\ninvocations = 1\nwarmup = 0\n"))
    ran = run_jvmlab("run", "run.toml", "--store", "run.db", "--quiet", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert _settings(tmp_path / "run.db") == [expected], "run itself: the reference"

    (tmp_path / "tune.toml").write_text(SPEC.format(jdk=jdk17_home, tail=TUNE))
    tuned = run_jvmlab("tune", "tune.toml", "--store", "tune.db", "--quiet", cwd=tmp_path)
    assert tuned.returncode == 0, tuned.stderr[-2000:]
    said = _settings(tmp_path / "tune.db")
    assert len(said) >= 2 and all(s == expected for s in said), said
