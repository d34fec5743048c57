"""Fixtures shared by every test package: the real JDKs here and a way to run the CLI."""

from __future__ import annotations

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


