"""Content of the `jvmlab gc analyze --html` page: the same components as the experiment
report (tables, pause timeline, pause histogram), fed from GC log summaries and events."""

from __future__ import annotations

import json
from typing import Any

from jvmlab.gclog import LogSummary, iter_events
from jvmlab.gclog.events import PAUSE
from jvmlab.report import plots
from jvmlab.report.html import figure_entries
from jvmlab.report.timelines import MAX_POINTS, Series, downsample, round_sig

MAX_EVENTS = 200_000  # events read per log for the plots (a bounded loop on huge logs)


def log_name(s: LogSummary) -> str:
    return s.files[0].name if len(s.files) == 1 else f"{s.files[0].name} (+{len(s.files) - 1} rotated)"


def summary_row(s: LogSummary) -> list[str]:
    """One table row: the figures people compare first."""
    doc = s.to_json()
    p = doc["pauses"]

    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.2f}"

    return [log_name(s), s.format, s.collector or "?", s.jvm_version or "?",
            "-" if doc["span_s"] is None else f"{doc['span_s']:.1f}",
            "-" if p["count"] is None else str(p["count"]), ms(p["total_ms"]), ms(p["p50_ms"]), ms(p["p99_ms"]),
            ms(p["max_ms"]),
            "-" if doc["throughput_pct"] is None else f"{doc['throughput_pct']:.2f}%",
            str(doc["concurrent_cycles"]["count"]),
            "-" if doc["alloc_rate_mb_s"] is None else f"{doc['alloc_rate_mb_s']:.1f}"]


HEADER = ["log", "format", "collector", "JVM", "span (s)", "pauses", "total (ms)", "p50 (ms)", "p99 (ms)",
          "max (ms)", "throughput", "concurrent cycles", "alloc (MB/s)"]


def pause_series(s: LogSummary, idx: int) -> tuple[Series | None, list[float], bool]:
    """(downsampled pause timeline, every pause duration, whether the event cap was hit)."""
    t: list[float] = []
    v: list[float] = []
    capped = False
    for path in s.files:
        for n, e in enumerate(iter_events(path)):
            if n >= MAX_EVENTS:
                capped = True
                break
            if e.type == PAUSE and e.duration_ms is not None:
                v.append(e.duration_ms)
                t.append(e.t_s if e.t_s is not None else float(len(t)))
    if not v:
        return None, [], capped
    t2, v2 = downsample(t, v, MAX_POINTS * 2)
    return Series(log_name(s), idx, 0, "ms", round_sig(t2), round_sig(v2)), v, capped


def gc_context(summaries: list[LogSummary]) -> dict[str, Any]:
    series: list[Series] = []
    hist: list[tuple[str, int, list[float]]] = []
    notes: list[str] = []
    for idx, s in enumerate(summaries):
        line, values, capped = pause_series(s, idx)
        if line is not None:
            series.append(line)
            hist.append((log_name(s), idx, values))
            if len(line.values) < len(values):
                notes.append(f"{log_name(s)}: pause timeline downsampled from {len(values)} to "
                             f"{len(line.values)} points (minimum and maximum of each time bucket kept)")
        if capped:
            notes.append(f"{log_name(s)}: plots read the first {MAX_EVENTS} events only; the table uses all")
    timeline = plots.pause_timeline(series)
    if timeline is not None:
        for trace in timeline["data"]:
            trace["hovertemplate"] = trace["hovertemplate"].replace(" (invocation 0)", "")
    figures = [timeline, plots.histogram("GC pause durations", hist, "pause (ms)")]
    return {
        "title": f"jvmlab: GC log analysis ({len(summaries)} log(s))",
        "header": HEADER, "rows": [summary_row(s) for s in summaries],
        "figures": figure_entries(figures, "gc"),
        "logs": [{"name": log_name(s), "files": ", ".join(str(f) for f in s.files),
                  "json": json.dumps(s.to_json(), indent=2, default=str)} for s in summaries],
        "notes": notes,
    }
