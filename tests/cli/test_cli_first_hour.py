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


def _write(tmp_path: Path, body: str, jdk17_home: Path) -> Path:
    spec = tmp_path / "s.toml"
    spec.write_text(f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n[run]\ninvocations = 2\n{body}')
    return spec


@pytest.mark.jvm
def test_check_shows_the_command_line_as_run_starts_it_with_jvmlab_s_flags_marked(
        tmp_path: Path, jdk17_home: Path) -> None:
    spec = _write(tmp_path, '[factors.cds]\nplain = []\nappcds = { flags = [], prepare = "cds-archive" }\n', jdk17_home)
    proc = run_jvmlab("check", str(spec), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for cell in ("j cds=plain", "j cds=appcds"):
        command = lines[lines.index(next(line for line in lines if line.startswith(f"  {cell}:"))) + 1]
        assert f"{jdk17_home}/bin/java" in command and "-Xlog:gc" in command  # the GC log is in the command line
        # an archive is verified from the class-load log: every cell logs alike, not the archive's alone
        assert "-Xlog:class+load=info:file=" in command, command
    assert sum(line.startswith("    + added by jvmlab (gc): -Xlog:async") for line in lines) == 2
    assert sum(line.startswith("    + added by jvmlab (flag_effect): '-Xlog:class+load") for line in lines) == 2
    assert any(line.startswith("    + added by jvmlab (cds-archive): the archive's flag") for line in lines)
    assert any("/ARTIFACTS: the run's artifacts folder" in line for line in lines)
    quiet = run_jvmlab("check", str(_write(tmp_path, "[collect]\ngc = false\nproc = false\n", jdk17_home)),
                       cwd=tmp_path)
    assert quiet.returncode == 0 and "class+load" not in quiet.stdout and "-Xlog:gc" not in quiet.stdout


SERVER = '''
[workload]
builtin = "httpserver"
args = ["--alloc-kb", "4"{port}]
[jvms]
j = "{jdk}"
[run]
invocations = 1
warmup = 0
[server]
[load]
[[load.phases]]
name = "m"
count = 5
'''


@pytest.mark.jvm
def test_check_warns_when_a_server_is_never_told_its_port(tmp_path: Path, jdk17_home: Path) -> None:
    (tmp_path / "s.toml").write_text(SERVER.format(port="", jdk=jdk17_home))
    proc = run_jvmlab("check", "s.toml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert ("warning: readiness waits for its port accepting on a free port per invocation, but no cell's command "
            "line or environment has {port}") in proc.stdout
    (tmp_path / "s.toml").write_text(SERVER.format(port=', "--port", "{port}"', jdk=jdk17_home))
    told = run_jvmlab("check", "s.toml", cwd=tmp_path)
    assert told.returncode == 0 and "warning" not in told.stdout, told.stdout
