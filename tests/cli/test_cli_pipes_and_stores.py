"""A store that is not a database is one line and exit 2; a closed pipe ends quietly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cli_runner import run_jvmlab
from jvmlab.report.synthetic import generate
from jvmlab.store.sql import SqlStore


def test_a_store_that_is_not_a_database_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "some.log").write_text("2026-11-23 this is a log file, not SQLite\n" * 50)
    for command in (["results"], ["report"], ["run", "nothing.toml"]):
        proc = run_jvmlab(*command, "--store", "some.log", cwd=tmp_path)
        assert proc.returncode == 2, (command, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "not an SQLite database" in lines[0] and "internal error" not in lines[0]


def test_report_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    generate(store)
    store.close()
    # `jvmlab report | head -1`: head exits after one line and closes the pipe.
    proc = subprocess.run(f"{sys.executable} -m jvmlab report --store lab.db | head -1; "
                          f"echo \"rc=${{PIPESTATUS[0]}}\" >&2", shell=True, executable="/bin/bash",
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert len(proc.stdout.splitlines()) == 1
    rc = proc.stderr.strip().splitlines()[-1]
    assert rc in ("rc=0", "rc=141"), proc.stderr
    assert proc.stderr.strip().splitlines() == [rc], "no message about the closed pipe"


def test_every_output_path_ends_quietly_on_a_closed_pipe(tmp_path: Path) -> None:
    """rich's console, typer.echo and plain writes: all end with 0 or 141 and say nothing."""
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    generate(store)
    store.close()
    for command in ("report --json", "export --format json", "results", "demo --list"):
        # Whether the pipe closes before the last write is a race: either way must be quiet.
        proc = subprocess.run(f"{sys.executable} -m jvmlab {command} --store lab.db | head -c 1 >/dev/null; "
                              f"echo \"rc=${{PIPESTATUS[0]}}\" >&2", shell=True, executable="/bin/bash",
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert proc.stderr.strip() in ("rc=0", "rc=141"), (command, proc.stderr)
