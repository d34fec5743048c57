"""Fixtures shared by every test package: the real JDKs here and a way to run the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
JDK17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")
JDK25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64")


def _jdk(home: Path) -> Path:
    if not (home / "bin" / "java").is_file():
        pytest.skip(f"no JDK at {home}")
    return home


@pytest.fixture(scope="session")
def jdk17_home() -> Path:
    return _jdk(JDK17)


@pytest.fixture(scope="session")
def jdk25_home() -> Path:
    return _jdk(JDK25)


def run_jvmlab(*args: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None,
               ) -> subprocess.CompletedProcess[str]:
    """Run `python -m jvmlab ARGS` as a user would, capturing its output."""
    full_env = {**os.environ, **(env or {}), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "jvmlab", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture
def jvmlab_cli():
    return run_jvmlab
