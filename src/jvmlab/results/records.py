"""Typed, frozen records of one loaded experiment: what the store holds, read once.

Every consumer (report, scenarios, adaptive stopping, compare, tune) reads these instead of
querying the store while it works, so one experiment is loaded once and rendered many ways.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from jvmlab.analyze.model import CellData
from jvmlab.metrics import DEFAULT, MetricRegistry
from jvmlab.model.documents import ArchiveRecord, LoadHistogramDocument, ProgressDocument
from jvmlab.model.stored import StoredCell, StoredExperiment, StoredHazard, StoredInvocation
from jvmlab.results.node_records import NodeRecords

RawSeries = tuple[str, list[float], list[float]]  # unit, t_s, values


@dataclass(frozen=True)
class BusyBlock:
    """One block during which other processes used the CPU (a ``busy-machine`` hazard).

    ``share_pct`` is the other processes' share of the CPU as a number (None when the row
    did not say); ``warmup`` is True for a warm-up block, whose invocations are not in the
    statistics; ``block`` is the block's stored id (None when the row did not say)."""

    share_pct: int | None
    warmup: bool
    detail: str
    hint: str
    block: int | None = None
    steal_pct: int | None = None  # the hypervisor's steal in that block (None: not recorded)
    run_delay_s: float | None = None  # mean run-queue delay per invocation in that block (None: not measured)
    node: str | None = None  # the cluster node that was busy (None: this machine)


@dataclass(frozen=True)
class ExperimentResults:
    """One experiment as stored: cells, measured invocations (failures included), metric
    units, stored hazards, documents, and the metric registry extended by the experiment's
    own dynamic metrics."""

    experiment: StoredExperiment
    cells: tuple[StoredCell, ...]
    invocations: tuple[StoredInvocation, ...]
    units: Mapping[str, str]
    hazards: tuple[StoredHazard, ...] = ()
    busy_blocks: tuple[BusyBlock, ...] = ()
    progress: Mapping[int, ProgressDocument] = field(default_factory=dict)  # invocation id -> its warm-up
    histograms: Mapping[int, LoadHistogramDocument] = field(default_factory=dict)  # invocation id -> latency
    archives: tuple[ArchiveRecord, ...] = ()  # CDS/AOT archives made for cells
    timelines: Mapping[int, Mapping[str, RawSeries]] = field(default_factory=dict)  # drawn invocations only
    metrics: MetricRegistry = DEFAULT
    nodes: NodeRecords | None = None  # a cluster run's nodes (None: run on one machine)

    @property
    def baseline(self) -> str | None:
        """The baseline cell's name (None when the experiment has none)."""
        return next((c.name for c in self.cells if c.idx == self.experiment.baseline_cell), None)

    @cached_property
    def ok_by_cell(self) -> dict[int, tuple[StoredInvocation, ...]]:
        """Cell id -> its successful invocations, in stored order."""
        out: dict[int, list[StoredInvocation]] = {c.id: [] for c in self.cells}
        for inv in self.invocations:
            if inv.status == "ok" and inv.cell_id in out:
                out[inv.cell_id].append(inv)
        return {k: tuple(v) for k, v in out.items()}

    def ok(self, cell: StoredCell) -> tuple[StoredInvocation, ...]:
        return self.ok_by_cell.get(cell.id, ())

    def values(self, cell: StoredCell, metric: str) -> CellData:
        """One value per successful invocation of ``cell`` (NaN when not measured), with blocks."""
        return cell_values(self.ok(cell), metric)

    def cell_named(self, name: str) -> StoredCell | None:
        return next((c for c in self.cells if c.name == name), None)

    def measured_blocks(self) -> int:
        """How many blocks had at least one successful measured invocation."""
        return len({inv.block for inv in self.invocations if inv.status == "ok" and inv.block >= 0})


def cell_values(invocations: Any, metric: str) -> CellData:
    """The values of ``metric`` of these invocations, as the statistics take them (NaN =
    not measured, left out and counted, never 0), with each invocation's block."""
    invs = list(invocations)
    values = [inv.value(metric) for inv in invs]
    return CellData.of([np.nan if v is None else v for v in values], [inv.block for inv in invs])
