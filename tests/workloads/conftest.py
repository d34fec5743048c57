"""Shared fixtures: the two JDKs on this machine and a once-per-session compiled cache."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from jvmlab.model.jdk import JdkInfo
from jvmlab.workloads.builtin import BuiltinWorkload, prepare_builtin
from testing_jdks import JDK17_HOME, JDK25_HOME, make_jdk  # noqa: F401 - re-exported to the tests

RUN_TIMEOUT_S = 120.0


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
