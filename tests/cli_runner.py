"""Running the jvmlab command line from tests, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_jvmlab(*args: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None,
               ) -> subprocess.CompletedProcess[str]:
    """Run `python -m jvmlab ARGS`, capturing its output."""
    full_env = {**os.environ, **(env or {}), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "jvmlab", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def run_spec_json(tmp_path: Path, spec_text: str, *extra: str, name: str = "spec.toml") -> dict:
    """Write a spec, `jvmlab run` it into ./lab.db with --json, and return the summary."""
    import json

    spec = tmp_path / name
    spec.write_text(spec_text)
    proc = run_jvmlab("run", str(spec), "--store", "lab.db", "--json", "--quiet", *extra, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
