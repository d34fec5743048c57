"""Reading a load client's output into metrics: jvmlab's generator, ``wrk --latency``,
k6's ``--summary-export`` JSON, or a regex with named groups.

Each parser returns a :class:`ClientReport`: named values with units (rates are higher-is-
better, latencies lower-is-better: see ``metrics.is_rate``), and for jvmlab's generator the
latency histogram and requests per second, which merge across clients and invocations.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from jvmlab.server.histogram import Histogram
from jvmlab.spec.pattern import BoundedPattern, PatternTimeout

_HIST = re.compile(r"^jvmlab-load hist unit=us sub=32 counts=(?P<counts>[0-9:,]*)\s*$")
_SECOND = re.compile(r"^jvmlab-load second t=(?P<t>\d+) requests=(?P<n>\d+)\s*$")
_SUMMARY = re.compile(r"^jvmlab-load summary (?P<fields>.*)$")
_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3, "h": 3600e3}
_WRK_PCT = re.compile(r"^\s*(?P<pct>[0-9.]+)%\s+(?P<value>[0-9.]+)(?P<unit>us|ms|s|m|h)\s*$")
_WRK_RPS = re.compile(r"^Requests/sec:\s+(?P<value>[0-9.]+)")
_WRK_MAX = re.compile(r"^\s+Latency\s+\S+\s+\S+\s+(?P<value>[0-9.]+)(?P<unit>us|ms|s|m|h)")
_WRK_ERRORS = re.compile(r"Non-2xx or 3xx responses:\s+(?P<n>\d+)|Socket errors: connect (?P<c>\d+), "
                         r"read (?P<r>\d+), write (?P<w>\d+), timeout (?P<t>\d+)")
_WRK_TOTAL = re.compile(r"^\s*(?P<n>\d+) requests in")


@dataclass
class ClientReport:
    """What one client run reported. ``values``: name -> value; ``units``: name -> unit."""

    values: dict[str, float] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    histogram: Histogram | None = None
    per_second: list[int] = field(default_factory=list)
    duration_s: float | None = None
    problem: str | None = None  # why the output could not be read


def _ms(value: str, unit: str) -> float:
    return float(value) * _UNITS[unit]


def parse_jvmlab(text: str) -> ClientReport:
    report = ClientReport(histogram=None)
    for line in text.splitlines():
        if (m := _HIST.match(line)) is not None:
            pairs = [p.split(":") for p in m["counts"].split(",") if p]
            report.histogram = Histogram({int(k): int(v) for k, v in pairs})
        elif (m := _SECOND.match(line)) is not None:
            report.per_second.append(int(m["n"]))
        elif (m := _SUMMARY.match(line)) is not None:
            fields = dict(kv.split("=", 1) for kv in m["fields"].split() if "=" in kv)
            report.duration_s = float(fields.get("duration_s", "nan"))
            report.values.update(requests=float(fields.get("requests", 0)), errors=float(fields.get("errors", 0)))
            report.units.update(requests="count", errors="count")
            if fields.get("mode") == "fixed-rate" and float(fields.get("rate", "0")) > 0:
                report.values["target_rps"] = float(fields["rate"])  # open loop: what was asked
                report.units["target_rps"] = "req/s"
    if report.histogram is None or report.duration_s is None:
        report.problem = "no 'jvmlab-load hist' and 'jvmlab-load summary' lines in the client's output"
    return report


def parse_wrk(text: str) -> ClientReport:
    """``wrk --latency`` text: Requests/sec, the latency distribution (50/75/90/99%), max."""
    report = ClientReport()
    errors = 0
    for line in text.splitlines():
        if (m := _WRK_PCT.match(line)) is not None:
            key = {"50": "latency_p50_ms", "90": "latency_p90_ms", "99": "latency_p99_ms",
                   "99.9": "latency_p999_ms"}.get(f"{float(m['pct']):g}")
            if key:
                report.values[key] = _ms(m["value"], m["unit"])
        elif (m := _WRK_RPS.match(line)) is not None:
            report.values["throughput_rps"] = float(m["value"])
        elif (m := _WRK_MAX.match(line)) is not None:
            report.values["latency_max_ms"] = _ms(m["value"], m["unit"])
        elif (m := _WRK_TOTAL.match(line)) is not None:
            report.values["requests"] = float(m["n"])
        elif (m := _WRK_ERRORS.search(line)) is not None:
            errors += sum(int(g) for g in m.groups() if g)
    report.values["errors"] = float(errors)
    if "throughput_rps" not in report.values or "latency_p99_ms" not in report.values:
        report.problem = "no 'Requests/sec' or latency distribution in wrk's output (run wrk with --latency)"
    _units(report)
    return report


def parse_k6(summary_path: Path) -> ClientReport:
    """k6's ``--summary-export`` JSON: http_reqs rate, http_req_duration percentiles (ms)."""
    report = ClientReport()
    try:
        data = json.loads(summary_path.read_text())
        metrics = data["metrics"]
        duration = metrics["http_req_duration"]
        reqs = metrics["http_reqs"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        report.problem = f"cannot read k6's summary export {summary_path}: {err}"
        return report
    report.values["throughput_rps"] = float(reqs.get("rate", 0.0))
    report.values["requests"] = float(reqs.get("count", 0.0))
    for key, name in (("med", "latency_p50_ms"), ("p(50)", "latency_p50_ms"), ("p(90)", "latency_p90_ms"),
                      ("p(99)", "latency_p99_ms"), ("p(99.9)", "latency_p999_ms"), ("max", "latency_max_ms")):
        if key in duration:
            report.values[name] = float(duration[key])
    failed = metrics.get("http_req_failed", {})
    if "fails" in failed or "passes" in failed:  # k6 counts a failed request as a "pass" of the rate
        report.values["errors"] = float(failed.get("passes", 0))
    _units(report)
    return report


def parse_regex(text: str, regex: str, units: dict[str, str]) -> ClientReport:
    """Named groups of the last matching line win (``(?P<req_per_s>[0-9.]+)``)."""
    report = ClientReport()
    pattern = BoundedPattern(regex, what="[load] regex")
    for line in text.splitlines():
        try:
            m = pattern.search(line)
        except PatternTimeout as err:
            report.problem = str(err)
            return report
        if m is not None:
            for name, value in m.groupdict().items():
                try:
                    report.values[name] = float(value)
                except (TypeError, ValueError):
                    continue
                report.units[name] = units.get(name, "")
    if not report.values:
        report.problem = f"no line of the client's output matches {regex!r}"
    return report


def _units(report: ClientReport) -> None:
    for name in report.values:
        counted = "count" if name in ("requests", "errors") else "ms"
        report.units[name] = "req/s" if name == "throughput_rps" else counted
