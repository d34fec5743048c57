"""Fixtures shared by every test package: the real JDKs of this machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.model.jdk import JdkInfo
from pg_server import PgServer, running_server, why_unavailable
from testing_jdks import JDK17_HOME, JDK25_HOME, make_jdk, need

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def jdk17_home() -> Path:
    return need(JDK17_HOME)


@pytest.fixture(scope="session")
def jdk25_home() -> Path:
    return need(JDK25_HOME)




@pytest.fixture(scope="session")
def jdk17() -> JdkInfo:
    """JDK 17 as a hand-made JdkInfo (for packages that must not depend on discovery)."""
    return make_jdk(JDK17_HOME, 17)


@pytest.fixture(scope="session")
def jdk25() -> JdkInfo:
    return make_jdk(JDK25_HOME, 25)


@pytest.fixture(scope="session")
def pg_server() -> PgServer:
    """A real PostgreSQL on 127.0.0.1 for this test session (one per xdist worker that asks)."""
    reason = why_unavailable()
    if reason:
        pytest.skip(reason)
    with running_server() as server:
        yield server
