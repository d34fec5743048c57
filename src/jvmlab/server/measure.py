"""Client reports of the measured phases -> the invocation's ``load.*`` and ``client.*``
metrics, the merged latency histogram (a document) and requests per second (a timeline).

Several clients at once: histograms merge, throughputs and counts add; a regex metric that
is a rate adds, any other is averaged over clients.
"""

from __future__ import annotations

from jvmlab.metrics import is_rate
from jvmlab.model import hazards
from jvmlab.model.collected import Collected, Timeline
from jvmlab.model.documents import LoadHistogramDocument
from jvmlab.model.hazards import Hazard
from jvmlab.server.clients import ClientRun
from jvmlab.server.histogram import SUB, Histogram
from jvmlab.server.parsers import ClientReport

KEPT_UP = 0.95  # an open-loop server answering less than this share of the rate asked fell behind (wrk2's rule)
FELL_BEHIND = ("the server fell behind the fixed rate asked (it answered less than 95% of it): its latencies are "
               "measured from the intended send times, so they include the queue that built up, and the cell is "
               "not comparable at that rate with one that kept up")
_PCT_NAMES = {50.0: "latency_p50_ms", 90.0: "latency_p90_ms", 99.0: "latency_p99_ms", 99.9: "latency_p999_ms"}


def load_metrics(reports: list[ClientReport], runs: list[ClientRun], measured_s: float) -> Collected:
    """Combine what the measured phases' clients reported (``reports``: ClientReport);
    ``measured_s``: the measured phases' durations added (clients of a phase run side by side)."""
    out = Collected()
    hist = Histogram()
    seconds: list[int] = []
    sums: dict[str, float] = {}
    units: dict[str, str] = {}
    counts: dict[str, int] = {}
    for report in reports:
        if report.histogram is not None:
            hist.merge(report.histogram)
            for i, n in enumerate(report.per_second):
                seconds.extend([0] * (i + 1 - len(seconds)))
                seconds[i] += n
        for name, value in report.values.items():
            sums[name] = sums.get(name, 0.0) + value
            counts[name] = counts.get(name, 0) + 1
            units[name] = report.units.get(name, "")
    for name, total in sums.items():
        additive = is_rate(name, units[name]) or name in ("requests", "errors")
        out.metrics[f"load.{name}"] = total if additive else total / counts[name]
        out.metric_units[f"load.{name}"] = units[name]
    if hist.total:
        _histogram_metrics(out, hist, sums.get("requests", float(hist.total)), measured_s)
        out.documents[LoadHistogramDocument.KIND] = LoadHistogramDocument("us", SUB, dict(hist.counts)).to_json()
    if seconds:
        out.timelines["load.throughput_rps"] = Timeline(tuple(float(i + 1) for i in range(len(seconds))),
                                                        tuple(float(n) for n in seconds), "req/s")
    _kept_up(out)
    if runs:
        out.metrics["client.cpu_s"] = sum(r.cpu_s for r in runs)
        out.metrics["client.max_rss_bytes"] = float(max(r.max_rss_bytes for r in runs))
    return out


def _histogram_metrics(out: Collected, hist: Histogram, requests: float, measured_s: float) -> None:
    for pct, name in _PCT_NAMES.items():
        value = hist.percentile_us(pct)
        if value is not None:
            out.metrics[f"load.{name}"] = value / 1000.0
            out.metric_units[f"load.{name}"] = "ms"
    out.metrics["load.latency_max_ms"] = (hist.percentile_us(100.0) or 0.0) / 1000.0
    out.metric_units["load.latency_max_ms"] = "ms"
    if measured_s > 0:
        out.metrics["load.throughput_rps"] = requests / measured_s
        out.metric_units["load.throughput_rps"] = "req/s"


def _kept_up(out: Collected) -> None:
    """The achieved share of an open-loop target rate, and a warning when it is below ``KEPT_UP``
    (983 of 1500 req/s with p99 1.5 s was reported without a word)."""
    target, achieved = out.metrics.get("load.target_rps"), out.metrics.get("load.throughput_rps")
    if not target or achieved is None:
        return
    share = achieved / target
    out.metrics["load.achieved_share"] = share
    out.metric_units["load.achieved_share"] = "share"
    if share < KEPT_UP:
        out.hazards.append(Hazard(hazards.LOAD_FELL_BEHIND, FELL_BEHIND,
                                  hint="lower the rate, or give the server more CPU; `load.achieved_share` per cell "
                                       "says by how much each fell behind"))
