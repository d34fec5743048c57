"""Load one experiment from the store, once, into :class:`ExperimentResults`.

This and the cli are the only places that read the store for reporting: renderers take the
loaded results. Stored ``busy-machine`` rows carry their numbers as columns
(:class:`jvmlab.model.hazards.MachineLoad`, schema v9): nothing here reads a number out of text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from jvmlab.metrics import DEFAULT
from jvmlab.model import hazards as hz
from jvmlab.model.documents import ArchiveRecord, ArchivesDocument, LoadHistogramDocument, ProgressDocument
from jvmlab.model.hazards import MachineLoad
from jvmlab.model.stored import StoredCell, StoredHazard, StoredInvocation
from jvmlab.results.nodes import load_nodes
from jvmlab.results.records import BusyBlock, ExperimentResults, RawSeries
from jvmlab.store.protocol import Store


@dataclass(frozen=True)
class TimelineSelection:
    """Which invocations' timelines to load: at most ``per_cell`` evenly spread successful
    invocations in each of the first ``max_cells`` cells (a report draws no more)."""

    per_cell: int = 5
    max_cells: int = 12


def load_experiment(store: Store, experiment_id: int, *, documents: bool = True,
                    timelines: TimelineSelection | None = None) -> ExperimentResults:
    """Everything the statistics and the renderers need about one experiment.

    ``documents=False`` skips progress documents, latency histograms and archives (adaptive
    stopping needs only values); ``timelines`` loads the drawn invocations' time series."""
    experiment = store.experiment(experiment_id)
    cells = tuple(store.cells(experiment_id))
    invocations = tuple(store.invocations(experiment_id))
    units = store.metric_units(experiment_id)
    stored = tuple(store.hazards(experiment_id))
    ok = [i for i in invocations if i.status == "ok"]
    progress: dict[int, ProgressDocument] = {}
    histograms: dict[int, LoadHistogramDocument] = {}
    archives: tuple[ArchiveRecord, ...] = ()
    if documents and ok:
        ids = [i.id for i in ok]
        progress = store.records(ids, ProgressDocument)
        histograms = store.records(ids, LoadHistogramDocument)
    if documents and (made := store.record(experiment_id, ArchivesDocument)) is not None:
        archives = made.archives
    drawn = store.timelines(sorted(pick_drawn(cells, ok, timelines))) if timelines else {}
    return ExperimentResults(
        experiment=experiment, cells=cells, invocations=invocations, units=dict(units), hazards=stored,
        busy_blocks=busy_blocks(stored), progress=progress, histograms=histograms, archives=archives,
        timelines=drawn, metrics=DEFAULT.extended(units), nodes=load_nodes(store, experiment_id))


def busy_blocks(stored: tuple[StoredHazard, ...] | list[Any]) -> tuple[BusyBlock, ...]:
    """The stored busy-machine rows' numbers (schema v9 columns: :class:`MachineLoad`)."""
    out = []
    for h in stored:
        if h.kind != hz.BUSY_MACHINE:
            continue
        load: MachineLoad = getattr(h, "load", None) or MachineLoad(None, None)
        out.append(BusyBlock(None if load.other_share is None else round(load.other_share * 100), load.warmup,
                             h.detail, getattr(h, "hint", None) or "", None if load.warmup else load.block,
                             None if load.steal_share is None else round(load.steal_share * 100),
                             load.run_delay_s, load.node))
    return tuple(out)


def pick_evenly(items: list[Any], k: int) -> list[Any]:
    """``k`` items spread evenly over the list (first and last included), deterministic."""
    if len(items) <= k:
        return list(items)
    idx = np.unique(np.linspace(0, len(items) - 1, k).round().astype(int))
    return [items[i] for i in idx]


def pick_drawn(cells: tuple[StoredCell, ...], ok: list[StoredInvocation],
               selection: TimelineSelection | None) -> dict[int, StoredCell]:
    """Invocation id -> cell for the invocations whose timelines are drawn."""
    if selection is None:
        return {}
    chosen: dict[int, StoredCell] = {}
    for cell in cells[:selection.max_cells]:
        mine = sorted((i for i in ok if i.cell_id == cell.id), key=lambda i: (i.block, i.id))
        for inv in pick_evenly(mine, selection.per_cell):
            chosen[inv.id] = cell
    return chosen


__all__ = ["RawSeries", "TimelineSelection", "busy_blocks", "load_experiment", "pick_drawn", "pick_evenly"]
