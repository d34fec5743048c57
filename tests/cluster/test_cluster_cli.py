"""`run --cluster` with no scheduler there: one line and exit code 2, nothing run."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from cli_runner import run_jvmlab

pytest.importorskip("distributed")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path: Path, jdk17_home: Path) -> None:
    (tmp_path / "s.toml").write_text(f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n'
                                     f'[run]\ninvocations = 1\nwarmup = 0\n')
    proc = run_jvmlab("run", "s.toml", "--cluster", f"tcp://127.0.0.1:{_closed_port()}", "--store", "lab.db",
                      cwd=tmp_path, timeout=120)
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "cannot reach the Dask scheduler" in lines[0] and "Traceback" not in proc.stderr


@pytest.mark.parametrize("args, says", [
    (["run", "s.toml", "--artifacts-url", "file:///tmp"], "--artifacts-url is for --cluster runs"),
    (["run", "s.toml", "--cluster", "tcp://127.0.0.1:1", "--artifacts-url", "s3://bucket/x"], "file:///PATH"),
    (["tune", "s.toml", "--cluster", "tcp://127.0.0.1:1"], "has no [tune] section"),  # the spec first
])
def test_cluster_options_refused_with_one_line(tmp_path: Path, jdk17_home: Path, args: list[str], says: str) -> None:
    """Checked before anything runs (no scheduler is contacted, no experiment is created)."""
    (tmp_path / "s.toml").write_text(f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n'
                                     f'[run]\ninvocations = 1\nwarmup = 0\n')
    proc = run_jvmlab(*args, "--store", "lab.db", cwd=tmp_path, timeout=120)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and says in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


TUNE = '''[tune]
objective = "wall_s"
budget = { trials = 2 }
[tune.params.gc]
type = "categorical"
values = { serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }
'''


@pytest.mark.parametrize("command, extra, says", [
    ("run", '[environment]\nmemory = ["300m"]\n', "[environment] memory is prepared on this machine only"),
    ("minheap", '[environment]\nmemory = ["300m"]\n', "[environment] memory is prepared on this machine only"),
    ("tune", '[environment]\nmemory = ["300m"]\n' + TUNE, "[environment] memory is prepared on this machine only"),
    ("tune", TUNE.replace('parallel = "-XX:+UseParallelGC"', 'cds = { prepare = "cds-archive" }'),
     "asks for an archive"),
])
def test_machine_only_preparation_refused_on_a_cluster(tmp_path: Path, jdk17_home: Path, command: str, extra: str,
                                                       says: str) -> None:
    """Limits, tmpfs copies and archives are set up on this machine only: on a cluster's nodes they would be
    silently missing, so `--cluster` refuses them before the scheduler is contacted (port 1: nothing there)."""
    (tmp_path / "s.toml").write_text(f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n'
                                     f'[run]\ninvocations = 1\nwarmup = 0\n{extra}')
    proc = run_jvmlab(command, "s.toml", "--cluster", "tcp://127.0.0.1:1", "--store", "lab.db", cwd=tmp_path,
                      timeout=120)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and says in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
