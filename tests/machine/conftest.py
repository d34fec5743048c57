"""Shared fixtures: plans prepared from small specs on this machine's JDKs."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from jvmlab.plan.prepare import Plan, prepare
from jvmlab.spec.load import parse_spec
from testing_jdks import JDK17_HOME, JDK25_HOME, need  # noqa: F401

SHM = Path("/dev/shm")


MakePlan = Callable[..., Plan]


@pytest.fixture()
def make_plan() -> MakePlan:
    """``make_plan(body, jvms={"jdk17": path})``: a prepared plan (flags checked, like `run`)."""

    def make(body: str, jvms: dict[str, Path] | None = None, workload: str = "hello") -> Plan:
        jvms = jvms or {"jdk17": need(JDK17_HOME)}
        table = "\n".join(f'{name} = "{need(home)}"' for name, home in jvms.items())
        text = (f'[workload]\nbuiltin = "{workload}"\n\n[jvms]\n{table}\n\n{body}\n'
                '[run]\ninvocations = 1\ntimeout = "60s"\n')
        return prepare(parse_spec(text, "test"), text, None)

    return make


@pytest.fixture()
def shm_dir() -> Iterator[Path]:
    """A private folder on /dev/shm (tmpfs), removed afterwards."""
    if not SHM.is_dir():
        pytest.skip("no /dev/shm")
    path = SHM / f"jvmlab-test-{os.getpid()}-{os.urandom(3).hex()}"
    path.mkdir()
    yield path
    shutil.rmtree(path, ignore_errors=True)
