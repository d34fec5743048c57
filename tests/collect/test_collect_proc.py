"""The /proc sampler: parsing, and real JVMs for memory, CPU groups and process trees."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from jvmlab.collect.proc import (
    NO_SCHEDSTAT_WHY,
    ROLLUP_EVERY_S,
    SERIAL_GC_WHY,
    UNSEEN_WHY,
    ProcCollector,
    ProcProbe,
    ProcSample,
    TreeSampler,
    parse_rollup,
    parse_stat,
    serial_gc,
    summarize,
)
from jvmlab.metrics import OTHER_SHARE, RUN_DELAY, STEAL_SHARE
from jvmlab.model.documents import ProcDocument
from jvmlab.model.hazards import METRIC_UNMEASURED
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import ProbeContext


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
    assert ProcDocument.from_json(out.documents["proc"]).body() == {  # samples without schedstat: said
        "samples": 12, "rollup_samples": 6, "unmeasured": {RUN_DELAY: NO_SCHEDSTAT_WHY}}


def test_too_few_samples_give_no_figure_but_a_reason() -> None:
    """A sub-second JVM sampled 3 times: shares and sampled peaks are None, with the reason."""
    out = summarize(_samples(3), child_cpu_s=0.5)
    for name in ("cpu.app_share", "cpu.gc_share", "cpu.jit_share", "cpu.vm_share",
                 "mem.peak_rss_bytes", "mem.peak_pss_bytes", "mem.peak_anon_huge_bytes"):
        assert name not in out.metrics
    why = out.documents["proc"]["unmeasured"]
    assert why["cpu.gc_share"] == "fewer than 10 samples (3 in 0.20 s)"
    assert why["mem.peak_rss_bytes"] == "fewer than 5 samples (3 in 0.20 s)"
    assert why["mem.peak_pss_bytes"] == ("fewer than 5 samples (3 in 0.20 s), so no RSS peak for a "
                                         "smaps_rollup read to be near")
    assert "mem.rss_bytes" in out.timelines, "the samples themselves are kept, with their times"


def test_no_rollup_read_gives_the_reason_for_pss() -> None:
    samples = [ProcSample(0.1 * i, 100, None, None, {"jit": 0.0, "gc": 0.0, "vm": 0.0, "app": 0.01})
               for i in range(1, 7)]
    out = summarize(samples)
    why = out.documents["proc"]["unmeasured"]
    assert why["mem.peak_pss_bytes"] == "no smaps_rollup read"
    assert why["mem.peak_anon_huge_bytes"] == "no smaps_rollup read"
    assert out.metrics["mem.peak_rss_bytes"] == 100


def _grown(read_at_rss: list[int], peak_rss: int) -> list[ProcSample]:
    """Samples with smaps_rollup read at the RSS values given, then RSS rising to ``peak_rss`` unread."""
    cpu = {"jit": 0.0, "gc": 0.0, "vm": 0.0, "app": 0.01}
    read = [ProcSample(0.1 * i, rss, rss // 2, 2 * MIB, cpu) for i, rss in enumerate(read_at_rss, 1)]
    rest = [ProcSample(0.1 * (len(read) + i), peak_rss, None, None, cpu) for i in range(1, 4)]
    return read + rest


MIB = 1 << 20


def test_pss_and_thp_peaks_need_a_rollup_read_near_the_rss_peak() -> None:
    """Reads at 100 and 300 MiB, then RSS at 512 MiB unread: a PSS of 150 MiB is not a peak."""
    out = summarize(_grown([100 * MIB, 300 * MIB], 512 * MIB))
    why = out.documents["proc"]["unmeasured"]
    assert why["mem.peak_pss_bytes"] == ("no smaps_rollup read near the RSS peak: the highest RSS at a read "
                                         "was 59% of the sampled peak 512 MiB (need 90%; 2 reads)")
    assert why["mem.peak_anon_huge_bytes"] == why["mem.peak_pss_bytes"]
    assert "mem.peak_pss_bytes" not in out.metrics and "mem.peak_anon_huge_bytes" not in out.metrics
    assert out.timelines["mem.pss_bytes"].values == (50 * MIB, 150 * MIB), "the reads themselves are kept"
    near = summarize(_grown([100 * MIB, 470 * MIB], 512 * MIB))  # 92 % of the peak
    assert near.metrics["mem.peak_pss_bytes"] == 235 * MIB
    assert near.metrics["mem.peak_anon_huge_bytes"] == 2 * MIB
    probe = ProcProbe(0.1)
    probe.samples = _grown([100 * MIB, 300 * MIB], 512 * MIB)
    assert probe.peak_anon_huge_bytes is None, "the flag-effect evidence follows the same rule"
    probe.samples = _grown([100 * MIB, 470 * MIB], 512 * MIB)
    assert probe.peak_anon_huge_bytes == 2 * MIB


class FakeProcess:
    """A process whose RSS the test sets; counts its smaps_rollup reads."""

    def __init__(self) -> None:
        self.pid, self.alive, self.rss_bytes, self.rollups = 1, True, 0, 0
        self.task_fds: dict[int, int] = {}

    def status(self) -> tuple[int, int, int]:
        return self.rss_bytes, 1, 0

    def memory(self) -> dict[str, int]:
        self.rollups += 1
        return {"pss": self.rss_bytes // 2, "anon_huge": 0}

    def tids(self, n_threads: int, relist: bool) -> list[int]:
        return []

    def children(self) -> list[int]:
        return []

    def close(self) -> None:
        return None


def test_smaps_rollup_is_read_at_new_rss_highs_and_every_30_s() -> None:
    sampler = TreeSampler(os.getpid())
    fake = FakeProcess()
    sampler.processes = {fake.pid: fake}  # type: ignore[dict-item]
    read, times = [], [0.1 * i for i in range(1, 11)]
    for t, rss_mib in zip(times, (100, 100, 101, 103, 103, 103, 50, 104, 106, 106), strict=True):
        fake.rss_bytes = rss_mib * MIB
        read.append(sampler.sample(t).pss_bytes is not None)
    # first sample: never; then the first read; 101 is < 2 % above 100; 103 is; the drop to 50
    # and the climb to 104 stay under 2 % above 103; 106 is above (once).
    assert read == [False, True, False, True, False, False, False, False, True, False]
    fake.rss_bytes, last_read = 100 * MIB, times[8]
    assert sampler.sample(last_read + ROLLUP_EVERY_S - 0.1).pss_bytes is None
    assert sampler.sample(last_read + ROLLUP_EVERY_S + 0.01).pss_bytes is not None, "30 s after the last read"
    assert fake.rollups == 4


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
    # "spinner" burns 800 ms of its own CPU then exits; main sleeps 1.2 s more. The sampler
    # (every 50 ms) must still count the spinner's time after it has gone, and its smaps_rollup
    # reads follow RSS up (a read at each new high 2 % above the last, held to 0.5 % of a core),
    # so one is near the RSS peak and PSS is given.
    collector = ProcCollector(interval_ms=50)
    run = run_java([collector], jdk17, tmp_path, ["-XX:+UseParallelGC"], ["SpinThenSleep", "800", "1200"],
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


def test_cpu_used_by_threads_that_ended_between_samples_voids_the_shares() -> None:
    """The kernel's process figure counts threads the sampler never read (a compiler thread that
    lived between two samples): when they used more than 2%, the shares would undercount them."""
    samples = _samples(12)
    last = samples[-1]
    attributed = sum(last.cpu_s.values())  # 1.0 s over 4 threads seen
    fine = [*samples[:-1], ProcSample(last.t_s, last.rss_bytes, None, None, last.cpu_s, attributed + 0.07, 4)]
    out = summarize(fine, child_cpu_s=1.1)
    assert out.metrics["cpu.jit_share"] == pytest.approx(0.2)  # 70 ms is the ticks' rounding (8 ticks)
    missed = [*samples[:-1], ProcSample(last.t_s, last.rss_bytes, None, None, last.cpu_s, attributed + 0.2, 4)]
    out = summarize(missed, child_cpu_s=1.25)
    assert "cpu.jit_share" not in out.metrics and "cpu.gc_share" not in out.metrics
    why = out.documents["proc"]["unmeasured"]["cpu.jit_share"]
    assert why.startswith(UNSEEN_WHY) and "at the last sample" in why
    (hazard,) = out.hazards
    assert hazard.kind == METRIC_UNMEASURED and "cpu.jit_share" in hazard.detail and "%)" not in hazard.detail


def test_serial_gc_has_no_gc_share_but_the_reason() -> None:
    out = summarize(_samples(12), child_cpu_s=1.1, gc_on_vm_thread=True)
    assert "cpu.gc_share" not in out.metrics
    assert out.metrics["cpu.app_share"] == pytest.approx(0.6)
    assert out.documents["proc"]["unmeasured"]["cpu.gc_share"] == SERIAL_GC_WHY
    assert [h.kind for h in out.hazards] == [METRIC_UNMEASURED]


def test_serial_gc_is_told_from_final_flags_or_the_cells_flags(jdk17: JdkInfo, tmp_path: Path) -> None:
    def ctx(flags: tuple[str, ...], final: dict[str, str]) -> ProbeContext:
        return ProbeContext(jdk=jdk17, cell_name="c", flags=flags, artifacts_dir=tmp_path, final_flags=final)

    assert serial_gc(ctx((), {"UseSerialGC": "true"}))
    assert not serial_gc(ctx(("-XX:+UseSerialGC",), {"UseSerialGC": "false"}))  # the JDK's word wins
    assert serial_gc(ctx(("-XX:+UseG1GC", "-XX:+UseSerialGC"), {}))
    assert not serial_gc(ctx(("-XX:+UseSerialGC", "-XX:+UseParallelGC"), {}))


@pytest.mark.jvm
def test_a_serial_gc_jvm_reports_no_gc_share_and_says_why(jdk17: JdkInfo, classes: Path, tmp_path: Path,
                                                          run_java, final_flags_of) -> None:
    flags = ["-XX:+UseSerialGC"]
    run = run_java([ProcCollector(interval_ms=50)], jdk17, tmp_path, flags, ["SpinThenSleep", "600", "900"],
                   classpath=classes, final=final_flags_of(jdk17, flags))
    assert run.result.status == "ok", run.result.reason
    assert "cpu.gc_share" not in run.collected.metrics
    assert run.collected.documents["proc"]["unmeasured"]["cpu.gc_share"] in (SERIAL_GC_WHY,) or \
        run.collected.documents["proc"]["unmeasured"]["cpu.gc_share"].startswith(UNSEEN_WHY)
    assert any(h.kind == METRIC_UNMEASURED and "cpu.gc_share" in h.detail for h in run.collected.hazards)


@pytest.mark.jvm
@pytest.mark.skipif(not os.path.exists("/proc/self/schedstat"), reason="needs a kernel with schedstat")
def test_a_jvm_gets_its_run_queue_delay_and_the_machine_shares(jdk17: JdkInfo, classes: Path, tmp_path: Path,
                                                               run_java) -> None:
    """Issue 40 item 1: every invocation has its run-queue delay (schedstat, summed over its
    threads) and the machine's other and steal shares while it ran. Only presence and sanity:
    the values depend on the machine's load."""
    run = run_java([ProcCollector(interval_ms=50)], jdk17, tmp_path, ["-XX:+UseSerialGC"],
                   ["SpinThenSleep", "300", "300"], classpath=classes)
    assert run.result.status == "ok", run.result.reason
    out = run.collected
    assert out.metrics[RUN_DELAY] is not None and out.metrics[RUN_DELAY] >= 0.0
    assert 0.0 <= out.metrics[OTHER_SHARE] <= 1.0 and 0.0 <= out.metrics[STEAL_SHARE] <= 1.0
    assert RUN_DELAY not in (out.documents["proc"].get("unmeasured") or {})


def test_the_run_queue_delay_is_the_sum_over_threads_at_their_last_read() -> None:
    samples = [ProcSample(0.1 * k, 100 << 20, None, None, {"jit": 0.0, "gc": 0.0, "vm": 0.0, "app": 0.1 * k},
                          run_delay_s=0.02 * k) for k in range(1, 12)]
    assert summarize(samples).metrics[RUN_DELAY] == pytest.approx(0.22)
    no_schedstat = [ProcSample(s.t_s, s.rss_bytes, None, None, s.cpu_s) for s in samples]
    out = summarize(no_schedstat)
    assert RUN_DELAY not in out.metrics
    assert out.documents["proc"]["unmeasured"][RUN_DELAY] == NO_SCHEDSTAT_WHY
