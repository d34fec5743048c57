"""Shared fixtures: the two JDKs on this machine and a once-per-session compiled cache."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from jvmlab.jdk.model import JdkInfo
from jvmlab.workloads.builtin import BuiltinWorkload, prepare_builtin

JDK17_HOME = Path("/usr/lib/jvm/java-17-openjdk-amd64")
JDK25_HOME = Path("/usr/lib/jvm/temurin-25-jdk-amd64")
RUN_TIMEOUT_S = 120.0


def make_jdk(home: Path, feature: int, has_javac: bool = True) -> JdkInfo:
    """A JdkInfo built by hand (JDK discovery is another package's job)."""
    if not (home / "bin" / "java").is_file():
        pytest.skip(f"no JDK at {home}")
    return JdkInfo(home=home, version=str(feature), feature=feature, vendor="test",
                   vm="OpenJDK 64-Bit Server VM", vm_kind="HotSpot", has_javac=has_javac)


@pytest.fixture(scope="session")
def jdk17() -> JdkInfo:
    return make_jdk(JDK17_HOME, 17)


@pytest.fixture(scope="session")
def jdk25() -> JdkInfo:
    return make_jdk(JDK25_HOME, 25)


@pytest.fixture(scope="session", params=["jdk17", "jdk25"])
def any_jdk(request: pytest.FixtureRequest) -> JdkInfo:
    jdk: JdkInfo = request.getfixturevalue(request.param)
    return jdk


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory: pytest.TempPathFactory, jdk17: JdkInfo) -> Path:
    """A cache root with the workloads compiled once (by JDK 17's javac, release 8)."""
    root = tmp_path_factory.mktemp("jvmlab-cache")
    prepare_builtin("hello", jdk17, cache_dir=root)
    return root


RunWorkload = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="session")
def run_workload(session_cache: Path) -> RunWorkload:
    """Run a built-in on a JDK: ``run_workload(jdk, "tlbsort", "--mb", "4", jvm_args=[...])``."""

    def run(jdk: JdkInfo, name: str, *args: str, jvm_args: tuple[str, ...] = (),
            timeout: float = RUN_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
        workload = prepare_builtin(name, jdk, cache_dir=session_cache)
        return subprocess.run(java_argv(jdk, workload, args, jvm_args), capture_output=True,
                              text=True, timeout=timeout, check=False)

    return run


def java_argv(jdk: JdkInfo, workload: BuiltinWorkload, args: tuple[str, ...],
              jvm_args: tuple[str, ...] = ()) -> list[str]:
    return [str(jdk.java), *jvm_args, "-cp", str(workload.classpath), workload.main_class, *args]
