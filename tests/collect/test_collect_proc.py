"""The /proc sampler: parsing, and real JVMs for memory, CPU groups and process trees."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from jvmlab.collect.proc import (
    ProcCollector,
    ProcSample,
    TreeSampler,
    parse_rollup,
    parse_stat,
    summarize,
)
from jvmlab.model.jdk import JdkInfo


def test_parse_stat_handles_parentheses_and_spaces_in_names() -> None:
    line = (b"4242 (weird) (name x) S 1 1 1 0 -1 4194304 72 0 0 0 250 17 0 0 20 0 1 0 54590 "
            b"2654208 364 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n")
    assert parse_stat(line) == ("weird) (name x", 267)
    assert parse_stat(b"garbage") is None


def test_parse_rollup_reads_kib_as_bytes() -> None:
    text = b"55c7-7ffd ---p 00000000 00:00 0 [rollup]\nRss:  1672 kB\nPss:  390 kB\nAnonHugePages:  2048 kB\n"
    assert parse_rollup(text) == {"rss": 1672 * 1024, "pss": 390 * 1024, "anon_huge": 2048 * 1024}


def _samples(n: int, step_s: float = 0.1) -> list[ProcSample]:
    """n samples of a process whose RSS grows, CPU 60 % app, 20 % JIT, 10 % GC, 10 % VM at the end."""
    out = []
    for i in range(1, n + 1):
        f = i / n
        cpu = {"jit": 0.2 * f, "gc": 0.1 * f, "vm": 0.1 * f, "app": 0.6 * f}
        rolled = i % 2 == 0  # smaps_rollup read at every other sample
        out.append(ProcSample(i * step_s, 100 * i, 90 * i if rolled else None, 4096 if rolled else None, cpu))
    return out


def test_summarize_shares_and_peaks() -> None:
    out = summarize(_samples(12), shift_s=0.01, child_cpu_s=1.1)
    assert out.metrics["mem.peak_rss_bytes"] == 1200
    assert out.metrics["mem.peak_pss_bytes"] == 90 * 12
    assert out.metrics["mem.peak_anon_huge_bytes"] == 4096
    assert out.metrics["cpu.app_share"] == pytest.approx(0.6)
    assert out.metrics["cpu.jit_share"] == pytest.approx(0.2)
    assert out.metrics["cpu.gc_share"] == pytest.approx(0.1)
    assert out.timelines["cpu.app_s"].values[-1] == pytest.approx(0.6)
    assert out.timelines["mem.rss_bytes"].t_s[:2] == (0.11, 0.21)
    assert out.timelines["mem.pss_bytes"].t_s[:2] == (0.21, 0.41)
    assert out.documents["proc"] == {"samples": 12, "rollup_samples": 6}


def test_too_few_samples_give_no_figure_but_a_reason() -> None:
    """A sub-second JVM sampled 3 times: shares and sampled peaks are None, with the reason."""
    out = summarize(_samples(3), child_cpu_s=0.5)
    for name in ("cpu.app_share", "cpu.gc_share", "cpu.jit_share", "cpu.vm_share",
                 "mem.peak_rss_bytes", "mem.peak_pss_bytes", "mem.peak_anon_huge_bytes"):
        assert name not in out.metrics
    why = out.documents["proc"]["unmeasured"]
    assert why["cpu.gc_share"] == "fewer than 10 samples (3 in 0.20 s)"
    assert why["mem.peak_rss_bytes"] == "fewer than 5 samples (3 in 0.20 s)"
    assert why["mem.peak_pss_bytes"].startswith("fewer than 5 samples (1 in")
    assert "mem.rss_bytes" in out.timelines, "the samples themselves are kept, with their times"


def test_no_rollup_read_gives_the_reason_for_pss() -> None:
    samples = [ProcSample(0.1, 100, None, None, {"jit": 0.0, "gc": 0.0, "vm": 0.0, "app": 0.01})]
    why = summarize(samples).documents["proc"]["unmeasured"]
    assert why["mem.peak_pss_bytes"] == "fewer than 5 samples (0 in 0.00 s) of smaps_rollup"
    assert why["mem.peak_anon_huge_bytes"] == "fewer than 5 samples (0 in 0.00 s) of smaps_rollup"


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps_rollup"), reason="needs Linux /proc")
def test_first_sample_skips_smaps_rollup_and_new_threads_are_found() -> None:
    # This test's own process is the sampled one: real /proc files, no JVM needed.
    sampler = TreeSampler(os.getpid())
    try:
        first = sampler.sample(0.1)
        assert first.rss_bytes > 0 and first.pss_bytes is None  # start-up: no page walk yet
        assert sampler.sample(0.2).pss_bytes is not None
        stop = threading.Event()
        worker = threading.Thread(target=stop.wait, name="late-thread", daemon=True)
        worker.start()
        try:
            sampler.sample(0.3)  # the thread count changed: the task folder is listed again
            assert (os.getpid(), worker.native_id) in sampler.last_ticks
        finally:
            stop.set()
            worker.join()
    finally:
        sampler.close()


def test_shares_that_miss_most_of_the_cpu_time_are_not_given() -> None:
    # The samples attribute 1.0 s, but the child used 2.0 s (wait4): most went unseen.
    out = summarize(_samples(12), child_cpu_s=2.0)
    assert "cpu.app_share" not in out.metrics
    assert out.documents["proc"]["unmeasured"]["cpu.app_share"] == (
        "the samples attribute only 50% of the process's 2.00 s of CPU time (need 80%)")
    assert out.metrics["mem.peak_rss_bytes"] == 1200, "memory peaks do not depend on CPU attribution"


@pytest.mark.jvm
def test_exited_thread_keeps_its_cpu_time(jdk17: JdkInfo, classes: Path, tmp_path: Path, run_java) -> None:
    # "spinner" burns 800 ms of its own CPU then exits; main sleeps 1.2 s more (long enough
    # for the 5 smaps_rollup reads PSS needs at their 0.5%-of-a-core budget). The sampler
    # (every 50 ms) must still count the spinner's time after it has gone.
    collector = ProcCollector(interval_ms=50)
    run = run_java([collector], jdk17, tmp_path, ["-XX:+UseSerialGC"], ["SpinThenSleep", "800", "1200"],
                   classpath=classes)
    assert run.result.status == "ok", run.result.reason
    out = run.collected
    app = out.timelines["cpu.app_s"]
    assert app.values[-1] >= 0.75  # 800 ms, less at most one interval lost
    assert list(app.values) == sorted(app.values)  # cumulative
    assert out.metrics["cpu.app_share"] > 0.3
    shares = sum(out.metrics[f"cpu.{g}_share"] for g in ("jit", "gc", "vm", "app"))
    assert shares == pytest.approx(1.0)
    assert out.metrics["mem.peak_rss_bytes"] > 20 * 1024 * 1024
    assert 0 < out.metrics["mem.peak_pss_bytes"] <= out.metrics["mem.peak_rss_bytes"]
    times = out.timelines["mem.rss_bytes"].t_s
    assert len(times) >= 10 and times[-1] <= run.result.measures.wall_s + 0.05


@pytest.mark.jvm
def test_jvm_started_by_a_launcher_is_sampled(jdk17: JdkInfo, classes: Path, tmp_path: Path, run_java) -> None:
    # The executor's pid is the shell; the JVM is its child (a `command` workload).
    collector = ProcCollector(interval_ms=50)
    run = run_java([collector], jdk17, tmp_path, ["-XX:+UseSerialGC"], ["SpinThenSleep", "300", "1500"],
                   classpath=classes, launcher=["sh", "-c", '"$0" "$@"; echo launcher-done'])
    assert run.result.status == "ok", run.result.reason
    assert "launcher-done" in run.result.stdout_tail
    out = run.collected
    assert out.metrics["mem.peak_rss_bytes"] > 20 * 1024 * 1024  # a shell alone is a few MB
    assert out.timelines["cpu.app_s"].values[-1] >= 0.2


@pytest.mark.jvm
def test_a_sub_second_jvm_gets_no_cpu_shares_but_the_reason(jdk17: JdkInfo, classes: Path, tmp_path: Path,
                                                            run_java) -> None:
    run = run_java([ProcCollector()], jdk17, tmp_path, ["-XX:+UseSerialGC"], ["SpinThenSleep", "10", "0"],
                   classpath=classes)
    assert run.result.status == "ok", run.result.reason
    out = run.collected
    samples = out.documents["proc"]["samples"]
    if samples >= 5:  # a JVM of ~0.1 s that a loaded machine stretched past half a second
        pytest.skip(f"the premise failed: the JVM ran {run.result.measures.wall_s:.2f} s ({samples} samples)")
    assert not any(name.startswith("cpu.") and name.endswith("_share") for name in out.metrics)
    assert "mem.peak_pss_bytes" not in out.metrics
    why = out.documents["proc"]["unmeasured"]
    # A fast machine may finish this JVM before the first sample: then there is none at all.
    assert why["cpu.gc_share"].startswith(("fewer than 10 samples (", "no sample of the running process"))
    assert why["mem.peak_pss_bytes"].startswith(("fewer than 5 samples (", "no sample of the running process"))


def test_the_interval_stretches_only_on_long_runs() -> None:
    from jvmlab.collect.proc import stretched_interval

    assert stretched_interval(0.1, 2.0) == 0.1
    assert stretched_interval(0.1, 10.0) == pytest.approx(0.1)
    assert stretched_interval(0.1, 50.0) == pytest.approx(0.5)
    assert stretched_interval(0.1, 3600.0) == 1.0
    assert stretched_interval(2.0, 3600.0) == 2.0, "a longer interval asked for is kept"
