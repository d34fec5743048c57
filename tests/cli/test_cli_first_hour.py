"""A new user's first hour (issue 45 item 10): what hyperfine users type, the exit code of a run
that never succeeded, and `check`'s warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from jvmlab.cli.main import main


@pytest.mark.parametrize(("option", "hint"), [
    ("--export-json", "`jvmlab export --format hyperfine -o FILE`"),
    ("--prepare", "--hook before_each=COMMAND"),
    ("--min-runs", "--runs N"),
    ("--show-output", "kept in the artifacts folder"),
    ("--setup", "--hook setup=COMMAND"),
    ("--conclude", "--hook after_each=COMMAND"),
])
def test_a_hyperfine_option_gets_jvmlab_s_way(option: str, hint: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["run", option, "x", "java -version"])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert f"No such option: {option}" in err and f"hyperfine's {option} in jvmlab: " in err and hint in err
    assert len(err.strip().splitlines()) == 1


def test_an_unknown_option_that_is_not_hyperfine_s_gets_no_hint(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--frobnicate", "java -version"])
    err = capsys.readouterr().err
    assert "No such option: --frobnicate" in err and "hyperfine" not in err


@pytest.mark.jvm  # the one-liner's [jvms] default is looked up (java -version), though `false` is no JVM
def test_a_run_without_one_successful_invocation_exits_4_and_ignore_failure_keeps_0(tmp_path: Path) -> None:
    failed = run_jvmlab("run", "false", "--runs", "2", "--warmup", "0", "--store", "lab.db", "-q", cwd=tmp_path)
    assert failed.returncode == 4, failed.stderr
    assert "no successful invocation in 'default' (2 failed)" in failed.stderr
    assert "failures" in failed.stdout  # the report is printed first: everything is stored
    kept = run_jvmlab("run", "false", "--runs", "2", "--warmup", "0", "--store", "lab.db", "-q", "-i", cwd=tmp_path)
    assert kept.returncode == 0, kept.stderr
    ok = run_jvmlab("run", "true", "--runs", "2", "--warmup", "0", "--store", "lab.db", "-q", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
