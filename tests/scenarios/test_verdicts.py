"""Scenario verdicts on fake Summaries with known statistics (deterministic, no JVM)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from jvmlab.analyze.model import CellStats
from jvmlab.scenarios import scenario_verdict
from jvmlab.scenarios.stats import diff_ci, ratio_pct


def stats(mean: float, half: float) -> CellStats:
    return CellStats("c", 5, 0, mean, None, None, mean, None, None, None, (mean - half, mean + half), None)


SPREAD = (-1.0, -0.5, 0.0, 0.5, 1.0)  # five invocations whose mean is the cell's mean


class Invocation:
    """A stored invocation as the verdicts read it: a value per metric, and its block."""

    def __init__(self, block: int, values: dict[str, float]) -> None:
        self.block, self.values = block, values

    def value(self, metric: str) -> float | None:
        return self.values.get(metric)


def cell(jvm: str, values: dict[str, tuple[float, float]], not_in_effect: tuple[str, ...] = (), **levels: str):
    invocations = tuple(Invocation(k, {m: mean + half * d for m, (mean, half) in values.items()})
                        for k, d in enumerate(SPREAD))
    name = " ".join([jvm, *(f"{k}={v}" for k, v in levels.items())])
    return SimpleNamespace(cell=SimpleNamespace(jvm=jvm, levels=levels, name=name),
                           stats={m: stats(*v) for m, v in values.items()}, not_in_effect=not_in_effect,
                           ok_invocations=invocations)


def summary(name: str, cells: list, hazards: tuple = ()) -> SimpleNamespace:
    return SimpleNamespace(experiment=SimpleNamespace(name=name), cells=tuple(cells), hazards=hazards,
                           verdicts={})


def test_diff_and_ratio_come_from_the_invocations() -> None:
    a, b = cell("j", {"m": (13.0, 3.0)}, x="a"), cell("j", {"m": (9.0, 4.0)}, x="b")
    d, lo, hi = diff_ci(a, b, "m")
    assert d == pytest.approx(4.0) and lo < 4.0 < hi and hi - lo < 12
    pct, lo, hi = ratio_pct(a, b, "m")
    assert pct == pytest.approx(44.444, abs=1e-3) and lo < pct < hi
    same = cell("j", {"m": (5.0, 0.0)}, x="c")
    assert diff_ci(same, same, "m") == (0.0, 0.0, 0.0)


def test_pretouch_verdict_gives_seconds_per_gb() -> None:
    gib = float(1 << 30)
    cells = [cell("jdk17", {"wall_s": (0.5, 0.01), "max_rss_bytes": (0.1 * gib, 0)},
                  heap="h4g", pretouch="off", thp="off", gc="G1"),
             cell("jdk17", {"wall_s": (1.5, 0.01), "max_rss_bytes": (4.1 * gib, 0)},
                  heap="h4g", pretouch="on", thp="off", gc="G1")]
    text = scenario_verdict("pretouch", summary("demo pretouch: x", cells))
    assert "+0.250 s" in text and "per GB" in text and "committing 1.00 (95% CI 1.00 ... 1.00) GiB of RSS per GB" in text


def test_largepages_verdict_reports_a_flag_not_in_effect() -> None:
    cells = [cell("jdk17", {"workload.heapsort_ms": (1000, 10), "workload.arrayssort_ms": (500, 5)}, pages="default"),
             cell("jdk17", {"workload.heapsort_ms": (800, 10), "workload.arrayssort_ms": (500, 5)}, pages="thp"),
             cell("jdk17", {"workload.heapsort_ms": (1001, 10), "workload.arrayssort_ms": (500, 5)},
                  not_in_effect=("-XX:+UseLargePages: no hugetlbfs pages",), pages="largepages")]
    text = scenario_verdict("all", summary("demo largepages: tlbsort 64 MB x page size", cells))
    assert "Sorting 64 MB" in text
    assert "thp vs default pages on jdk17: heapsort -20.0%" in text
    assert "NOT in effect" in text and "not a clear difference" in text


def test_gc_verdict_ranks_by_throughput_higher_first() -> None:
    cells = [cell("jdk25", {"progress.steady_rate": (900, 10), "gc.pause_p99_ms": (5, 1)}, gc="G1"),
             cell("jdk25", {"progress.steady_rate": (1200, 10), "gc.pause_p99_ms": (20, 1)}, gc="Parallel"),
             cell("jdk25", {"progress.steady_rate": (950, 100)}, gc="ZGC")]
    text = scenario_verdict("gc", summary("demo gc: chunk generation x collector", cells))
    assert text.index("Parallel 1200") < text.index("ZGC 950") < text.index("G1 900")
    assert "Parallel is ahead of ZGC" in text and "p99 pause 20.0 ms" in text


def test_cds_verdict_in_milliseconds() -> None:
    cells = [cell("jdk25", {"wall_s": (0.100, 0.002)}, cds="default"),
             cell("jdk25", {"wall_s": (0.060, 0.002)}, cds="aot"),
             cell("jdk25", {"wall_s": (0.101, 0.004)}, cds="off")]
    text = scenario_verdict("cds", summary("demo cds: hello x class data sharing", cells))
    assert "default CDS 100 ms" in text and "aot -40 ms" in text
    assert "off +1 ms" in text and "not a clear difference" in text


def test_verdict_without_measurements_says_so() -> None:
    text = scenario_verdict("gc", summary("demo gc: x", [cell("jdk25", {}, gc="G1")]))
    assert "no collector" in text
