"""Progress lines -> throughput timeline, warm-up class and metrics."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.collect.progress import (
    ProgressCollector,
    compile_progress,
    rate_windows,
    summarize_progress,
)
from jvmlab.collect.warmup import WarmupParams
from jvmlab.errors import UserError
from jvmlab.model.jdk import JdkInfo


def test_rate_windows_interpolates_a_steady_cumulative_curve() -> None:
    times = [1.0 + 0.5 * i for i in range(11)]
    units = [100.0 * i for i in range(11)]  # 200 units/s
    starts, rates, window = rate_windows(times, units)
    assert window == pytest.approx(0.5)
    assert starts[0] == 1.0 and len(starts) == 10
    assert rates == pytest.approx([200.0] * 10)


def test_rate_windows_merges_lines_arriving_together_and_drops_a_short_tail() -> None:
    # chunkgen prints its last periodic line and its final total a moment apart
    times = [1.0, 2.0, 3.0, 4.0, 4.00005, 4.2]
    units = [10.0, 20.0, 30.0, 40.0, 41.0, 43.0]
    starts, rates, window = rate_windows(times, units)
    assert window == pytest.approx(1.0)
    assert starts == [1.0, 2.0, 3.0]
    assert rates == pytest.approx([10.0, 10.0, 11.0])  # the merged point keeps the last value


def test_rate_windows_caps_the_number_of_windows() -> None:
    times = [i * 0.002 for i in range(10_001)]
    starts, rates, _ = rate_windows(times, [float(i) for i in range(10_001)], max_windows=100)
    assert len(starts) == 100
    assert rates == pytest.approx([500.0] * 100)


def test_one_line_gives_units_but_no_rate() -> None:
    out = summarize_progress([0.5], [7.0], WarmupParams())
    assert out.metrics == {"progress.total_units": 7.0}
    assert "progress.rate" not in out.timelines
    assert out.documents["progress"]["class"] == "unclassified"


def test_regex_needs_a_units_group() -> None:
    with pytest.raises(UserError, match="units"):
        compile_progress(r"(\d+) chunks")
    with pytest.raises(UserError, match="compile"):
        compile_progress(r"(?P<units>\d+")
    with pytest.raises(UserError, match="mode"):
        ProgressCollector(r"(?P<units>\d+)", "sometimes")


def _feed(mode: str, lines: list[tuple[float, str]]) -> dict:
    collector = ProgressCollector(r"did (?P<units>[\d,]+) items", mode)
    probe = collector.probe(None)  # type: ignore[arg-type] - the probe does not read the context
    for t, line in lines:
        probe.on_line("stdout", t, line)
    probe.on_line("stderr", 9.0, "did 999 items")  # stderr is not progress
    from jvmlab.model.process import ProcessResult, Status

    out = probe.finish(ProcessResult(Status.OK, None, 0, None, None, 1, 0.0))
    return {"metrics": out.metrics, "timelines": out.timelines}


def test_per_line_and_cumulative_modes_agree() -> None:
    per_line = _feed("per-line", [(float(t), "did 1,000 items") for t in range(1, 11)])
    cumulative = _feed("cumulative", [(float(t), f"did {1000 * t} items") for t in range(1, 11)])
    assert per_line["metrics"] == cumulative["metrics"]
    assert per_line["metrics"]["progress.total_units"] == 10_000
    assert per_line["metrics"]["progress.mean_rate"] == pytest.approx(1000.0)
    assert per_line["timelines"]["progress.units"].values[-1] == 10_000


@pytest.mark.jvm
def test_real_jvm_progress_gives_rate_timeline_and_warmup_class(jdk17: JdkInfo, classes: Path,
                                                                tmp_path: Path, run_java) -> None:
    # 36 ticks of 100 ms: 10 units per tick for 10 ticks (100/s), then 40 per tick (400/s).
    collector = ProgressCollector(r"progress (?P<units>\d+) units")
    run = run_java([collector], jdk17, tmp_path, ["-Xshare:auto", "-XX:TieredStopAtLevel=1"],
                   ["Progress", "36", "10"], classpath=classes)
    assert run.result.status == "ok", run.result.reason
    out = run.collected
    assert out.metrics["progress.total_units"] == 10 * 10 + 26 * 40
    rate = out.timelines["progress.rate"]
    doc = out.documents["progress"]
    why = (doc.get("reason"), [(round(s["start_s"], 2), s["windows"], round(s["mean_rate"]))
                               for s in doc.get("segments", [])], [round(v) for v in rate.values])
    assert rate.unit == "units/s" and len(rate.t_s) >= 30, why
    assert doc["class"] == "warmup", why
    assert 250 < out.metrics["progress.steady_rate"] < 500, why
    assert out.metrics["progress.warmup_s"] > rate.t_s[0], why
