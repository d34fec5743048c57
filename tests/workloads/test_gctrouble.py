"""The `gctrouble` built-in makes each GC problem on a real JVM (17 and 25), and
`gc analyze`'s findings name it. Only findings the workload forces are asserted: System.gc()
calls, 8 MiB arrays, a heap filled to OutOfMemoryError, classes past a small Metaspace, a
ZGC or Shenandoah heap half full of live data under two allocating threads; never counts or
timings."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.gclog import analyze_paths
from jvmlab.gclog.findings_rules import evaluate as find
from jvmlab.model.jdk import JdkInfo

from .conftest import RunWorkload

pytestmark = pytest.mark.jvm

CASES = {  # case: (mode, JVM flags, program arguments, the findings it forces)
    "explicit": ("explicit", ("-XX:+UseG1GC", "-Xmx256m"), ("--count", "3"), {"explicit-gc"}),
    "explicit-shenandoah": ("explicit", ("-XX:+UseShenandoahGC", "-Xmx256m"), ("--count", "3"), {"explicit-gc"}),
    "humongous": ("humongous", ("-XX:+UseG1GC", "-Xmx256m"), ("--mb", "512"), {"humongous-allocation"}),
    "fill": ("fill", ("-XX:+UseG1GC", "-Xmx64m"), (), {"evacuation-failure", "full-gc", "heap-near-max"}),
    "metaspace": ("metaspace", ("-XX:+UseG1GC", "-Xmx128m", "-XX:MaxMetaspaceSize=32m"), (), {"metaspace-gc"}),
    "churn-zgc": ("churn", ("-XX:+UseZGC", "-Xmx64m"), ("--seconds", "2"), {"allocation-stall"}),
    # pacing off: with it, Shenandoah slows the allocating threads and may finish every cycle
    # concurrently (seen once in ~20 runs); without it the cycles degenerate on every run
    "churn-shenandoah": ("churn", ("-XX:+UseShenandoahGC", "-Xmx64m", "-XX:+UnlockExperimentalVMOptions",
                                   "-XX:-ShenandoahPacing"), ("--seconds", "2", "--mb", "40"), {"degenerated-gc"}),
    "churn-small-young": ("churn", ("-XX:+UseParallelGC", "-Xmx256m", "-Xmn4m"),
                          ("--threads", "1", "--seconds", "1", "--mb", "8"), {"frequent-young"}),
    "fill-parallel": ("fill", ("-XX:+UseParallelGC", "-Xmx64m", "-Xmn8m"), (),
                      {"premature-promotion", "heap-near-max"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_gctrouble_mode_shows_its_finding(case: str, run_workload: RunWorkload, any_jdk: JdkInfo,
                                          tmp_path: Path) -> None:
    mode, jvm_args, args, expected = CASES[case]
    log = (tmp_path / "gc.log").absolute()
    done = run_workload(any_jdk, "gctrouble", "--mode", mode, *args,
                        jvm_args=(*jvm_args, f"-Xlog:gc*,safepoint:file={log}"))
    assert done.returncode == 0, done.stderr
    assert "jvmlab-metric name=trouble_ms" in done.stdout
    (summary,) = analyze_paths([log])
    found = {f.id: f for f in find(summary)}
    assert expected <= set(found), sorted(found)
    for fid in expected:
        assert found[fid].evidence.count >= 1 and found[fid].evidence.examples


def test_program_output_in_the_gc_log_is_counted(run_workload: RunWorkload, any_jdk: JdkInfo,
                                                 tmp_path: Path) -> None:
    """-Xlog:gc:stdout mixes the program's own lines into the log: never silently dropped."""
    done = run_workload(any_jdk, "gctrouble", "--mode", "explicit", jvm_args=("-Xmx64m", "-Xlog:gc:stdout"))
    assert done.returncode == 0, done.stderr
    log = tmp_path / "stdout.log"
    log.write_text(done.stdout)
    (summary,) = analyze_paths([log])
    found = {f.id: f for f in find(summary)}
    assert "explicit-gc" in found
    odd = found["unidentified-lines"]
    assert odd.evidence.count == 2 and all(x.startswith("jvmlab-metric") for x in odd.evidence.examples)


def test_jcmd_requests_show_as_heap_inspection_and_heap_dump(session_cache: Path, any_jdk: JdkInfo,
                                                              tmp_path: Path) -> None:
    """A class histogram and a heap dump asked of a running JVM (jcmd, local attach) are
    collections the log names; each is its own finding, not a full-gc fallback."""
    import subprocess
    import time

    from jvmlab.workloads.builtin import prepare_builtin

    from .conftest import java_argv

    log = (tmp_path / "gc.log").absolute()
    workload = prepare_builtin("gctrouble", any_jdk, cache_dir=session_cache)
    argv = java_argv(any_jdk, workload, ("--mode", "churn", "--threads", "1", "--mb", "8", "--seconds", "8"),
                     ("-XX:+UseG1GC", "-Xmx128m", f"-Xlog:gc:file={log}"))
    jcmd = str(any_jdk.home / "bin" / "jcmd")
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for command in (["GC.class_histogram"], ["GC.heap_dump", str(tmp_path / "heap.hprof")]):
            deadline = time.monotonic() + 30
            while True:  # the JVM answers attach requests once it is up: retry, bounded
                done = subprocess.run([jcmd, str(proc.pid), *command], capture_output=True, text=True, timeout=30)
                if done.returncode == 0 or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            assert done.returncode == 0, done.stdout + done.stderr
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        proc.wait(timeout=30)
    (summary,) = analyze_paths([log])
    found = {f.id for f in find(summary)}
    assert {"heap-inspection-gc", "heap-dump-gc"} <= found
    assert "full-gc" not in found
