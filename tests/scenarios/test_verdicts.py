"""Scenario verdicts on fake Summaries with known statistics (deterministic, no JVM)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from jvmlab.analyze.model import CellStats
from jvmlab.scenarios import scenario_verdict
from jvmlab.scenarios.stats import Machine, diff_ci, fmt_interval, ratio_pct
from jvmlab.scenarios.table import Estimate


def stats(mean: float, half: float) -> CellStats:
    return CellStats("c", 5, 0, mean, None, None, mean, None, None, None, (mean - half, mean + half), None)


QUIET = Machine()  # nothing recorded about the machine
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


def summary(name: str, cells: list, hazards: tuple = (), metric: str = "wall_s") -> SimpleNamespace:
    return SimpleNamespace(experiment=SimpleNamespace(name=name), cells=tuple(cells), hazards=hazards,
                           verdicts={}, metric=metric)


def test_diff_and_ratio_come_from_the_invocations() -> None:
    a, b = cell("j", {"m": (13.0, 3.0)}, x="a"), cell("j", {"m": (9.0, 4.0)}, x="b")
    d, lo, hi = diff_ci(QUIET, a, b, "m").value
    assert d == pytest.approx(4.0) and lo < 4.0 < hi and hi - lo < 12
    pct, lo, hi = ratio_pct(QUIET, a, b, "m").value
    assert pct == pytest.approx(44.444, abs=1e-3) and lo < pct < hi
    same = cell("j", {"m": (5.0, 0.0)}, x="c")
    assert diff_ci(QUIET, same, same, "m").value == (0.0, 0.0, 0.0)


def test_pretouch_verdict_is_a_table_in_seconds_per_gb() -> None:
    gib = float(1 << 30)
    cells = [cell("jdk17", {"wall_s": (0.5, 0.01), "max_rss_bytes": (0.1 * gib, 0)},
                  heap="h4g", pretouch="off", thp="off", gc="G1"),
             cell("jdk17", {"wall_s": (1.5, 0.01), "max_rss_bytes": (4.1 * gib, 0)},
                  heap="h4g", pretouch="on", thp="off", gc="G1")]
    v = scenario_verdict("pretouch", summary("demo pretouch: x", cells))
    assert v.header == ("JDK", "GC", "THP", "heap", "s per GB", "RSS GiB per GB", "answer")
    [row] = v.rows
    assert row[:4] == ("jdk17", "G1", "off", "4g")
    assert row[4].startswith("+0.250 [") and row[5] == "1.00 [1.00 … 1.00]" and row[6] == "clear"
    assert v.conclusion.startswith("Pre-touching costs 0.25 s per GB") and v.conclusion.count(".") <= 3
    text = str(v)
    assert text.splitlines()[0].startswith("AlwaysPreTouch") and "+0.250" in text


def test_gc_verdict_ranks_by_throughput_higher_first() -> None:
    cells = [cell("jdk25", {"progress.steady_rate": (900, 10), "gc.pause_p99_ms": (5, 1)}, gc="G1"),
             cell("jdk25", {"progress.steady_rate": (1200, 10), "gc.pause_p99_ms": (20, 1)}, gc="Parallel"),
             cell("jdk25", {"progress.steady_rate": (950, 100)}, gc="ZGC")]
    v = scenario_verdict("gc", summary("demo gc: chunk generation x collector", cells))
    assert [r[1] for r in v.rows] == ["Parallel", "ZGC", "G1"]
    assert v.rows[0][3] == "leader" and v.rows[0][4] == "20.0 ms"
    assert v.conclusion.startswith("Parallel leads on jdk25; ZGC, the runner-up, is -20.8% behind it")
    assert v.rows[1][3].startswith("-20.8% [")  # the same figure as the runner-up's row


def test_cds_verdict_in_milliseconds() -> None:
    cells = [cell("jdk25", {"wall_s": (0.100, 0.002)}, cds="default"),
             cell("jdk25", {"wall_s": (0.060, 0.002)}, cds="aot"),
             cell("jdk25", {"wall_s": (0.101, 0.004)}, cds="off")]
    v = scenario_verdict("cds", summary("demo cds: hello x class data sharing", cells))
    rows = {r[1]: r for r in v.rows}
    assert rows["default"][2].startswith("100 ms [")
    assert rows["aot"][3].startswith("-40 ms [") and rows["aot"][4] == "clear"
    assert rows["off"][3].startswith("+1 ms [") and rows["off"][4] != "clear"
    assert v.conclusion == "The best clear saving on hello: aot on jdk25, -40 ms against the default CDS archive."


def test_verdict_without_measurements_says_so() -> None:
    text = str(scenario_verdict("gc", summary("demo gc: x", [cell("jdk25", {}, gc="G1")])))
    assert "no collector" in text


def test_estimate_answers() -> None:
    assert Estimate((-6.6, -9.0, -4.0), "{:+.1f}%", 5).answer() == "clear"
    assert Estimate((-2.0, -5.0, 1.0), "{:+.1f}%", 5).answer() == "not clear: ~12 per cell would resolve it"
    assert Estimate((0.01, -3.0, 3.0), "{:+.1f}%", 5).answer() == "no effect seen"
    assert Estimate(None, "{}").text() == "-"


def test_tables_from_few_invocations_say_so() -> None:
    cells = [cell("jdk25", {"wall_s": (0.100, 0.002)}, cds="default"),
             cell("jdk25", {"wall_s": (0.060, 0.002)}, cds="aot")]
    for cs, n in zip(cells, (3, 3), strict=True):
        cs.n = n
    v = scenario_verdict("cds", summary("demo cds: hello x class data sharing", cells))
    assert v.notes and v.notes[-1].startswith("only 3 invocation(s) in some cells: below 6")
    for cs in cells:
        cs.n = 6
    assert not scenario_verdict("cds", summary("demo cds: hello x class data sharing", cells)).notes


def test_why_verdict_is_the_gc_table_with_the_jfr_reasons_added() -> None:
    # `why` used to add a str to the gc scenario's table and raise TypeError (found by mypy).
    cells = [cell("jdk25", {"progress.steady_rate": (900, 10), "jfr.gc_pause_total_ms": (300, 10)}, gc="G1"),
             cell("jdk25", {"progress.steady_rate": (1200, 10), "jfr.gc_pause_total_ms": (100, 10)}, gc="Parallel")]
    s = summary("demo why: chunk generation x collector", cells, metric="progress.steady_rate")
    s.baseline = cells[0].cell.name
    v = scenario_verdict("why", s)
    assert [r[1] for r in v.rows] == ["Parallel", "G1"]
    assert v.conclusion.startswith("Parallel leads on jdk25")
    assert "Largest differences (JFR): Parallel: " in v.conclusion and "GC pauses" in v.conclusion


def test_why_verdict_without_jfr_metrics_says_so() -> None:
    v = scenario_verdict("why", summary("demo why: x", []))
    assert v.conclusion.endswith("JFR found no difference large enough to name (was the jfr collector on?).")


def test_gc_title_says_no_steady_state_only_when_it_fell_back() -> None:
    """`why` ranks on the mean rate by choice: its title must not say "no run reached a steady
    state: run longer" (printed by a `demo why --quick` whose runs were never asked for one)."""
    cells = [cell("jdk25", {"progress.mean_rate": (900, 10)}, gc="G1"),
             cell("jdk25", {"progress.mean_rate": (300, 10)}, gc="ZGC")]
    s = summary("demo why: x", cells, metric="progress.mean_rate")
    s.baseline = cells[0].cell.name
    chosen = scenario_verdict("why", s)
    assert "mean throughput over the whole run," in chosen.title and "steady state" not in chosen.title
    fell_back = scenario_verdict("gc", summary("demo gc: x", cells))
    assert "no run reached a steady state: run longer" in fell_back.title


def test_gc_conclusion_names_the_clear_gaps_below_a_close_pair() -> None:
    """`demo all` on a loaded machine: G1 and Parallel 5% apart (not clear), ZGC 35% behind
    (clear); the sentence said only "not clearly ahead of Parallel" and hid the clear answer."""
    cells = [cell("jdk17", {"progress.steady_rate": (192, 40)}, gc="G1"),
             cell("jdk17", {"progress.steady_rate": (182, 40)}, gc="Parallel"),
             cell("jdk17", {"progress.steady_rate": (125, 5)}, gc="ZGC")]
    v = scenario_verdict("gc", summary("demo gc: chunk generation x collector", cells))
    assert [r[1] for r in v.rows] == ["G1", "Parallel", "ZGC"] and v.rows[2][-1] == "clear"
    assert v.conclusion.startswith("G1 leads on jdk17 but not clearly ahead of Parallel (")
    assert v.conclusion.endswith("; ZGC (-34.9%) clearly behind it.")


def test_why_table_answers_as_the_run_decided() -> None:
    """One rule: the pair's answer in the table is the run's verdict on it (a loaded demo
    printed "clear" in the table and "not called a difference: busy" below it)."""
    from jvmlab.results.compare import VerdictKind

    cells = [cell("jdk25", {"progress.mean_rate": (233, 20)}, gc="G1"),
             cell("jdk25", {"progress.mean_rate": (53, 5)}, gc="ZGC")]
    for kind, answer in ((VerdictKind.DISTURBED, "not called (see the verdict below)"),
                         (VerdictKind.WORSE, "clear"), (VerdictKind.INCONCLUSIVE, "inconclusive")):
        s = summary("demo why: x", cells, metric="progress.mean_rate")
        s.baseline = cells[0].cell.name
        s.comparison = SimpleNamespace(compared=(SimpleNamespace(
            cell=cells[1].cell.name, comparison=SimpleNamespace(baseline=cells[0].cell.name), kind=kind),))
        v = scenario_verdict("why", s)
        assert [r[1] for r in v.rows] == ["G1", "ZGC"] and v.rows[0][-1] == ""
        assert v.rows[1][-1] == answer, kind


def test_an_estimate_without_an_interval_says_not_estimable_at_its_n() -> None:
    """Issue 31 item 2: at n=2 the tables print "not estimable at n=2", never "(no CI)"."""
    nan = float("nan")
    assert Estimate((12.0, nan, nan), "{:.0f}", 2).text() == "12 (not estimable at n=2)"
    assert fmt_interval((1531.9, nan, nan), "{:.2f}", 2) == "1531.90 (not estimable at n=2)"
    assert fmt_interval((1.0, 0.5, 1.5), "{:.1f}", 2) == "1.0 (95% CI 0.5 ... 1.5)"


def test_server_table_names_the_n_of_a_cell_without_an_interval() -> None:
    """A 2-invocation server cell: its p99 mean is shown with "not estimable at n=2"."""
    p99 = CellStats("c", 2, 0, 1531.9, None, None, 1531.9, None, None, None, None, None)
    cs = SimpleNamespace(cell=SimpleNamespace(jvm="jdk25", levels={"gc": "G1", "heap": "h256m"}, name="g1"),
                         stats={"load.latency_p99_ms": p99}, not_in_effect=(), ok_invocations=())
    text = str(scenario_verdict("server", summary("demo server: x", [cs], metric="load.latency_p99_ms")))
    assert "p99 1531.90 (not estimable at n=2) ms" in text
