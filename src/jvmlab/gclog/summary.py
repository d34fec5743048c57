"""Fold an event stream into a LogSummary in constant memory, and map it onto metrics.

Counting conventions (docs/gclog.md has the full text): a pause is one stop-the-world
event the log reports with a duration; its kind is read from the collector's own words; a
concurrent cycle is a G1/ZGC collection line with a duration, or for Shenandoah, CMS and
JDK 8 logs one GC id (or one marking cycle) that ran concurrent phases. Throughput is the
share of the log's time span not spent in pauses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jvmlab.gclog import events as ev
from jvmlab.gclog.events import GcEvent, LogInfo
from jvmlab.gclog.figures import Figures, rounded
from jvmlab.gclog.findings_fold import LogFold
from jvmlab.gclog.sketch import PauseSketch


@dataclass
class _Stat:
    count: int = 0
    total_ms: float = 0.0

    def add(self, ms: float | None) -> None:
        self.count += 1
        self.total_ms += ms or 0.0

    def to_json(self) -> dict[str, float | None]:
        return {"count": self.count, "total_ms": rounded(self.total_ms)}


@dataclass
class _MinMeanMax:
    n: int = 0
    total: float = 0.0
    lo: float = math.inf
    hi: float = -math.inf

    def add(self, v: float) -> None:
        self.n += 1
        self.total += v
        self.lo = min(self.lo, v)
        self.hi = max(self.hi, v)

    def to_json(self) -> dict[str, float | None] | None:
        if not self.n:
            return None
        return {"min": rounded(self.lo), "mean": rounded(self.total / self.n), "max": rounded(self.hi)}


@dataclass
class LogSummary:
    """Everything the analyzer says about one log (a rotated set counts as one log)."""

    files: list[Path]
    format: str
    collector: str | None = None
    jvm_version: str | None = None
    heap: dict[str, float] = field(default_factory=dict)
    span_s: float | None = None
    span_from: str | None = None  # "jvm_start" or "first_event" (clock.py), "mixed" over runs
    first_t_s: float | None = None
    pauses: PauseSketch = field(default_factory=PauseSketch)
    by_kind: dict[str, _Stat] = field(default_factory=lambda: {k: _Stat() for k in ev.PAUSE_KINDS})
    zgc_collections: dict[str, _Stat] = field(default_factory=dict)
    cycles: _Stat = field(default_factory=_Stat)
    stalls: _Stat = field(default_factory=_Stat)
    relocation_stalls: _Stat = field(default_factory=_Stat)
    pacing: _Stat = field(default_factory=_Stat)
    safepoints: _Stat = field(default_factory=_Stat)
    heap_after: _MinMeanMax = field(default_factory=_MinMeanMax)
    first_pause_t: float | None = None
    last_pause_t: float | None = None
    allocated_mb: float = 0.0
    promoted_mb: float = 0.0
    promotion_known: bool = False
    figures: Figures = field(default_factory=Figures)
    jvm_runs: int = 0
    unparsed_lines: int = 0
    unparsed_samples: list[str] = field(default_factory=list)
    percentiles_unmeasured: str | None = None  # why pause percentiles are not measured (metronome)
    pause_goal_ms: float | None = None  # -XX:MaxGCPauseMillis of the invocation (the header's is in fold)
    fold: LogFold = field(default_factory=LogFold)  # the findings' facts, folded in the same pass
    _last_heap_after: float | None = None
    _alloc_t0: float | None = None
    _alloc_t1: float | None = None

    # -- folding -----------------------------------------------------------------------
    def add(self, item: GcEvent | LogInfo) -> None:
        if isinstance(item, LogInfo):
            self._info(item)
            return
        self.figures.add(item)
        self.fold.event(item)
        if item.type == ev.PAUSE:
            self._pause(item)
        elif item.type == ev.CYCLE:
            self.cycles.add(item.duration_ms)
            if item.kind in ("minor", "major"):
                self.zgc_collections.setdefault(item.kind, _Stat()).add(item.duration_ms)
            if item.heap_after_mb is not None:
                self.heap_after.add(item.heap_after_mb)
        elif item.type == ev.STALL:
            (self.relocation_stalls if item.kind == "relocation" else self.stalls).add(item.duration_ms)
        elif item.type == ev.PACING:
            if item.duration_ms:
                self.pacing.add(item.duration_ms)
        elif item.type == ev.SAFEPOINT:
            self.safepoints.add(item.duration_ms)

    def _info(self, info: LogInfo) -> None:
        if info.key == "collector":
            self.collector = self.collector or str(info.value)
        elif info.key == "jvm_version":
            self.jvm_version = self.jvm_version or str(info.value)
        elif info.key == "percentiles_unmeasured":
            self.percentiles_unmeasured = self.percentiles_unmeasured or str(info.value)
        elif isinstance(info.value, float | int):
            self.heap.setdefault(info.key, float(info.value))

    def _pause(self, e: GcEvent) -> None:
        dur = e.duration_ms if e.duration_ms is not None else 0.0
        self.pauses.add(dur)
        self.by_kind[e.kind].add(dur)
        if e.t_s is not None:
            if self.first_pause_t is None:
                self.first_pause_t = e.t_s
            self.last_pause_t = e.t_s
        if e.heap_after_mb is not None:
            self.heap_after.add(e.heap_after_mb)
            if e.heap_before_mb is not None and self._last_heap_after is not None and e.t_s is not None:
                grown = e.heap_before_mb - self._last_heap_after
                if grown > 0:
                    self.allocated_mb += grown
                self._alloc_t1 = e.t_s
            elif self._alloc_t0 is None:
                self._alloc_t0 = e.t_s
            self._last_heap_after = e.heap_after_mb
        if (e.young_before_mb is not None and e.young_after_mb is not None
                and e.heap_before_mb is not None and e.heap_after_mb is not None and e.kind != ev.FULL):
            promoted = (e.young_before_mb - e.young_after_mb) - (e.heap_before_mb - e.heap_after_mb)
            self.promoted_mb += max(promoted, 0.0)
            self.promotion_known = True

    # -- results -----------------------------------------------------------------------
    @property
    def pause_count(self) -> int:
        return self.pauses.count

    @property
    def pauses_logged(self) -> bool:
        """False for ZGC logs at ``-Xlog:gc`` level: they show cycles but not their pauses."""
        return not (self.pauses.count == 0 and self.cycles.count > 0
                    and (self.collector or "").startswith("ZGC"))

    def throughput_pct(self) -> float | None:
        """Share of the span not spent in pauses; None without a span, or when the pauses add
        up to more than it (overlapping records: a share above 100% would be meaningless)."""
        if not self.span_s:
            return None
        paused_s = self.pauses.total / 1000.0
        if paused_s > self.span_s * (1.0 + 1e-9) or self._only_pauses():
            return None
        return max(0.0, 100.0 * (1.0 - paused_s / self.span_s))

    def _only_pauses(self) -> bool:
        """A span from the first event that holds nothing but pauses (a log of one pause)."""
        return (self.span_from != "jvm_start" and self.span_s is not None
                and self.pauses.total / 1000.0 >= self.span_s * (1.0 - 1e-9))

    def throughput_note(self) -> str | None:
        """Why the throughput is not given, when the log has a span and pauses."""
        if not (self.span_s and self.pauses_logged and self.throughput_pct() is None):
            return None
        if self._only_pauses():
            return ("the span (first event to last, no JVM start in the log) holds nothing but pauses: "
                    "no running time to measure")
        return (f"pauses add up to {self.pauses.total / 1000.0:.6g} s, more than the {self.span_s:.6g} s "
                f"span: the log's records overlap")

    def interval_mean_s(self) -> float | None:
        if self.pauses.count < 2 or self.first_pause_t is None or self.last_pause_t is None:
            return None
        return (self.last_pause_t - self.first_pause_t) / (self.pauses.count - 1)

    def _rate_window_s(self) -> float | None:
        if self._alloc_t0 is None or self._alloc_t1 is None or self._alloc_t1 <= self._alloc_t0:
            return None
        return self._alloc_t1 - self._alloc_t0

    def alloc_rate_mb_s(self) -> float | None:
        window = self._rate_window_s()
        return None if window is None else self.allocated_mb / window

    def promotion_rate_mb_s(self) -> float | None:
        window = self._rate_window_s()
        return None if window is None or not self.promotion_known else self.promoted_mb / window

    def to_json(self) -> dict[str, Any]:
        """One entry of the ``logs[]`` array (schema in docs/gclog.md)."""
        p = self.pauses
        p50, p90, p99 = p.quantiles((0.5, 0.9, 0.99)) if self.percentiles_unmeasured is None else (None,) * 3
        pauses: dict[str, Any] = {
            "count": p.count,
            "total_ms": rounded(p.total),
            "mean_ms": rounded(p.total / p.count) if p.count else None,
            "p50_ms": rounded(p50), "p90_ms": rounded(p90), "p99_ms": rounded(p99),
            "max_ms": rounded(p.max) if p.count else None,
            "percentiles_exact": p.exact,
            "by_kind": {k: s.to_json() for k, s in self.by_kind.items()},
        }
        if self.percentiles_unmeasured is not None:
            pauses["percentiles_not_measured"] = self.percentiles_unmeasured
        if not self.pauses_logged:
            pauses = {k: None for k in pauses}
        out: dict[str, Any] = {
            "files": [str(f) for f in self.files],
            "format": self.format,
            "collector": self.collector,
            "jvm_version": self.jvm_version,
            "heap_settings_mb": {k: rounded(v) for k, v in sorted(self.heap.items())} or None,
            "span_s": rounded(self.span_s),
            "span_from": self.span_from,
            "jvm_runs": self.jvm_runs,
            "pauses": pauses,
            "concurrent_cycles": self.cycles.to_json(),
            "stalls": self.stalls.to_json(),
            "relocation_stalls": self.relocation_stalls.to_json(),
            "pacing": self.pacing.to_json(),
            "safepoints": self.safepoints.to_json() if self.safepoints.count else None,
            "throughput_pct": rounded(self.throughput_pct()) if self.pauses_logged else None,
            "throughput_not_measured": self.throughput_note(),
            "interval_mean_s": rounded(self.interval_mean_s()),
            "heap_after_gc_mb": self.heap_after.to_json(),
            "alloc_rate_mb_s": rounded(self.alloc_rate_mb_s()),
            "promotion_rate_mb_s": rounded(self.promotion_rate_mb_s()),
            "unparsed_lines": self.unparsed_lines,
            "unparsed_samples": list(self.unparsed_samples),
        }
        out.update(self.figures.to_json(self.heap.get("heap_max_mb")))
        if self.zgc_collections:
            out["zgc_collections"] = {k: s.to_json() for k, s in sorted(self.zgc_collections.items())}
        return out


def summary_metrics(summary: LogSummary, wall_s: float | None = None) -> dict[str, float]:
    """Registry metrics (src/jvmlab/metrics.py) for one summary; unknown ones are left out.

    ``wall_s`` (the invocation's wall time) is the denominator of ``gc.paused_pct`` when
    given; otherwise the log's own time span is used.
    """
    p = summary.pauses
    out: dict[str, float] = {}
    if summary.pauses_logged:
        out.update({"gc.pause_count": float(p.count), "gc.pause_total_ms": p.total})
        out["gc.young_count"] = float(summary.by_kind[ev.YOUNG].count)
        out["gc.mixed_count"] = float(summary.by_kind[ev.MIXED].count)
        out["gc.full_count"] = float(summary.by_kind[ev.FULL].count)
    if p.count:
        p50, p99 = p.quantiles((0.5, 0.99))
        out.update({"gc.pause_mean_ms": p.total / p.count, "gc.pause_max_ms": p.max})
        if p50 is not None and p99 is not None and summary.percentiles_unmeasured is None:
            out.update({"gc.pause_p50_ms": p50, "gc.pause_p99_ms": p99})
    out["gc.concurrent_cycles"] = float(summary.cycles.count)
    if summary.collector == "ZGC" or summary.stalls.count:
        out["gc.stall_count"] = float(summary.stalls.count)
        out["gc.stall_total_ms"] = summary.stalls.total_ms
    if summary.collector == "Shenandoah" or summary.pacing.count:
        out["gc.pacing_total_ms"] = summary.pacing.total_ms
    denominator = wall_s if wall_s else summary.span_s
    if denominator and summary.pauses_logged and p.total / 1000.0 <= denominator:
        out["gc.paused_pct"] = 100.0 * (p.total / 1000.0) / denominator
    interval = summary.interval_mean_s()
    if interval is not None:
        out["gc.interval_mean_s"] = interval
    if summary.heap_after.n:
        out["gc.heap_after_gc_max_mb"] = summary.heap_after.hi
    alloc = summary.alloc_rate_mb_s()
    if alloc is not None:
        out["gc.alloc_rate_mb_s"] = alloc
    if "heap_soft_max_mb" in summary.heap:
        out["gc.heap_soft_max_mb"] = summary.heap["heap_soft_max_mb"]
    return out
