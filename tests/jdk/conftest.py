"""Fixtures for the JDK tests: the two real JDKs of the test machine and an isolated cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from jdk_test_paths import JDK17_HOME, TEMURIN25_HOME

from jvmlab.jdk.cache import JdkCache
from jvmlab.jdk.discover import discover
from jvmlab.jdk.identify import identify
from jvmlab.jdk.model import JdkInfo


def _require(home: Path) -> Path:
    if not (home / "bin" / "java").is_file():
        pytest.skip(f"{home} is not installed")
    return home


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> JdkCache:
    """One cache for the session so each JDK is probed once per test process."""
    return JdkCache(tmp_path_factory.mktemp("jdk-cache"))


@pytest.fixture(scope="session")
def clean_env() -> dict[str, str]:
    """The process environment without JVMLAB_JDK_PATH, so only system JDKs are found."""
    env = dict(os.environ)
    env.pop("JVMLAB_JDK_PATH", None)
    return env


@pytest.fixture(scope="session")
def found(shared_cache: JdkCache, clean_env: dict[str, str]) -> list[JdkInfo]:
    return discover(env=clean_env, cache=shared_cache)


@pytest.fixture(scope="session")
def jdk17(shared_cache: JdkCache) -> JdkInfo:
    return identify(_require(JDK17_HOME), cache=shared_cache)


@pytest.fixture(scope="session")
def jdk25(shared_cache: JdkCache) -> JdkInfo:
    return identify(_require(TEMURIN25_HOME), cache=shared_cache)


@pytest.fixture(params=["17", "25"])
def any_jdk(request: pytest.FixtureRequest) -> JdkInfo:
    """Each real JDK in turn (for checks whose JVM messages differ between releases)."""
    return request.getfixturevalue("jdk17" if request.param == "17" else "jdk25")
