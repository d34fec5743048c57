"""Discovery on the real machine: both JDKs, symlinks collapsed, JVMLAB_JDK_PATH honoured."""

from __future__ import annotations

from pathlib import Path

import pytest
from jdk_test_paths import JDK17_HOME, JDK17_SYMLINK, TEMURIN25_HOME

from jvmlab.jdk.cache import JdkCache
from jvmlab.jdk.discover import candidates, discover
from jvmlab.jdk.model import JdkInfo

pytestmark = pytest.mark.jvm


def _by_home(jdks: list[JdkInfo]) -> dict[Path, JdkInfo]:
    return {jdk.home: jdk for jdk in jdks}


def test_finds_both_jdks_once_each(found: list[JdkInfo], jdk17: JdkInfo, jdk25: JdkInfo) -> None:
    homes = [jdk.home for jdk in found]
    assert JDK17_HOME in homes and TEMURIN25_HOME in homes
    assert len(homes) == len(set(homes))
    assert _by_home(found)[TEMURIN25_HOME].feature == 25
    assert [jdk.feature for jdk in found] == sorted(jdk.feature for jdk in found)


def test_symlinked_jdk17_collapses_into_one_entry(found: list[JdkInfo], jdk17: JdkInfo) -> None:
    if not JDK17_SYMLINK.is_symlink():
        pytest.skip(f"{JDK17_SYMLINK} is not a symlink here")
    jdk = _by_home(found)[JDK17_HOME]
    assert str(JDK17_SYMLINK) in jdk.aliases and str(JDK17_HOME) in jdk.aliases
    assert "/usr/lib/jvm" in jdk.sources
    assert all(j.home != JDK17_SYMLINK for j in found)


def test_jvmlab_jdk_path_accepts_homes_and_directories_of_homes(
    tmp_path: Path, shared_cache: JdkCache, clean_env: dict[str, str], jdk25: JdkInfo
) -> None:
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    (shelf / "my-temurin").symlink_to(TEMURIN25_HOME)
    (shelf / "not-a-jdk").mkdir()  # skipped silently
    (shelf / "README").write_text("not a directory")
    direct = tmp_path / "direct-link"
    direct.symlink_to(TEMURIN25_HOME)
    env = {
        **clean_env,
        "JVMLAB_JDK_PATH": f"{shelf}:{direct}:{tmp_path / 'missing'}",
        "JAVA_HOME": str(direct),
    }

    listed = [(c.path, c.source) for c in candidates(env)]
    assert (shelf / "my-temurin", "JVMLAB_JDK_PATH") in listed
    assert (direct, "JVMLAB_JDK_PATH") in listed
    assert (direct, "JAVA_HOME") in listed

    jdk = _by_home(discover(env=env, cache=shared_cache))[TEMURIN25_HOME]
    assert {"JVMLAB_JDK_PATH", "JAVA_HOME", "/usr/lib/jvm"} <= set(jdk.sources)
    assert str(shelf / "my-temurin") in jdk.aliases and str(direct) in jdk.aliases


def test_java_on_path_is_a_source(found: list[JdkInfo], clean_env: dict[str, str]) -> None:
    on_path = [c.path for c in candidates(clean_env) if c.source == "PATH"]
    if not on_path:
        pytest.skip("no java on PATH")
    home = on_path[0].resolve().parent.parent
    assert "PATH" in _by_home(found)[home].sources
