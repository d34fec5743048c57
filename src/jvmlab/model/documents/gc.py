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

from jvmlab.model.documents.base import Document, JsonObject, mapping, opt_str, strings


@dataclass(frozen=True, slots=True)
class GcDocument(Document):
    """One invocation's GC log summary. ``error`` set: the log could not be read (the summary
    holds nothing else)."""

    KIND = "gc"
    VERSION = 1

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
