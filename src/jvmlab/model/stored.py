"""Typed records read back from the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jvmlab.model.documents.options import RunOptionsRecord
from jvmlab.model.hazards import MachineLoad


@dataclass(frozen=True)
class StoredExperiment:
    id: int
    name: str
    spec_text: str
    spec_hash: str
    spec_path: str | None
    fingerprint: dict[str, Any]
    created_at: float
    finished_at: float | None
    status: str
    seed: int
    baseline_cell: int | None
    command_line: str | None
    artifacts_dir: str | None
    run_options: RunOptionsRecord = field(default_factory=RunOptionsRecord)  # how it was run
    # schema v4: the series this experiment is a point of, its label there and its place
    series: str | None = None
    label: str | None = None
    label_order: float | None = None  # --order; None: the label keeps its order of arrival


@dataclass(frozen=True)
class SeriesTag:
    """``run --label L [--series S] [--order N]``: the point an experiment is in a series of runs
    of the same benchmark over time (commits, JDK builds). ``series`` None: the spec's name."""

    label: str
    series: str | None = None
    order: float | None = None


@dataclass(frozen=True)
class StoredCell:
    id: int
    idx: int
    name: str
    jvm: str
    jdk: dict[str, Any]
    levels: dict[str, str]
    requested_flags: list[str]
    flags: list[str]
    final_flags: dict[str, str]
    argv: list[str] | None


@dataclass(frozen=True)
class StoredInvocation:
    id: int
    cell_id: int
    block: int
    position: int
    warmup: bool
    started_at: float
    status: str
    reason: str | None
    exit_code: int | None
    signal: int | None
    wall_s: float | None
    user_s: float | None
    sys_s: float | None
    max_rss_bytes: int | None
    minor_faults: int | None
    major_faults: int | None
    vol_ctx_switches: int | None
    invol_ctx_switches: int | None
    ready_s: float | None
    argv: list[str]
    stdout_tail: str | None
    stderr_tail: str | None
    artifacts_dir: str | None
    metrics: dict[str, float] = field(default_factory=dict)
    node: str | None = None  # the cluster node (Dask worker address) that ran it; None on one machine
    host: str | None = None  # the host it ran on (None: not recorded, stored before schema v6 or imported)

    @property
    def cpu_s(self) -> float | None:
        return None if self.user_s is None or self.sys_s is None else self.user_s + self.sys_s

    def value(self, metric: str) -> float | None:
        """A metric's value for this invocation, None when not measured."""
        if metric == "cpu_s":
            return self.cpu_s
        if metric in _COLUMNS:
            raw = getattr(self, metric)
            return None if raw is None else float(raw)
        return self.metrics.get(metric)


_COLUMNS = {"wall_s", "user_s", "sys_s", "max_rss_bytes", "minor_faults", "major_faults",
            "vol_ctx_switches", "invol_ctx_switches", "ready_s"}
PROCESS_METRICS = tuple(sorted(_COLUMNS | {"cpu_s"}))


@dataclass(frozen=True)
class StoredHazard:
    kind: str
    detail: str
    hint: str | None
    cell: str | None
    invocation_id: int | None
    load: MachineLoad | None = None  # a busy machine's numbers (schema v8)
