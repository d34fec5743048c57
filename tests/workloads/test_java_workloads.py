"""Each built-in workload runs on real JVMs (17 and 25) and prints what it promises."""

from __future__ import annotations

import math
import re
import select
import subprocess
import time
from pathlib import Path

import pytest

from jvmlab.model.jdk import JdkInfo
from jvmlab.workloads.builtin import get_spec, prepare_builtin
from jvmlab.workloads.metric_line import WorkloadMetric, parse_metric_line

from .conftest import RunWorkload, java_argv

pytestmark = pytest.mark.jvm
MIB = 1024 * 1024


def metrics_of(stdout: str) -> dict[str, WorkloadMetric]:
    parsed = [parse_metric_line(line) for line in stdout.splitlines()]
    return {m.name: m for m in parsed if m is not None}


def test_hello(run_workload: RunWorkload, any_jdk: JdkInfo) -> None:
    done = run_workload(any_jdk, "hello")
    assert (done.returncode, done.stdout) == (0, "Hello, jvmlab\n")


def test_hellostream(run_workload: RunWorkload, any_jdk: JdkInfo) -> None:
    done = run_workload(any_jdk, "hellostream")
    assert done.returncode == 0, done.stderr
    assert "Hello, jvmlab streams: groups=4" in done.stdout
    assert "squares=338350" in done.stdout


def test_pretouch_reports_memory(run_workload: RunWorkload, any_jdk: JdkInfo) -> None:
    done = run_workload(any_jdk, "pretouch", jvm_args=("-Xms64m", "-Xmx128m"))
    assert done.returncode == 0, done.stderr
    m = metrics_of(done.stdout)
    assert {"free_physical_bytes", "total_physical_bytes", "heap_total_bytes",
            "heap_max_bytes", "heap_free_bytes"} <= set(m)
    assert all(metric.unit == "bytes" for metric in m.values())
    assert 0 < m["free_physical_bytes"].value <= m["total_physical_bytes"].value
    assert 64 * MIB < m["heap_max_bytes"].value <= 128 * MIB
    assert m["heap_free_bytes"].value <= m["heap_total_bytes"].value <= m["heap_max_bytes"].value
    assert "free physical memory:" in done.stdout


def test_tlbsort_is_deterministic_across_jdks(run_workload: RunWorkload, jdk17: JdkInfo,
                                              jdk25: JdkInfo) -> None:
    runs = [run_workload(jdk, "tlbsort", "--mb", "4", "--seed", "7") for jdk in (jdk17, jdk25)]
    checksums = []
    for done in runs:
        assert done.returncode == 0, done.stderr
        m = metrics_of(done.stdout)
        assert set(m) == {"fill_ms", "heapsort_ms", "arrayssort_ms"}
        assert all(metric.unit == "ms" and metric.value >= 0 for metric in m.values())
        found = re.search(r"ints=1048576 checksum=(-?\d+)", done.stdout)
        assert found is not None, done.stdout
        checksums.append(found.group(1))
    assert checksums[0] == checksums[1]
    other_seed = run_workload(jdk25, "tlbsort", "--mb", "4", "--seed", "8")
    assert f"checksum={checksums[0]}" not in other_seed.stdout
    assert "checksum=" in other_seed.stdout


def test_integral_converges(run_workload: RunWorkload, any_jdk: JdkInfo) -> None:
    done = run_workload(any_jdk, "integral", "--steps", "2000")
    assert done.returncode == 0, done.stderr
    result = re.search(r"= (\S+) steps=2000 error=(\S+)", done.stdout)
    assert result is not None, done.stdout
    assert math.isclose(float(result.group(1)), math.e - 1, rel_tol=1e-12)
    m = metrics_of(done.stdout)
    assert m["integral_ms"].unit == "ms" and m["integral_ms"].value >= 0


def test_chunkgen_progress_and_totals(run_workload: RunWorkload, any_jdk: JdkInfo) -> None:
    # Small heap, as the docs promise: -Xmx256m with a 64 MiB retained set.
    started = time.monotonic()
    done = run_workload(any_jdk, "chunkgen", "--threads", "2", "--seconds", "2", "--retain-mb", "64",
                        "--chunk-kb", "64", jvm_args=("-Xmx256m",), timeout=60)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    progress = get_spec("chunkgen").progress_regex
    assert progress is not None
    counts = [int(m.group("units")) for m in re.finditer(progress, done.stdout)]
    assert len(counts) >= 2  # at least one per-second line plus the final one
    assert counts == sorted(counts)
    m = metrics_of(done.stdout)
    assert m["chunks"].value == counts[-1] > 0
    assert m["chunks"].unit == "count"
    assert m["chunks_per_s"].unit == "chunks/s" and m["chunks_per_s"].value > 0
    assert elapsed < 45  # ends on time: 2 s of work, generous bound for a loaded machine


def test_busy_exit_code_and_metric(run_workload: RunWorkload, jdk25: JdkInfo) -> None:
    done = run_workload(jdk25, "busy", "--ms", "50", "--spin", "--exit", "3")
    assert done.returncode == 3
    assert metrics_of(done.stdout)["busy_ms"].value >= 50


def test_busy_ready_marker_comes_first(run_workload: RunWorkload, jdk17: JdkInfo) -> None:
    done = run_workload(jdk17, "busy", "--ready-after-ms", "100", "--ms", "10")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    metric_at = next(i for i, line in enumerate(lines) if line.startswith("jvmlab-metric name=busy_ms"))
    assert "READY" in lines[:metric_at]


def test_busy_oom_fails_with_out_of_memory(run_workload: RunWorkload, jdk17: JdkInfo) -> None:
    done = run_workload(jdk17, "busy", "--oom", jvm_args=("-Xmx32m",))
    assert done.returncode != 0
    assert "java.lang.OutOfMemoryError" in done.stderr


def test_busy_hang_is_killable(session_cache: Path, jdk25: JdkInfo) -> None:
    workload = prepare_builtin("busy", jdk25, cache_dir=session_cache)
    proc = subprocess.Popen(java_argv(jdk25, workload, ("--hang",)), stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        lines = [proc.stdout.readline() for _ in range(2)] if ready else []
        assert lines and lines[-1] == "hanging\n"
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -9
