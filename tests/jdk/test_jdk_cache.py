"""The identification cache: used when valid, invalidated by a changed release file, robust."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jdk_test_paths import TEMURIN25_HOME

from jvmlab.jdk.cache import CACHE_FILE, JdkCache
from jvmlab.jdk.discover import discover
from jvmlab.jdk.identify import identify
from jvmlab.jdk.proc import JVM_STARTS
from jvmlab.paths import cache_root


def test_cache_dir_follows_environment(tmp_path: Path) -> None:
    assert cache_root({"JVMLAB_CACHE_DIR": str(tmp_path / "a"), "XDG_CACHE_HOME": "/x"}) == tmp_path / "a"
    assert cache_root({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "jvmlab"
    assert cache_root({}) == Path.home() / ".cache" / "jvmlab"


def _fake_home(tmp_path: Path) -> Path:
    """A JDK home of symlinks to Temurin 25 with its own copy of the release file."""
    if not (TEMURIN25_HOME / "bin" / "java").is_file():
        pytest.skip(f"{TEMURIN25_HOME} is not installed")
    home = tmp_path / "fake-jdk"
    home.mkdir()
    for entry in TEMURIN25_HOME.iterdir():
        if entry.name != "release":
            (home / entry.name).symlink_to(entry)
    (home / "release").write_bytes((TEMURIN25_HOME / "release").read_bytes())
    return home


@pytest.mark.jvm
def test_second_discover_starts_no_jvm(tmp_path: Path, clean_env: dict[str, str]) -> None:
    cache = JdkCache(tmp_path / "cache")
    before = JVM_STARTS.count
    first = discover(env=clean_env, cache=cache)
    assert first and JVM_STARTS.count > before
    after_first = JVM_STARTS.count
    second = discover(env=clean_env, cache=cache)
    assert JVM_STARTS.count == after_first
    assert second == first


@pytest.mark.jvm
def test_release_file_change_invalidates(tmp_path: Path) -> None:
    home = _fake_home(tmp_path)
    cache = JdkCache(tmp_path / "cache")
    identify(home, cache=cache)
    started = JVM_STARTS.count
    identify(home, cache=cache)
    assert JVM_STARTS.count == started  # served from the cache

    release = home / "release"
    release.write_text(release.read_text() + 'EXTRA="changed by an upgrade"\n')
    again = identify(home, cache=cache)
    assert JVM_STARTS.count > started
    assert again.feature == 25


@pytest.mark.jvm
def test_corrupt_cache_is_ignored_and_rewritten(tmp_path: Path) -> None:
    home = _fake_home(tmp_path)
    cache = JdkCache(tmp_path / "cache")
    cache.directory.mkdir()
    cache.path.write_text('{"format": 1, "jdks": {trunc')
    info = identify(home, cache=cache)
    data = json.loads(cache.path.read_text())
    assert data["jdks"][str(home)]["info"]["version"] == info.version
    assert [p.name for p in cache.directory.iterdir()] == [CACHE_FILE]  # no temp files left


def test_entries_of_other_kinds_survive_and_stale_ones_are_dropped(tmp_path: Path) -> None:
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "java").write_text("#!/bin/sh\n")
    (home / "release").write_text('JAVA_VERSION="1"\n')
    cache = JdkCache(tmp_path / "cache")
    cache.put(home, "info", {"a": 1})
    cache.put(home, "flag_names", ["X"])
    assert cache.get(home, "info") == {"a": 1} and cache.get(home, "flag_names") == ["X"]
    (home / "release").write_text('JAVA_VERSION="2"\n')
    assert cache.get(home, "info") is None
    cache.put(home, "flag_names", ["Y"])
    assert cache.get(home, "info") is None and cache.get(home, "flag_names") == ["Y"]
