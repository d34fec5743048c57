"""The gc-log-missing hint speaks of `command` workloads only when the workload is one."""

from __future__ import annotations

from pathlib import Path

from jvmlab.collect.gc import GcCollector
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import ProcessResult, Status

OK = ProcessResult(Status.OK, None, 0, None, None, 1, 0.0)


def test_missing_gc_log_hint_fits_the_workload(jdk17: JdkInfo, tmp_path: Path) -> None:
    [command] = GcCollector().probe(ProbeContext(jdk17, "c", (), tmp_path, workload_kind="command")).finish(OK).hazards
    assert "{jvm_args}" in command.hint
    [main] = GcCollector().probe(ProbeContext(jdk17, "c", (), tmp_path, workload_kind="main")).finish(OK).hazards
    assert "command" not in main.hint and str(tmp_path) in main.hint
