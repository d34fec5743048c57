"""Real JDKs, tiny Java programs compiled once per session, and a helper that runs one
invocation through the real LocalExecutor with the probes of some collectors."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from jvmlab.collect.base import Collector
from jvmlab.execute.local import LocalExecutor
from jvmlab.jdk.flagtable import parse_flags_final
from jvmlab.model.collected import Collected
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import InvocationPlan, ProcessResult
from testing_jdks import JDK17_HOME, JDK25_HOME, make_jdk  # noqa: F401

JAVA_DIR = Path(__file__).parent / "java"


@pytest.fixture(scope="session")
def classes(jdk17: JdkInfo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test programs in tests/collect/java, compiled for Java 17 (runs on 17 and 25)."""
    out = tmp_path_factory.mktemp("classes")
    sources = sorted(str(p) for p in JAVA_DIR.glob("*.java"))
    subprocess.run([str(jdk17.home / "bin" / "javac"), "--release", "17", "-d", str(out), *sources],
                   check=True, capture_output=True, timeout=120)
    return out


def final_flags(jdk: JdkInfo, flags: Sequence[str]) -> dict[str, str]:
    """The real PrintFlagsFinal table of ``flags`` on ``jdk`` (as the planner captures it)."""
    run = subprocess.run([str(jdk.java), *flags, "-XX:+PrintFlagsFinal", "-version"],
                         capture_output=True, text=True, timeout=60, check=True)
    return {name: row.value for name, row in parse_flags_final(run.stdout).items()}


@dataclass
class Run:
    result: ProcessResult
    collected: Collected
    ctx: ProbeContext
    argv: list[str]


def run_with(collectors: Sequence[Collector], jdk: JdkInfo, tmp_path: Path, flags: Sequence[str],
             main: Sequence[str], *, classpath: Path | None = None, final: dict[str, str] | None = None,
             launcher: Sequence[str] = ()) -> Run:
    """One invocation, as the runner does it: probes' flags after the cell's, finish in order.

    ``launcher`` (for example ``["sh", "-c", 'exec "$0" "$@"']``) starts java through
    another process, like a ``command`` workload.
    """
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    ctx = ProbeContext(jdk=jdk, cell_name="cell", flags=tuple(flags), artifacts_dir=artifacts,
                       final_flags=final or {})
    probes = [c.probe(ctx) for c in collectors]
    jvm_args = [*flags, *(a for p in probes for a in p.jvm_args())]
    cp = ["-cp", str(classpath)] if classpath else []
    argv = [*launcher, str(jdk.java), *jvm_args, *cp, *main]
    plan = InvocationPlan(argv=tuple(argv), env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path, timeout_s=120,
                          artifacts_dir=artifacts)
    result = LocalExecutor().run(plan, probes)
    collected = Collected()
    for probe in probes:
        collected.merge(probe.finish(result))
    return Run(result, collected, ctx, argv)


@pytest.fixture
def run_java():
    """The :func:`run_with` helper, for tests (test modules cannot import conftest)."""
    return run_with


@pytest.fixture
def final_flags_of():
    """The :func:`final_flags` helper as a fixture."""
    return final_flags
