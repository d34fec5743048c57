"""The JDKs of the test machines, for every test package (one place, not one per conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.model.jdk import JdkInfo

JDK17_HOME = Path("/usr/lib/jvm/java-17-openjdk-amd64")
JDK25_HOME = Path("/usr/lib/jvm/temurin-25-jdk-amd64")


def need(home: Path) -> Path:
    """The JDK home, or skip the test when this machine lacks it."""
    if not (home / "bin" / "java").is_file():
        pytest.skip(f"no JDK at {home}")
    return home


def make_jdk(home: Path, feature: int, has_javac: bool = True) -> JdkInfo:
    """A JdkInfo built by hand, for tests of packages that must not depend on discovery."""
    need(home)
    return JdkInfo(home=home, version=str(feature), feature=feature, vendor="test",
                   vm="OpenJDK 64-Bit Server VM", vm_kind="HotSpot", has_javac=has_javac)
