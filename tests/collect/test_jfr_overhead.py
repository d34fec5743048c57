"""bench/jfr_overhead.py's parts: settings files that switch single event groups off (checked on
the JDK's own default.jfc and on a real recording), and the paired interval and verdict the
bench prints against the 2 % target (seeded simulation)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from jvmlab.execute.local import LocalExecutor
from jvmlab.model.process import InvocationPlan

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture()
def bench(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The bench's modules (bench/ is a folder of scripts, not a package)."""
    monkeypatch.syspath_prepend(str(BENCH))
    import jfr_arms
    import jfr_overhead

    yield jfr_arms, jfr_overhead
    for name in ("jfr_arms", "jfr_overhead", "jfr_cpu", "jfr_within", "chunkgen_rate"):
        sys.modules.pop(name, None)


def test_each_arm_turns_off_its_group_and_nothing_else(bench, jdk17, tmp_path: Path) -> None:
    arms, _ = bench
    source = jdk17.home / "lib" / "jfr" / "default.jfc"
    stock = arms.enabled_events(source)
    assert {"jdk.ExecutionSample", "jdk.ObjectAllocationSample", "jdk.GCPhaseParallel"} <= stock

    def left(name: str) -> set[str]:
        return arms.enabled_events(arms.derive_jfc(source, tmp_path / f"{name}.jfc", arms.ARMS[name].off))

    assert stock - left("no-sampling") == {"jdk.ExecutionSample", "jdk.NativeMethodSample"}
    assert stock - left("no-alloc") == {"jdk.ObjectAllocationSample", "jdk.OldObjectSample"}
    assert left("bare") == set()
    no_gc = stock - left("no-gc")
    assert {"jdk.GarbageCollection", "jdk.GCPhaseParallel", "jdk.G1HeapSummary"} <= no_gc
    assert not no_gc & {"jdk.ExecutionSample", "jdk.ObjectAllocationSample", "jdk.CPULoad"}


def test_the_read_arm_keeps_what_jvmlab_reads_and_the_slow_sampler_arm_only_slows_it(bench, jdk17,
                                                                                      tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    from jvmlab.collect.jfr_parse import EVENTS

    arms, _ = bench
    source = jdk17.home / "lib" / "jfr" / "default.jfc"
    stock = arms.enabled_events(source)
    read = arms.enabled_events(arms.ARMS["read"].settings_file(jdk17.home, tmp_path))
    assert read == stock & set(EVENTS) and "jdk.GCPhaseParallel" not in read and "jdk.ExecutionSample" in read
    slow = arms.ARMS["sampler-100ms"].settings_file(jdk17.home, tmp_path)
    assert arms.enabled_events(slow) == stock  # nothing switched off

    def periods(jfc: Path) -> dict[str, str]:
        return {e.get("name", ""): (s.text or "").strip() for e in ET.parse(jfc).getroot().iter("event")
                for s in e.iter("setting") if s.get("name") == "period"}

    before, after = periods(source), periods(slow)
    assert before["jdk.ExecutionSample"] == "20 ms" and after["jdk.ExecutionSample"] == "100 ms"
    assert after["jdk.NativeMethodSample"] == "100 ms"
    assert {k: v for k, v in after.items() if not k.endswith("MethodSample") and k != "jdk.ExecutionSample"} == \
        {k: v for k, v in before.items() if not k.endswith("MethodSample") and k != "jdk.ExecutionSample"}


def test_only_the_collector_arms_carry_jvmlabs_extra_events(bench, tmp_path: Path) -> None:
    arms, _ = bench
    home = Path("/nonexistent-jdk")  # jdk-default and memory read no settings file
    (plain,) = arms.ARMS["jdk-default"].jvm_args(17, home, tmp_path, tmp_path / "r.jfr")
    assert "settings=default" in plain and "#" not in plain
    (memory,) = arms.ARMS["memory"].jvm_args(17, home, tmp_path, tmp_path / "r.jfr")
    assert "jdk.SafepointBegin#enabled=true" in memory and memory.endswith(",disk=false")


@pytest.mark.jvm
def test_a_recording_with_a_derived_file_has_none_of_the_groups_events(bench, jdk17, jfr_classes_overhead,
                                                                      tmp_path: Path) -> None:
    arms, _ = bench
    recording = tmp_path / "r.jfr"
    argv = [str(jdk17.java), "-Xmx128m",
            *arms.ARMS["no-sampling"].jvm_args(17, jdk17.home, tmp_path, recording),
            "-cp", str(jfr_classes_overhead), "JvmlabChunkGen", "--seconds", "2", "--retain-mb", "8"]
    subprocess.run(argv, check=True, capture_output=True, timeout=120)
    counts = arms.event_counts(jdk17.home / "bin" / "jfr", recording)
    assert counts.get("jdk.ExecutionSample", (0, 0))[0] == 0
    assert counts["jdk.ObjectAllocationSample"][0] > 0 and counts["jdk.SafepointBegin"][0] > 0  # the rest is on


@pytest.fixture(scope="module")
def jfr_classes_overhead(jdk17, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The chunk generator compiled once for this module's JVM tests."""
    out = tmp_path_factory.mktemp("chunkgen")
    source = Path(__file__).resolve().parents[2] / "src/jvmlab/workloads/java/JvmlabChunkGen.java"
    subprocess.run([str(jdk17.home / "bin" / "javac"), "-d", str(out), str(source)], check=True,
                   capture_output=True, timeout=120)
    return out


def test_the_paired_interval_covers_the_true_ratio(bench) -> None:
    """Rounds whose log ratio is the true one plus round noise: the 95 % interval holds the true
    ratio about 95 % of the time, and its verdict is right whenever it is not UNDECIDED."""
    _, overhead = bench
    rng = np.random.default_rng(19)
    true_ratio, covered, wrong, trials = 0.975, 0, 0, 2000
    for _ in range(trials):
        off = rng.lognormal(math.log(300), 0.05, size=12)  # the machine's load moves both runs of a round
        on = off * true_ratio * rng.lognormal(0, 0.015, size=12)
        _, low, high = overhead.ratio_ci(list(on), list(off))
        covered += low <= true_ratio <= high
        wrong += overhead.verdict(low, high) == "PASS"  # a 2.5 % cost never passes a 2 % target
    assert 0.93 <= covered / trials <= 0.97
    assert wrong / trials < 0.025


def test_verdicts(bench) -> None:
    verdict = bench[1].verdict
    assert verdict(0.985, 1.01) == "PASS"
    assert verdict(0.95, 0.975) == "FAIL"
    assert verdict(0.97, 0.99) == "UNDECIDED"
    assert verdict(float("nan"), float("nan")).startswith("UNDECIDED")


def _toggling_run(cpu_probe, on_factor: float, seconds: int = 40, period_s: int = 4, drift: float = 0.0,
                  noise: float = 0.0, seed: int = 0):  # type: ignore[no-untyped-def]
    """A probe fed as a toggling JVM would feed it: a progress line per second (arriving a little
    late), a switch every ``period_s`` (on first); "on" seconds run at ``on_factor`` of the rate, and
    the rate drifts linearly by ``drift`` per second. CPU is 2 s per second throughout."""
    rng = np.random.default_rng(seed)
    probe = cpu_probe()
    chunks, on = 0, True
    probe.toggles.append((0.05, True))
    for second in range(1, seconds + 1):
        rate = 100.0 * (1 + drift * second) * (on_factor if on else 1.0) * rng.lognormal(0, noise)
        chunks += round(rate)
        probe.snapshots.append((chunks, {"all": 2.0 * second}))
        probe.times_s.append(second + 0.01)
        if second % period_s == 0:
            on = not on
            probe.toggles.append((second + 0.05, on))
    return probe


def test_within_one_jvm_an_on_period_is_compared_with_the_off_periods_around_it(bench) -> None:
    import jfr_cpu
    import jfr_within

    got = jfr_within.within_effect(_toggling_run(jfr_cpu.CpuProbe, 0.97, drift=0.01), skip_s=4)
    assert math.exp(got["rate"]) == pytest.approx(0.97, abs=0.003)  # the drift cancels: neighbours on both sides
    assert math.exp(-got["cpu"]) == pytest.approx(0.97, abs=0.003)  # same CPU for fewer chunks
    assert got["periods"] >= 3
    null = jfr_within.within_effect(_toggling_run(jfr_cpu.CpuProbe, 1.0, drift=-0.01), skip_s=4)
    assert abs(null["rate"]) < 0.003
    # the seconds of a switch are left out: a period's first second (state under 1 s old) never counts
    assert all(p.seconds <= 3 for p in jfr_within._periods(_toggling_run(jfr_cpu.CpuProbe, 1.0), skip_s=4).values())
    assert all(p.seconds <= 2 for p in jfr_within._periods(_toggling_run(jfr_cpu.CpuProbe, 1.0), 4, 2.0).values())


def test_within_jvms_as_the_sample_give_an_interval_that_covers(bench) -> None:
    """Seeded simulation: noisy toggling JVMs with a true 1.5 % cost; the interval over JVMs
    holds it about 95 % of the time."""
    import jfr_cpu
    import jfr_within

    _, overhead = bench
    covered, trials = 0, 300
    for trial in range(trials):
        effects = [jfr_within.within_effect(_toggling_run(jfr_cpu.CpuProbe, 0.985, noise=0.02, seed=trial * 10 + j),
                                            skip_s=4)["rate"] for j in range(6)]
        _, low, high = overhead.ratio_ci([math.exp(e) for e in effects], [1.0] * 6)
        covered += low <= 0.985 <= high
    assert 0.91 <= covered / trials <= 0.985


@pytest.mark.jvm
def test_a_toggling_jvm_switches_its_recording_on_and_off(bench, jdk17, jfr_classes_overhead, tmp_path: Path) -> None:
    """JfrToggle end to end on a real JVM: the recording (jvmlab's settings) starts before the
    workload, its events are switched off and on every period, strictly alternating, while the
    workload runs."""
    arms, _ = bench
    import jfr_cpu
    import jfr_within

    toggler = jfr_within.toggler_classes(jdk17, tmp_path / "toggler")
    argv = jfr_within.toggle_argv(jdk17, arms.ARMS["default"], tmp_path, toggler, 2.0, str(jfr_classes_overhead),
                                  ["JvmlabChunkGen", "--seconds", "8", "--retain-mb", "8"])
    probe = jfr_cpu.CpuProbe()
    plan = InvocationPlan(argv=(str(jdk17.java), "-Xmx128m", *argv), env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path,
                          timeout_s=300, artifacts_dir=tmp_path)
    result = LocalExecutor().run(plan, [probe])
    assert result.status == "ok", result.reason
    states = [on for _, on in probe.toggles]
    assert states[0] is True and False in states[1:] and len(probe.snapshots) >= 8
    assert states == [i % 2 == 0 for i in range(len(states))]  # strictly alternating
    # the switches happen while the workload runs (how many seconds settle depends on the machine's load)
    assert any(probe.times_s[0] < t < probe.times_s[-1] for t, on in probe.toggles if not on)
    periods = jfr_within._periods(probe, skip_s=1, settle_s=0.0)
    assert sum(p.seconds for p in periods.values()) >= 1
