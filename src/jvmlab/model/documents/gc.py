"""An invocation's ``gc`` document: the GC log analyzer's summary of the run's log.

The summary itself stays the analyzer's own JSON (``LogSummary.to_json()`` with its
``findings``, schema in docs/gclog.md), read by ``jvmlab.gclog`` (compare, findings, the GC
pages), which owns that schema; the record types what its readers decide on before handing
the summary over: which files, whether the log could be read, which collector wrote it and
at what level the gc collector logged. Version 1 is the layout stored before versions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jvmlab.model.documents.base import Document, JsonObject, mapping, opt_float, opt_int, opt_str, strings


@dataclass(frozen=True, slots=True)
class GcDocument(Document):
    """One invocation's GC log summary. ``error`` set: the log could not be read (the summary
    holds nothing else)."""

    KIND = "gc"

    files: tuple[str, ...]
    error: str | None
    collector: str | None
    gc_log: str | None  # the gc collector's level: light or full (None: an older store)
    summary: JsonObject  # the analyzer's JSON, as it was stored (for jvmlab.gclog)

    @classmethod
    def of(cls, summary: JsonObject) -> GcDocument:
        """The record of an analyzer summary (``summary_document(...)`` plus the collector's notes)."""
        return cls.decode(summary, cls.VERSION)

    @property
    def typed(self) -> GcSummary:
        """The summary as a record (what the GC tables read)."""
        return GcSummary.of(self.summary)

    @property
    def readable(self) -> bool:
        """The log was read and summarised (its pauses are there, even if none were logged)."""
        return self.error is None and "pauses" in self.summary

    def body(self) -> JsonObject:
        own = {"files": list(self.files) or None, "error": self.error, "collector": self.collector,
               "gc_log": self.gc_log}  # a part the summary had is kept, null or empty as it was
        return {**self.summary, **{k: v for k, v in own.items() if v is not None}}

    @classmethod
    def decode(cls, data: Any, version: int) -> GcDocument:
        d = {str(k): v for k, v in mapping(data).items() if k != "version"}
        for part in ("pauses", "concurrent_cycles"):
            if d.get(part) is not None and not isinstance(d[part], Mapping):
                raise TypeError(f"{part} is a {type(d[part]).__name__}, not an object")
        if d.get("findings") is not None and not isinstance(d["findings"], list):
            raise TypeError("findings is not a list")
        return cls(strings(d.get("files") or ()), opt_str(d.get("error")), opt_str(d.get("collector")),
                   opt_str(d.get("gc_log")), d)


@dataclass(frozen=True, slots=True)
class GcStat:
    """A count of GC events and their summed (and longest) duration."""

    count: int = 0
    total_ms: float = 0.0
    max_ms: float | None = None

    @classmethod
    def of(cls, data: Any) -> GcStat:
        d = mapping(data) if data is not None else {}
        return cls(int(d.get("count") or 0), float(d.get("total_ms") or 0.0), opt_float(d.get("max_ms")))


def _stats(data: Any) -> dict[str, GcStat]:
    return {str(k): GcStat.of(v) for k, v in mapping(data).items() if v} if data else {}


@dataclass(frozen=True, slots=True)
class PauseStats:
    """The pauses of a log; every figure None when the log does not show pauses (ZGC at
    -Xlog:gc shows cycles only)."""

    count: int | None
    total_ms: float | None
    p50_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    by_kind: dict[str, GcStat]


@dataclass(frozen=True, slots=True)
class LastPause:
    t_s: float | None
    duration_ms: float | None
    kind: str


@dataclass(frozen=True, slots=True)
class HeapMaxima:
    """The largest heap figures the log shows, MB (None: not in the log)."""

    used: float | None = None
    after_gc: float | None = None
    committed: float | None = None
    young_used: float | None = None
    old_used: float | None = None


@dataclass(frozen=True, slots=True)
class GcSummary:
    """The GC log analyzer's summary (``LogSummary.to_json()``, schema in docs/gclog.md) as a
    record: what `gc analyze`'s tables show. Read from the stored layout of ``GcDocument``
    version 1 (and the analyzer's own output); parts an older summary lacks read as empty."""

    files: tuple[str, ...]
    format: str | None
    collector: str | None
    jvm_version: str | None
    jvm_runs: int | None
    span_s: float | None
    span_from: str | None
    pauses: PauseStats
    stalls: GcStat
    relocation_stalls: GcStat
    pacing: GcStat
    concurrent_cycles: GcStat
    throughput_pct: float | None
    alloc_rate_mb_s: float | None
    heap_settings_mb: dict[str, float]
    heap_max_mb: HeapMaxima
    first_event_s: float | None
    last_event_s: float | None
    last_pause: LastPause | None
    collections_by_cause: dict[str, GcStat]
    failures: dict[str, GcStat]
    concurrent_phases: dict[str, GcStat]
    event_type_count: int | None

    @classmethod
    def of(cls, data: Any) -> GcSummary:
        d = mapping(data)
        p = mapping(d.get("pauses") or {})
        pauses = PauseStats(opt_int(p.get("count")), opt_float(p.get("total_ms")), opt_float(p.get("p50_ms")),
                            opt_float(p.get("p99_ms")), opt_float(p.get("max_ms")), _stats(p.get("by_kind")))
        lp = d.get("last_pause")
        last = (LastPause(opt_float(mapping(lp).get("t_s")), opt_float(mapping(lp).get("duration_ms")),
                          str(mapping(lp).get("kind") or "")) if lp else None)
        hm = mapping(d.get("heap_max_mb") or {})
        heap = HeapMaxima(*(opt_float(hm.get(k)) for k in ("used", "after_gc", "committed", "young_used", "old_used")))
        settings = {str(k): float(v) for k, v in mapping(d.get("heap_settings_mb") or {}).items() if v is not None}
        types = d.get("event_types")
        return cls(strings(d.get("files") or ()), opt_str(d.get("format")), opt_str(d.get("collector")),
                   opt_str(d.get("jvm_version")), opt_int(d.get("jvm_runs")), opt_float(d.get("span_s")),
                   opt_str(d.get("span_from")), pauses, GcStat.of(d.get("stalls")),
                   GcStat.of(d.get("relocation_stalls")), GcStat.of(d.get("pacing")),
                   GcStat.of(d.get("concurrent_cycles")), opt_float(d.get("throughput_pct")),
                   opt_float(d.get("alloc_rate_mb_s")), settings, heap, opt_float(d.get("first_event_s")),
                   opt_float(d.get("last_event_s")), last, _stats(d.get("collections_by_cause")),
                   _stats(d.get("failures")), _stats(d.get("concurrent_phases")),
                   opt_int(mapping(types).get("count")) if types else None)
