"""What an importer reads from result files, before it is stored."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ImportedCell:
    name: str
    jvm: str  # "jdk17", or "unknown" when the file does not say
    jdk: dict[str, Any]  # what the file says about the JDK (home, version, feature, vm)
    levels: dict[str, str] = field(default_factory=dict)
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportedRun:
    """One invocation: a JMH fork (every benchmark's k-th fork) or one hyperfine run."""

    cell: int  # index into ImportedExperiment.cells
    wall_s: float | None = None
    exit_code: int | None = 0
    max_rss_bytes: int | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportedExperiment:
    source: str  # "jmh" or "hyperfine"
    name: str
    files: tuple[str, ...]
    texts_digest: str  # sha256 of the files' contents: the experiment's "spec hash"
    cells: tuple[ImportedCell, ...]
    runs: tuple[ImportedRun, ...]
    unknown: tuple[str, ...]  # what the files cannot tell, one sentence each
    documents: dict[str, Any] = field(default_factory=dict)  # per-source details kept whole
    started_at: float = 0.0  # the files' modification time: the runs' own start times are unknown
    metric: str | None = None  # what `report` compares by default (None: wall_s); JMH: the first score
    metric_reason: str = ""
