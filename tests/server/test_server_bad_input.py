"""Bad server/load input: one line on stderr, exit code 2, before anything runs."""

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


def _fails(tmp_path: Path, text: str) -> str:
    (tmp_path / "spec.toml").write_text(BASE + text)
    proc = run_jvmlab("run", "spec.toml", "--store", "lab.db", "--quiet", cwd=tmp_path, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "lab.db").exists() or "stdout.txt" not in {p.name for p in tmp_path.rglob("*")}
    return lines[0]


def test_readiness_url_off_loopback(tmp_path: Path) -> None:
    line = _fails(tmp_path, '[server]\nready_url = "http://example.com:{port}/"\n'
                            '[load]\n[[load.phases]]\nname = "m"\nduration = "1s"\n')
    assert "127.0.0.1" in line


def test_phase_without_duration_or_count(tmp_path: Path) -> None:
    line = _fails(tmp_path, '[load]\n[[load.phases]]\nname = "measure"\n')
    assert "needs a duration or a count" in line


@pytest.mark.jvm
def test_client_not_found(tmp_path: Path) -> None:
    line = _fails(tmp_path, '[load]\n[[load.phases]]\nname = "m"\ncount = 5\ncommand = ["no-such-client-xyz"]\n'
                            .replace("[load]", '[load]\nparser = "regex"\nregex = "(?P<x>1)"'))
    assert "no-such-client-xyz" in line and "not found" in line


@pytest.mark.jvm
def test_port_already_taken(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        line = _fails(tmp_path, f'[server]\nport = {port}\n[load]\n[[load.phases]]\nname = "m"\ncount = 5\n')
    assert f"port = {port} is already taken" in line
