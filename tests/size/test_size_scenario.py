"""The `size` scenario's specs and its verdict, from hand-made results (no JVM)."""

from __future__ import annotations

import pytest

from jvmlab.plan.matrix import expand
from jvmlab.scenarios import scenario_runs, size
from jvmlab.scenarios.jdks import demo_jdks
from jvmlab.sizing.minheap import MinHeapResult, Status
from jvmlab.sizing.results import SweepResult
from jvmlab.sizing.sweep import Curve, HeapLevel, curve
from jvmlab.spec.load import parse_spec

MB = 1 << 20


def _found(lo: int, hi: int, flaky: tuple[int, ...] = ()) -> MinHeapResult:
    return MinHeapResult(Status.FOUND, lo * MB, hi * MB, 0.94, tuple(s * MB for s in flaky))


def _curve(series: str, means: list[float]) -> Curve:
    """Six invocations per heap, 1% apart around each mean (the knee's interval resamples them)."""
    sizes = [72, 108, 144, 216, 288]
    levels = [HeapLevel(f"x{i}", s * MB, None) for i, s in enumerate(sizes)]
    return curve(series, "wall_s", True, levels,
                 {f"x{i}": [m * f for f in (0.98, 0.99, 1.0, 1.0, 1.01, 1.02)] for i, m in enumerate(means)})


@pytest.mark.parametrize("quick", [True, False])
def test_specs_parse(quick: bool) -> None:
    [run] = scenario_runs("size", quick)
    spec = parse_spec(run.toml)
    assert spec.workload.builtin == "hold" and spec.name.startswith("demo size")
    assert {c.level("gc") for c in expand(spec)} <= {"G1", "Parallel", "Serial"}
    jdk = demo_jdks()[0]
    cpu = parse_spec(size.cpu_toml(jdk, {"G1": 216 * MB, "Serial": 108 * MB}, quick))
    cells = expand(cpu)
    assert {(c.level("gc"), c.level("cpus")) for c in cells} == {("G1", "1"), ("G1", "2"), ("Serial", "1"),
                                                                  ("Serial", "2")}
    assert "-Xmx110592k" in next(c for c in cells if c.level("gc") == "Serial").flags


def test_verdict_names_intervals_knees_and_the_heap_saving() -> None:
    jdk = demo_jdks()[0]
    j = f"jdk{jdk.feature}"
    sweep = SweepResult(1, tuple(HeapLevel(f"x{i}", s * MB, None) for i, s in enumerate([72, 108, 144, 216, 288])),
                        72 * MB, 0.05, "wall_s",
                        {"wall_s": (_curve(f"{j} gc=G1", [2.0, 1.5, 1.2, 1.02, 1.0]),
                                    _curve(f"{j} gc=Parallel", [1.6, 1.1, 1.0, 1.0, 1.0]))})
    text = size.verdict([(j, "G1", _found(70, 72)), (j, "Parallel", _found(70, 72, (71,)))], sweep, None,
                        "cgroups cannot be created here", jdk)
    assert "G1 (70, 72] MiB" in text and "flaky at 71 MiB" in text
    assert "G1 216 MiB" in text and "Parallel 144 MiB" in text
    assert "Parallel needs 33% less heap than G1 (95% interval 33-33%)" in text
    assert "1 vs 2 CPUs was not run: cgroups cannot be created here" in text
    assert "94%" in text


def test_a_knee_at_the_largest_size_is_flagged() -> None:
    jdk = demo_jdks()[0]
    j = f"jdk{jdk.feature}"
    sweep = SweepResult(1, tuple(HeapLevel(f"x{i}", s * MB, None) for i, s in enumerate([72, 108, 144, 216, 288])),
                        72 * MB, 0.05, "wall_s", {"wall_s": (_curve(f"{j} gc=G1", [2.0, 1.8, 1.6, 1.4, 1.0]),)})
    text = size.verdict([(j, "G1", _found(70, 72))], sweep, None, None, jdk)
    assert "G1 288 MiB" in text and "only at the largest size swept" in text


def test_overlapping_knees_are_no_clear_difference_never_zero_percent_less() -> None:
    """Issue 31 item 7: "Parallel needs 0% less heap than G1" and "Serial needs 50% less" from
    overlapping intervals at n=3 were printed; knees the bootstrap cannot separate are said so."""
    jdk = demo_jdks()[0]
    j = f"jdk{jdk.feature}"
    levels = tuple(HeapLevel(f"x{i}", s * MB, None) for i, s in enumerate([72, 108, 144, 216, 288]))
    same = SweepResult(1, levels, 72 * MB, 0.05, "wall_s",
                       {"wall_s": (_curve(f"{j} gc=G1", [2.0, 1.5, 1.2, 1.02, 1.0]),
                                   _curve(f"{j} gc=Parallel", [2.0, 1.5, 1.2, 1.02, 1.0]))})
    text = size.verdict([(j, "G1", _found(70, 72))], same, None, None, jdk)
    assert "0% less" not in text and "Parallel and G1: no clear difference in the heap they need" in text
    noisy = [curve(f"{j} gc={gc}", "wall_s", True, list(levels),
                   {f"x{i}": [m * 0.7, m, m * 1.3] * 2 for i, m in enumerate(means)})
             for gc, means in (("G1", [1.3, 1.2, 1.1, 1.02, 1.0]), ("Serial", [1.3, 1.04, 1.03, 1.02, 1.0]))]
    text = size.verdict([(j, "G1", _found(70, 72))], SweepResult(1, levels, 72 * MB, 0.05, "wall_s",
                                                                {"wall_s": tuple(noisy)}), None, None, jdk)
    assert "needs" not in text and "Serial and G1: no clear difference" in text
