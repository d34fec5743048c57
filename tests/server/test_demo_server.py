"""`jvmlab demo server`: its spec (parsed like any spec) and its verdict on a Summary with
known statistics (deterministic, no JVM)."""

from __future__ import annotations

from jvmlab.model.jdk import JdkInfo
from jvmlab.scenarios import scenario_verdict
from jvmlab.scenarios.server import runs
from jvmlab.spec.load import parse_spec
from scenarios.test_verdicts import SPREAD, cell, summary
from scenarios.test_verdicts import stats as stats_of


def test_spec_is_fixed_rate_over_three_collectors_and_two_heaps(jdk17: JdkInfo) -> None:
    # Full mode: three collectors x two heaps, on the request p99; quick mode keeps the small heap
    # only (3 cells x 6 blocks, sized so that its comparisons can be significant:
    # tests/scenarios/test_powered.py), on the p99 GC pause.
    (full,) = runs([jdk17], quick=False)
    spec = parse_spec(full.toml)
    assert set(spec.factors["gc"]) == {"G1", "Parallel", "ZGC"} and set(spec.factors["heap"]) == {"h128m", "h512m"}
    (run,) = runs([jdk17], quick=True)
    spec = parse_spec(run.toml)
    assert set(spec.factors["gc"]) == {"G1", "Parallel", "ZGC"} and set(spec.factors["heap"]) == {"h128m"}
    assert spec.load is not None and all("--rate" in p.args for p in spec.load.phases)
    assert [p.measured for p in spec.load.phases] == [False, True]
    assert run.metric == "gc.pause_p99_ms" and "p99 GC pause" in run.metric_reason
    assert full.metric == "load.latency_p99_ms"


def _cells(zgc_p99: float) -> list:
    mib = float(1 << 20)
    out = []
    for heap in ("h128m", "h512m"):
        for gc, p99, rss in (("G1", 40.0, 200 * mib), ("Parallel", 60.0, 180 * mib), ("ZGC", zgc_p99, 260 * mib)):
            out.append(cell("jdk17", {"load.throughput_rps": (1500.0, 1.0), "load.latency_p99_ms": (p99, 2.0),
                                      "mem.peak_rss_bytes": (rss, 1 * mib), "gc.pause_p99_ms": (5.0, 0.5)},
                            gc=gc, heap=heap))
    return out


def test_verdict_names_every_figure_and_clear_differences_only() -> None:
    text = scenario_verdict("server", summary("demo server: x", _cells(zgc_p99=20.0)))
    assert "heap 128m" in text and "heap 512m" in text
    assert "p99 40.00" in text and "RSS 200" in text and "p99 pause 5.0" in text and "1500" in text
    assert "ZGC vs G1 p99 latency -50.0%" in text and "ZGC vs G1 RSS +30.0%" in text
    same = scenario_verdict("server", summary("demo server: x", _cells(zgc_p99=40.0)))
    assert "ZGC vs G1 p99 latency" not in same  # no clear difference, none named


def test_verdict_compares_pauses_and_says_what_it_could_not_resolve() -> None:
    """The quick demo's headline (the p99 GC pause) is compared against G1 like the other figures,
    and a figure whose difference from G1 is not clear is named as not resolved, at its n."""
    cells = [c for c in _cells(zgc_p99=40.0) if c.cell.levels["heap"] == "h128m"]
    zgc = cells[2]
    zgc.stats["gc.pause_p99_ms"] = stats_of(0.1, 0.05)
    zgc.ok_invocations = tuple(type(i)(i.block, {**i.values, "gc.pause_p99_ms": 0.1 + 0.05 * d})
                               for i, d in zip(zgc.ok_invocations, SPREAD, strict=True))
    for c in cells:
        c.n = 5
    text = str(scenario_verdict("server", summary("demo server: x", cells)))
    assert "ZGC vs G1 p99 pause -98.0%" in text
    assert ("No clear difference from G1 (n=5): p99 latency (ZGC); p99 pause (Parallel); "
            "throughput (Parallel, ZGC).") in text
