"""The jvmlab-metric line parser: exact on good lines, None on anything else, never raises."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jvmlab.workloads.metric_line import WorkloadMetric, format_metric_line, parse_metric_line


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("jvmlab-metric name=heapsort_ms value=812.5 unit=ms", WorkloadMetric("heapsort_ms", 812.5, "ms")),
        ("  jvmlab-metric   name=a.b-c_1\tvalue=-3   unit=bytes \r\n", WorkloadMetric("a.b-c_1", -3.0, "bytes")),
        ("jvmlab-metric unit=chunks/s value=1341.73 name=chunks_per_s",
         WorkloadMetric("chunks_per_s", 1341.73, "chunks/s")),
        ("jvmlab-metric name=err value=2.631228568361621E-13 unit=1",
         WorkloadMetric("err", 2.631228568361621e-13, "1")),
        ("jvmlab-metric name=n value=24270659584 unit=bytes", WorkloadMetric("n", 24270659584.0, "bytes")),
        ("jvmlab-metric name=x value=.5", WorkloadMetric("x", 0.5, "")),
        ("jvmlab-metric name=x value=+7. unit=%", WorkloadMetric("x", 7.0, "%")),
    ],
)
def test_parses_well_formed_lines(line: str, expected: WorkloadMetric) -> None:
    assert parse_metric_line(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "",
        "   ",
        "progress 12 chunks",
        "jvmlab-metric",
        "jvmlab-metrics name=a value=1 unit=ms",
        "[0.1s] jvmlab-metric name=a value=1 unit=ms",
        "jvmlab-metric name=a unit=ms",
        "jvmlab-metric value=1 unit=ms",
        "jvmlab-metric name=a value=NaN unit=ms",
        "jvmlab-metric name=a value=Infinity unit=ms",
        "jvmlab-metric name=a value=1e999 unit=ms",
        "jvmlab-metric name=a value=1_000 unit=ms",
        "jvmlab-metric name=a value=0x10 unit=ms",
        "jvmlab-metric name=a value=\u0663 unit=ms",
        "jvmlab-metric name=a value=12ms",
        "jvmlab-metric name=a/b value=1 unit=ms",
        "jvmlab-metric name= value=1 unit=ms",
        "jvmlab-metric name=a name=b value=1 unit=ms",
        "jvmlab-metric name=a value=1 value=2 unit=ms",
        "jvmlab-metric name=a value=1 unit=ms extra=1",
        "jvmlab-metric name=a value=1 unit=ms trailing",
        "jvmlab-metric name=a value=1 unit=",
        "jvmlab-metric name=a value=1 unit=m=s",
    ],
)
def test_rejects_malformed_lines(line: str) -> None:
    assert parse_metric_line(line) is None


def test_non_string_input_gives_none() -> None:
    assert parse_metric_line(None) is None  # type: ignore[arg-type]
    assert parse_metric_line(b"jvmlab-metric name=a value=1 unit=ms") is None  # type: ignore[arg-type]


@given(st.text())
def test_never_raises_on_any_text(line: str) -> None:
    result = parse_metric_line(line)
    assert result is None or (isinstance(result, WorkloadMetric) and math.isfinite(result.value))


@given(st.lists(st.sampled_from(["jvmlab-metric", "name=", "value=", "unit=", "x", "1", "-",
                                 "e5", ".", " ", "\t", "=", "nan", "ms", "/"])).map("".join))
def test_never_raises_on_near_misses(line: str) -> None:
    result = parse_metric_line(line)
    assert result is None or math.isfinite(result.value)


_names = st.from_regex(r"[A-Za-z0-9_.\-]+", fullmatch=True)
_units = st.from_regex(r"[^\s=]+", fullmatch=True).filter(lambda u: u.isprintable())


@given(_names, st.floats(allow_nan=False, allow_infinity=False), _units)
def test_format_then_parse_round_trips(name: str, value: float, unit: str) -> None:
    assert parse_metric_line(format_metric_line(name, value, unit)) == WorkloadMetric(name, value, unit)
