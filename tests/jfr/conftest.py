"""Real JDKs and the JfrWork program (compiled once per session) for the JFR tests."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from jvmlab.collect.base import Collector
from jvmlab.execute.local import LocalExecutor
from jvmlab.model.collected import Collected
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import InvocationPlan, ProcessResult

JAVA_DIR = Path(__file__).parent / "java"


@pytest.fixture(scope="session")
def jfr_classes(jdk17: JdkInfo, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/jfr/java compiled for Java 17 (runs on 17 and 25)."""
    out = tmp_path_factory.mktemp("jfr-classes")
    sources = sorted(str(p) for p in JAVA_DIR.glob("*.java"))
    subprocess.run([str(jdk17.home / "bin" / "javac"), "--release", "17", "-d", str(out), *sources],
                   check=True, capture_output=True, timeout=120)
    return out


@dataclass
class JfrRun:
    result: ProcessResult
    collected: Collected


def _run(collectors: Sequence[Collector], jdk: JdkInfo, folder: Path, main: Sequence[str],
         classpath: Path, flags: Sequence[str] = ()) -> JfrRun:
    """One invocation through the real LocalExecutor, probes called as the runner does."""
    artifacts = folder / "artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    ctx = ProbeContext(jdk=jdk, cell_name="cell", flags=(), artifacts_dir=artifacts)
    probes = [c.probe(ctx) for c in collectors]
    argv = [str(jdk.java), *flags, *(a for p in probes for a in p.jvm_args()), "-cp", str(classpath), *main]
    plan = InvocationPlan(argv=tuple(argv), env={"PATH": "/usr/bin:/bin"}, cwd=folder, timeout_s=120,
                          artifacts_dir=artifacts)
    result = LocalExecutor().run(plan, probes)
    collected = Collected()
    for probe in probes:
        collected.merge(probe.finish(result))
    return JfrRun(result, collected)


@pytest.fixture
def run_jvm():
    return _run
