"""Bad server/load input: one line on stderr, exit code 2, before anything runs, from
``jvmlab run`` and from ``jvmlab check`` alike (check prints every problem, a line each)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from cli_runner import run_jvmlab

BASE = """
[workload]
builtin = "httpserver"
[jvms]
jdk17 = "/usr/lib/jvm/java-17-openjdk-amd64"
[run]
invocations = 1
warmup = 0
"""


@pytest.fixture(params=["run", "check"])
def command(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _invoke(tmp_path: Path, text: str, command: str):  # type: ignore[no-untyped-def]
    (tmp_path / "spec.toml").write_text(BASE + text)
    argv = ("run", "spec.toml", "--store", "lab.db", "--quiet") if command == "run" else ("check", "spec.toml")
    return run_jvmlab(*argv, cwd=tmp_path, timeout=120)


def _fails(tmp_path: Path, text: str, command: str = "run") -> str:
    proc = _invoke(tmp_path, text, command)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "lab.db").exists() or "stdout.txt" not in {p.name for p in tmp_path.rglob("*")}
    return lines[0]


def test_readiness_url_off_loopback(tmp_path: Path, command: str) -> None:
    line = _fails(tmp_path, command=command, text='[server]\nready_url = "http://example.com:{port}/"\n'
                            '[load]\n[[load.phases]]\nname = "m"\nduration = "1s"\n')
    assert "127.0.0.1" in line


def test_phase_without_duration_or_count(tmp_path: Path, command: str) -> None:
    line = _fails(tmp_path, '[load]\n[[load.phases]]\nname = "measure"\n', command)
    assert "needs a duration or a count" in line


@pytest.mark.jvm
def test_client_not_found(tmp_path: Path, command: str) -> None:
    line = _fails(tmp_path, '[load]\n[[load.phases]]\nname = "m"\ncount = 5\ncommand = ["no-such-client-xyz"]\n'
                            .replace("[load]", '[load]\nparser = "regex"\nregex = "(?P<x>1)"'), command)
    assert "no-such-client-xyz" in line and "not found" in line


@pytest.mark.jvm
def test_port_already_taken(tmp_path: Path, command: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        line = _fails(tmp_path, f'[server]\nport = {port}\n[load]\n[[load.phases]]\nname = "m"\ncount = 5\n', command)
    assert f"port = {port} is already taken" in line


REGEX_LOAD = '[load]\nparser = "regex"\nregex = "(?P<x>1)"\n'


@pytest.mark.jvm
def test_client_not_executable(tmp_path: Path, command: str) -> None:
    (tmp_path / "client.sh").write_text("#!/bin/sh\necho 1\n")  # no x bit
    line = _fails(tmp_path, REGEX_LOAD + '[[load.phases]]\nname = "m"\ncount = 5\ncommand = ["./client.sh"]\n',
                  command)
    assert "'./client.sh' is not an executable file" in line


@pytest.mark.jvm
def test_client_jdk_missing(tmp_path: Path, command: str) -> None:
    line = _fails(tmp_path, f'[load]\njava_home = "{tmp_path}/no-jdk"\n[[load.phases]]\nname = "m"\ncount = 5\n',
                  command)
    assert "java_home" in line and "no executable bin/java" in line


@pytest.mark.jvm
def test_stop_command_not_found(tmp_path: Path, command: str) -> None:
    line = _fails(tmp_path, '[server]\nstop_command = ["no-such-stopper-xyz", "{pid}"]\n'
                            '[load]\n[[load.phases]]\nname = "m"\ncount = 5\n', command)
    assert "stop_command" in line and "no-such-stopper-xyz" in line


@pytest.mark.jvm
def test_check_prints_every_problem_a_line_each(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        proc = _invoke(tmp_path, f'[server]\nport = {port}\n{REGEX_LOAD}[[load.phases]]\nname = "a"\ncount = 5\n'
                                 'command = ["no-such-a"]\n[[load.phases]]\nname = "b"\ncount = 5\n'
                                 'command = ["no-such-b"]\n', "check")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 3 and all(line.startswith("jvmlab: error: ") for line in lines), proc.stderr
    assert "already taken" in lines[0] and "no-such-a" in lines[1] and "no-such-b" in lines[2]


@pytest.mark.jvm
def test_check_passes_a_good_server_spec(tmp_path: Path) -> None:
    proc = _invoke(tmp_path, '[server]\nready_url = "http://127.0.0.1:{port}/health"\n'
                             '[load]\n[[load.phases]]\nname = "m"\ncount = 5\n', "check")
    assert proc.returncode == 0, proc.stderr
    assert "server: ready by url, a free port per invocation on 127.0.0.1; 1 load phase(s)" in proc.stdout
    assert not (tmp_path / "lab.db").exists()  # check runs nothing
