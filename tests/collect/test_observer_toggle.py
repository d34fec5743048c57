"""bench/observer_toggle.py: the sampler paused and resumed at the JVM's ticks, and the
within-JVM analysis (drift cancelled, a known injected cost found: seeded simulations)."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from jvmlab.collect.proc import ProcProbe

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture()
def toggle(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The bench's module (bench/ is a folder of scripts, not a package)."""
    monkeypatch.syspath_prepend(str(BENCH))
    import observer_toggle

    yield observer_toggle
    sys.modules.pop("observer_toggle", None)


def _run(toggle: ModuleType, cost: float, rng: np.random.Generator, first_on: bool, n_periods: int = 5,
         drift: float = 0.0, jvm_sd: float = 0.0, noise: float = 0.0) -> list[tuple[bool, float]]:
    """One simulated JVM's periods: a JVM-wide rate (log-normal, ``jvm_sd``), a linear drift per
    period, the sampler's cost in its on periods, and period noise."""
    schedule = toggle.Schedule(1, 2, first_on)
    base = 1000 * math.exp(rng.normal(0, jvm_sd)) if jvm_sd else 1000.0
    return [(schedule.state(i), base * math.exp(drift * i + (math.log(1 - cost) if schedule.state(i) else 0.0)
                                                + (rng.normal(0, noise) if noise else 0.0)))
            for i in range(n_periods)]


def test_schedule_periods_and_switches(toggle: ModuleType) -> None:
    schedule = toggle.Schedule(first_tick=1, period_ticks=2, first_on=False)
    assert schedule.periods(11) == [(1, 3), (3, 5), (5, 7), (7, 9), (9, 11)]
    assert schedule.periods(10) == [(1, 3), (3, 5), (5, 7), (7, 9)]
    assert [schedule.switch_at(k) for k in range(0, 6)] == [None, False, None, True, None, False]
    units = [100.0 * k + (50 if k >= 4 else 0) for k in range(1, 8)]  # 50 more in the second to tick 4
    assert toggle.period_rates(units, schedule) == [(False, 100.0), (True, 125.0), (False, 100.0)]


def test_the_toggle_pauses_the_sampler_at_the_period_ticks(toggle: ModuleType) -> None:
    proc = ProcProbe(0.1)
    probe = toggle.SamplerToggle(proc, toggle.Schedule(2, 2, first_on=False))
    seen = []
    for k in range(1, 8):
        probe.on_line("stderr", 0.0, f"progress {k} chunks")  # not stdout: not a tick
        probe.on_line("stdout", 0.0, "chunkgen says hello")
        probe.on_line("stdout", 0.0, f"progress {100 * k} chunks")
        seen.append(proc.paused.is_set())
    # tick 1: as usual (sampling); from tick 2 off, from 4 on, from 6 off
    assert seen == [False, True, True, False, False, True, True]
    assert len(probe.ticks) == 7
    cpu = probe.jvmlab_cpu_ms_per_s(7)
    assert set(cpu) == {True, False} and all(v >= 0 for v in cpu.values())


def test_within_one_jvm_a_linear_drift_cancels_exactly(toggle: ModuleType) -> None:
    rng = np.random.default_rng(1)
    for first_on in (True, False):
        for drift in (-0.03, 0.0, 0.05):
            periods = _run(toggle, 0.03, rng, first_on, drift=drift, jvm_sd=0.1)
            assert toggle.within_effect(periods) == pytest.approx(math.log(0.97), abs=1e-12)
    with pytest.raises(ValueError, match="alternate"):
        toggle.within_effect([(True, 1.0), (True, 1.0), (False, 1.0)])


def test_a_known_3_percent_cost_is_found_and_fails_the_1_percent_target(toggle: ModuleType) -> None:
    """20 JVMs whose rates differ by 10 % (sd), drifting, with 1 % noise per period."""
    rng = np.random.default_rng(7)
    logs = [toggle.within_effect(_run(toggle, 0.03, rng, i % 4 < 2, drift=rng.normal(0, 0.02), jvm_sd=0.1,
                                      noise=0.01)) for i in range(20)]
    mean, lo, hi = toggle.interval(logs)
    assert mean == pytest.approx(0.97, abs=0.005)
    assert lo < 0.97 < hi and hi < 0.99
    assert toggle.verdict(lo, hi, 0.99) == "FAIL"
    free = [toggle.within_effect(_run(toggle, 0.0, rng, i % 4 < 2, drift=rng.normal(0, 0.02), jvm_sd=0.1,
                                      noise=0.01)) for i in range(20)]
    _, lo, hi = toggle.interval(free)
    assert lo < 1.0 < hi and toggle.verdict(lo, hi, 0.99) == "PASS"


def test_the_within_interval_covers_the_true_cost_about_95_percent(toggle: ModuleType) -> None:
    rng = np.random.default_rng(2024)
    trials, covered = 400, 0
    for _ in range(trials):
        logs = [toggle.within_effect(_run(toggle, 0.01, rng, i % 2 == 0, drift=rng.normal(0, 0.02), jvm_sd=0.1,
                                          noise=0.02)) for i in range(10)]
        _, lo, hi = toggle.interval(logs)
        covered += lo <= 0.99 <= hi
    assert 0.91 <= covered / trials <= 0.99


def test_between_jvms_compares_the_same_periods(toggle: ModuleType) -> None:
    on_run = [(False, 100.0), (True, 95.0), (False, 100.0), (True, 96.0), (False, 99.0)]
    off_run = [(False, 100.0), (False, 100.0), (False, 100.0), (False, 100.0)]  # one tick fewer: 4 periods
    assert toggle.between_effect(on_run, off_run) == pytest.approx((math.log(0.95) + math.log(0.96)) / 2)
    with pytest.raises(ValueError):
        toggle.between_effect([(False, 1.0)], off_run)


def test_verdicts_and_rounds_needed(toggle: ModuleType) -> None:
    from scipy import stats

    assert toggle.verdict(0.991, 1.01, 0.99) == "PASS"
    assert toggle.verdict(0.95, 0.989, 0.99) == "FAIL"
    assert toggle.verdict(0.98, 1.0, 0.99) == "UNDECIDED"
    rng = np.random.default_rng(3)
    logs = list(rng.normal(math.log(0.996), 0.02, 10))
    need = toggle.rounds_needed(logs, 0.99)
    gap, sd = abs(np.mean(logs) - math.log(0.99)), float(np.std(logs, ddof=1))
    assert stats.t.ppf(0.975, need - 1) * sd / math.sqrt(need) < gap  # enough ...
    assert stats.t.ppf(0.975, need - 2) * sd / math.sqrt(need - 1) >= gap  # ... and no more than enough
    assert toggle.rounds_needed([math.log(0.99)] * 3, 0.99) is None, "a mean on the target never decides"


def test_gc_log_output_is_the_collectors_file_output(toggle: ModuleType, tmp_path: Path) -> None:
    """The GC log output that LogToggle switches is the one the gc collector configures."""
    from jvmlab.collect.gc import LIGHT_SELECTION, gc_log_args
    from jvmlab.model.jdk import JdkInfo

    jdk = JdkInfo(home=tmp_path, version="17.0.15", feature=17, vendor="x", vm="OpenJDK 64-Bit Server VM",
                  vm_kind="HotSpot", has_javac=True)
    args = gc_log_args(jdk, tmp_path)
    selection, file = toggle.gc_log_output(["-Xms1g", *args])
    assert selection == LIGHT_SELECTION
    assert file == str(tmp_path / "gc-%p.log")  # as VM.log names the output: %p unexpanded
    with pytest.raises(ValueError, match="found 0"):
        toggle.gc_log_output(["-Xlog:async"])
    argv = toggle.log_toggle_argv(toggle.Schedule(3, 2, False), args, tmp_path / "t", "/cp", "Main", ["--x", "1"])
    assert argv == ["-cp", f"{tmp_path / 't'}:/cp", "LogToggle", "3", "2", "false", file, selection, "Main", "--x",
                    "1"]


def test_log_switches_reads_only_the_togglers_lines(toggle: ModuleType) -> None:
    stderr = "log-toggle on 1\nlog-toggle VM.log said: x y\nwarning\nlog-toggle off 3\nlog-toggle maybe 5\n"
    assert toggle.log_switches(stderr) == [(True, 1), (False, 3)]
