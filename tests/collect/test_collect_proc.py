"""The /proc sampler: parsing, and real JVMs for memory, CPU groups and process trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.collect.proc import ProcCollector, ProcSample, parse_rollup, parse_stat, summarize
from jvmlab.jdk.model import JdkInfo


def test_parse_stat_handles_parentheses_and_spaces_in_names() -> None:
    line = (b"4242 (weird) (name x) S 1 1 1 0 -1 4194304 72 0 0 0 250 17 0 0 20 0 1 0 54590 "
            b"2654208 364 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n")
    assert parse_stat(line) == ("weird) (name x", 267)
    assert parse_stat(b"garbage") is None


def test_parse_rollup_reads_kib_as_bytes() -> None:
    text = b"55c7-7ffd ---p 00000000 00:00 0 [rollup]\nRss:  1672 kB\nPss:  390 kB\nAnonHugePages:  2048 kB\n"
    assert parse_rollup(text) == {"rss": 1672 * 1024, "pss": 390 * 1024, "anon_huge": 2048 * 1024}


def test_summarize_shares_and_peaks() -> None:
    cpu = [{"jit": 0.1, "gc": 0.0, "vm": 0.0, "app": 0.1}, {"jit": 0.2, "gc": 0.1, "vm": 0.1, "app": 0.6}]
    samples = [ProcSample(0.1, 100, 90, 0, cpu[0]), ProcSample(0.2, 300, 250, 4096, cpu[1]),
               ProcSample(0.3, 200, None, None, cpu[1])]  # no smaps_rollup read at this one
    out = summarize(samples, shift_s=0.01)
    assert out.metrics["mem.peak_rss_bytes"] == 300
    assert out.metrics["mem.peak_pss_bytes"] == 250
    assert out.metrics["mem.peak_anon_huge_bytes"] == 4096
    assert out.metrics["cpu.app_share"] == pytest.approx(0.6)
    assert out.metrics["cpu.jit_share"] == pytest.approx(0.2)
    assert out.timelines["cpu.app_s"].values == (0.1, 0.6, 0.6)
    assert out.timelines["mem.rss_bytes"].t_s == (0.11, 0.21, 0.31)
    assert out.timelines["mem.pss_bytes"].t_s == (0.11, 0.21)


@pytest.mark.jvm
def test_exited_thread_keeps_its_cpu_time(jdk17: JdkInfo, classes: Path, tmp_path: Path, run_java) -> None:
    # "spinner" burns 400 ms of its own CPU then exits; main sleeps 500 ms more. The sampler
    # (every 50 ms) must still count the spinner's time after it has gone.
    collector = ProcCollector(interval_ms=50)
    run = run_java([collector], jdk17, tmp_path, ["-XX:+UseSerialGC"], ["SpinThenSleep", "400", "500"],
                   classpath=classes)
    assert run.result.status == "ok", run.result.reason
    out = run.collected
    app = out.timelines["cpu.app_s"]
    assert app.values[-1] >= 0.35  # 400 ms, less at most one interval lost
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
