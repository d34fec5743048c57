"""Histograms (against exact percentiles of seeded samples) and the client output parsers."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from jvmlab.server.histogram import Histogram, bucket_bounds, bucket_of
from jvmlab.server.measure import load_metrics
from jvmlab.server.parsers import parse_jvmlab, parse_k6, parse_regex, parse_wrk


def test_every_value_falls_in_its_bucket() -> None:
    rng = np.random.default_rng(3)
    for value in [0, 1, 63, 64, 65, 127, 128, *rng.integers(0, 10**9, 2000).tolist()]:
        low, high = bucket_bounds(bucket_of(int(value)))
        assert low <= value < high
        assert high - low <= max(1, low / 32)  # about 3% precision


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_percentiles_match_exact_ones_within_bucket_precision(seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = rng.lognormal(mean=7.0, sigma=1.2, size=50_000).astype(int)  # ~1 ms median, long tail
    hist = Histogram.of_values(values.tolist())
    for pct in (50.0, 90.0, 99.0, 99.9):
        rank = math.ceil(Fraction(str(pct)) * len(values) / 100)  # exact, no float noise at 99.9
        exact = float(np.sort(values)[rank - 1])
        got = hist.percentile_us(pct)
        assert got is not None and exact <= got <= exact * 1.035 + 1


def test_merged_histograms_equal_one_histogram_of_all_values() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.integers(1, 10**6, 5000).tolist(), rng.integers(1, 10**4, 5000).tolist()
    merged = Histogram.of_values(a).merge(Histogram.of_values(b))
    assert merged.counts == Histogram.of_values(a + b).counts
    assert Histogram.from_json(merged.to_json()).counts == merged.counts


JVMLAB_OUTPUT = """jvmlab-load hist unit=us sub=32 counts=10:5,64:90,200:5
jvmlab-load second t=1 requests=60
jvmlab-load second t=2 requests=40
jvmlab-load summary mode=fixed-rate connections=2 rate=50.0 requests=100 errors=1 duration_s=2.000 throughput_rps=50.00 max_us=9000
"""  # noqa: E501 - verbatim jvmlab-load output

WRK_OUTPUT = """Running 10s test @ http://127.0.0.1:8080/work
  2 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   612.34us  1.20ms  42.10ms   97.00%
    Req/Sec     3.51k   210.00     4.00k    70.00%
  Latency Distribution
     50%  480.00us
     75%  560.00us
     90%  700.00us
     99%    3.20ms
  70000 requests in 10.00s, 6.00MB read
  Non-2xx or 3xx responses: 3
Requests/sec:   7000.00
Transfer/sec:    614.00KB
"""


def test_jvmlab_lines_give_histogram_rates_and_counts() -> None:
    report = parse_jvmlab(JVMLAB_OUTPUT)
    assert report.problem is None and report.histogram is not None
    assert report.histogram.total == 100 and report.per_second == [60, 40]
    collected = load_metrics([report, report], [], measured_s=2.0)  # two clients side by side
    assert collected.metrics["load.requests"] == 200 and collected.metrics["load.errors"] == 2
    assert collected.metrics["load.throughput_rps"] == 100.0
    assert collected.metrics["load.latency_p50_ms"] == 0.065  # bucket 64 holds 64..65 us: its top
    assert collected.timelines["load.throughput_rps"].values == (120.0, 80.0)


def test_wrk_latency_output() -> None:
    report = parse_wrk(WRK_OUTPUT)
    assert report.problem is None
    assert report.values["throughput_rps"] == 7000.0
    assert report.values["latency_p50_ms"] == pytest.approx(0.48)
    assert report.values["latency_p99_ms"] == pytest.approx(3.2)
    assert report.values["latency_max_ms"] == pytest.approx(42.1)
    assert report.values["errors"] == 3 and report.values["requests"] == 70000


def test_wrk_without_latency_flag_is_a_problem() -> None:
    assert parse_wrk("Requests/sec: 10\n").problem is not None


def test_k6_summary_export(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"metrics": {
        "http_reqs": {"count": 1200, "rate": 400.5},
        "http_req_duration": {"avg": 2.0, "med": 1.5, "p(90)": 3.0, "p(95)": 4.0, "p(99)": 9.5, "max": 20.0},
        "http_req_failed": {"passes": 2, "fails": 1198, "value": 0.0016}}}))
    report = parse_k6(path)
    assert report.values == {"throughput_rps": 400.5, "requests": 1200.0, "latency_p50_ms": 1.5,
                             "latency_p90_ms": 3.0, "latency_p99_ms": 9.5, "latency_max_ms": 20.0, "errors": 2.0}
    assert parse_k6(tmp_path / "missing.json").problem is not None


def test_regex_named_groups_and_units() -> None:
    text = "warming\nresult: 1234.5 msg/s p99=7.5\nresult: 1300.0 msg/s p99=6.0\n"
    report = parse_regex(text, r"result: (?P<msg_per_s>[0-9.]+) msg/s p99=(?P<p99_ms>[0-9.]+)",
                         {"msg_per_s": "msg/s", "p99_ms": "ms"})
    assert report.values == {"msg_per_s": 1300.0, "p99_ms": 6.0}
    collected = load_metrics([report, report], [], measured_s=1.0)
    assert collected.metrics["load.msg_per_s"] == 2600.0  # rates of clients side by side add up
    assert collected.metrics["load.p99_ms"] == 6.0  # others are averaged
