"""Documents about a whole experiment that every kind of run may write: each stored cell's
identity (``cell_identity``), the spec texts a resumed experiment replaced (``spec_history``),
the CDS/AOT archives made before the run (``archives``), what an import kept of its files
(``import``) and a `gc advise` run's findings and advice (``gc_advise``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from jvmlab.model.documents.base import Document, JsonObject, mapping, opt_str, strings

IDENTITY_PARTS = ("flags", "jdk", "workload", "template")  # what must not change for a stored cell


@dataclass(frozen=True, slots=True)
class CellIdentity:
    """What must not change for a stored cell's values to stay comparable: its requested flags,
    its JDK build, the workload's command and the invocation template. A part that is None was
    not recorded (an older store), so it is not compared; ``jdk``, ``workload`` and ``template``
    are their owners' JSON, compared whole."""

    name: str
    flags: tuple[str, ...]
    jdk: JsonObject | None = None
    workload: JsonObject | None = None
    template: JsonObject | None = None

    def body(self) -> JsonObject:
        return {"name": self.name, "flags": list(self.flags), "jdk": self.jdk, "workload": self.workload,
                "template": self.template}

    @classmethod
    def decode(cls, data: Any) -> CellIdentity:
        d = mapping(data)
        return cls(str(d["name"]), strings(d.get("flags") or ()), _object(d.get("jdk")), _object(d.get("workload")),
                   _object(d.get("template")))


@dataclass(frozen=True, slots=True)
class CellIdentityDocument(Document):
    """Stored cell index -> its identity (version 1 stored the map itself, without a version)."""

    KIND = "cell_identity"

    cells: dict[int, CellIdentity]

    def body(self) -> JsonObject:
        return {"cells": {str(k): c.body() for k, c in sorted(self.cells.items())}}

    @classmethod
    def decode(cls, data: Any, version: int) -> CellIdentityDocument:
        d = mapping(data)
        cells = d["cells"] if "version" in d else d  # today's layout: {"0": {...}, "1": {...}}
        return cls({int(k): CellIdentity.decode(v) for k, v in mapping(cells).items()})


@dataclass(frozen=True, slots=True)
class SpecChange:
    """A spec text a resumed experiment replaced, when (epoch seconds) and the cells it added."""

    spec_hash: str
    spec_text: str
    replaced_at: float
    cells_added: tuple[str, ...]

    def body(self) -> JsonObject:
        return {"spec_hash": self.spec_hash, "spec_text": self.spec_text, "replaced_at": self.replaced_at,
                "cells_added": list(self.cells_added)}


@dataclass(frozen=True, slots=True)
class SpecHistoryDocument(Document):
    """Every spec text an experiment stood for before its current one, oldest first (version 1
    stored the list itself)."""

    KIND = "spec_history"

    changes: tuple[SpecChange, ...]

    def body(self) -> JsonObject:
        return {"changes": [c.body() for c in self.changes]}

    @classmethod
    def decode(cls, data: Any, version: int) -> SpecHistoryDocument:
        entries = mapping(data)["changes"] if isinstance(data, dict) else data
        if not isinstance(entries, list):
            raise TypeError(f"expected a list of changes, found {type(entries).__name__}")
        return cls(tuple(SpecChange(str(e["spec_hash"]), str(e["spec_text"]), float(e["replaced_at"]),
                                    strings(e.get("cells_added") or ())) for e in map(mapping, entries)))

    def added(self, change: SpecChange) -> SpecHistoryDocument:
        return SpecHistoryDocument((*self.changes, change))


@dataclass(frozen=True, slots=True)
class WarningGroup:
    """Training-log lines that differ only in a class name or a number, counted once:
    784 "Skipping ...: Not linked" lines are one group, not 784 lines to read."""

    text: str  # the line with names and numbers replaced by "..." and "N"
    count: int
    example: str  # the first such line as the JVM wrote it


@dataclass(frozen=True, slots=True)
class ArchiveRecord:
    """How a cell's CDS archive or AOT cache was made and the evidence that it is used.

    Kept with the prepared cell so the session can store it and every report can show it."""

    cell: str
    kind: str  # "cds-archive" or "aot-cache"
    path: str
    size_bytes: int
    train_s: float  # wall time of the training run(s)
    check_s: float  # wall time of the run that proved the archive usable
    steps: tuple[str, ...]  # "train", or "record" and "create" (JDK 24)
    logs: tuple[str, ...]  # every step's log file, kept as artifacts
    warning_lines: int  # warning lines in the training output, all groups together
    warnings: tuple[WarningGroup, ...]
    app_classes_loaded: int  # the application's own classes the check run loaded ...
    app_classes_from_archive: int  # ... and how many of them came from the archive
    evidence: str  # one class-load line showing an application class from the archive

    def to_json(self) -> JsonObject:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> ArchiveRecord:
        d = mapping(data)
        groups = tuple(WarningGroup(str(g["text"]), int(g["count"]), str(g.get("example") or ""))
                       for g in map(mapping, d.get("warnings") or ()))
        return cls(str(d["cell"]), str(d["kind"]), str(d.get("path") or ""), int(d.get("size_bytes") or 0),
                   float(d.get("train_s") or 0.0), float(d.get("check_s") or 0.0), strings(d.get("steps") or ()),
                   strings(d.get("logs") or ()), int(d.get("warning_lines") or 0), groups,
                   int(d.get("app_classes_loaded") or 0), int(d.get("app_classes_from_archive") or 0),
                   str(d.get("evidence") or ""))


ARCHIVES_SCHEMA = "jvmlab.archives/1"  # the name version 1 carried; kept in the JSON for older readers


@dataclass(frozen=True, slots=True)
class ArchivesDocument(Document):
    """The archives made before the run, one per cell that asked for one."""

    KIND = "archives"

    archives: tuple[ArchiveRecord, ...]

    def body(self) -> JsonObject:
        return {"schema": ARCHIVES_SCHEMA, "archives": [a.to_json() for a in self.archives]}

    @classmethod
    def decode(cls, data: Any, version: int) -> ArchivesDocument:
        return cls(tuple(ArchiveRecord.from_json(a) for a in mapping(data).get("archives") or ()))


@dataclass(frozen=True, slots=True)
class ImportDocument(Document):
    """What an import kept of its files, per source ("hyperfine", "jmh"): each source's own
    details, whole (version 1 stored the map itself)."""

    KIND = "import"

    sources: dict[str, JsonObject]

    def body(self) -> JsonObject:
        return {"sources": dict(self.sources)}

    @classmethod
    def decode(cls, data: Any, version: int) -> ImportDocument:
        d = mapping(data)
        sources = d["sources"] if "version" in d else d
        return cls({str(k): v for k, v in mapping(sources).items()})


@dataclass(frozen=True, slots=True)
class GcFixLevelRecord:
    """One fix a `gc advise` run measured: its name (the ``gcfix`` level), flags and why."""

    name: str
    flags: tuple[str, ...]
    findings: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    group: str | None = None

    def body(self) -> JsonObject:
        return {"name": self.name, "flags": list(self.flags), "findings": list(self.findings),
                "reasons": list(self.reasons), "group": self.group}

    @classmethod
    def decode(cls, data: Any) -> GcFixLevelRecord:
        d = mapping(data)
        return cls(str(d["name"]), strings(d.get("flags") or ()), strings(d.get("findings") or ()),
                   strings(d.get("reasons") or ()), opt_str(d.get("group")))


@dataclass(frozen=True, slots=True)
class GcAdviseDocument(Document):
    """A `gc advise` run: the log or experiment it read, the findings it could fix (the GC
    findings' own JSON), the fixes it measured, the advice (``report/gcadvise.Advice`` JSON)
    and the winning fix `apply` prints (None: no fix removed the findings without a cost)."""

    KIND = "gc_advise"

    source: str
    findings: tuple[JsonObject, ...]
    levels: tuple[GcFixLevelRecord, ...]
    advice: JsonObject
    winner: GcFixLevelRecord | None

    def body(self) -> JsonObject:
        return {"source": self.source, "findings": list(self.findings), "levels": [lv.body() for lv in self.levels],
                "advice": {**self.advice, "winner": None if self.winner is None else self.winner.body()}}

    @classmethod
    def decode(cls, data: Any, version: int) -> GcAdviseDocument:
        d = mapping(data)
        advice = dict(mapping(d.get("advice") or {}))
        winner = advice.get("winner")
        return cls(str(d.get("source") or ""), tuple(dict(mapping(f)) for f in d.get("findings") or ()),
                   tuple(GcFixLevelRecord.decode(lv) for lv in d.get("levels") or ()), advice,
                   None if not winner else GcFixLevelRecord.decode(winner))


def _object(data: Any) -> JsonObject | None:
    return None if data is None else dict(mapping(data))
