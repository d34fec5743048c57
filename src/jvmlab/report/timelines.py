"""Timelines and progress documents for the HTML report, bounded in size (loaded by the
results layer, :func:`jvmlab.results.load_experiment` with ``timelines=SELECTION``).

An experiment of 10,000 invocations with /proc samples every 100 ms holds far more points
than a browser can draw or a report file should carry, so the report draws at most
``max_invocations`` evenly spread invocations per cell and at most ``max_points`` points
per series (min/max per bucket, so spikes survive). Every reduction is stated in
:attr:`TimelineSet.notes` and shown in the page.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jvmlab.model.documents import ProgressDocument
from jvmlab.model.stored import StoredCell, StoredInvocation
from jvmlab.results import ExperimentResults, TimelineSelection
from jvmlab.results.load import pick_drawn

MAX_POINTS = 400
SELECTION = TimelineSelection()  # its defaults: 5 invocations in each of the first 12 cells


@dataclass(frozen=True)
class Series:
    """One drawn time series of one invocation (already downsampled)."""

    cell: str
    cell_idx: int
    invocation_id: int
    unit: str
    t_s: list[float | None]  # None: a non-finite sample (a gap in the plot)
    values: list[float | None]


@dataclass(frozen=True)
class TimelineSet:
    """What the report draws over time, and what it left out."""

    series: dict[str, list[Series]] = field(default_factory=dict)  # series name -> drawn series
    progress: dict[int, ProgressDocument] = field(default_factory=dict)  # drawn invocation -> its warm-up
    notes: tuple[str, ...] = ()

    def get(self, name: str) -> list[Series]:
        return self.series.get(name, [])


def round_sig(values: Any, digits: int = 6) -> list[float | None]:
    """Values rounded to ``digits`` significant digits: JSON stays small, plots unchanged
    (a non-finite value becomes None: JSON null, a gap in the plot)."""
    out: list[float | None] = []
    for v in values:
        f = float(v)
        out.append(float(f"{f:.{digits}g}") if np.isfinite(f) else None)
    return out


def downsample(t_s: list[float], values: list[float], max_points: int) -> tuple[list[float], list[float]]:
    """At most ``max_points`` points: the min and the max of each bucket, in time order."""
    n = min(len(t_s), len(values))
    if n <= max_points:
        return list(t_s[:n]), list(values[:n])
    t = np.asarray(t_s[:n], dtype=float)
    v = np.asarray(values[:n], dtype=float)
    buckets = max(1, max_points // 2)
    edges = np.linspace(0, n, buckets + 1).astype(int)
    keep: list[int] = []
    for lo, hi in itertools.pairwise(edges):
        if hi <= lo:
            continue
        chunk = v[lo:hi]
        finite = np.isfinite(chunk)
        if not finite.any():
            keep.append(lo)
            continue
        a = lo + int(np.nanargmin(np.where(finite, chunk, np.inf)))
        b = lo + int(np.nanargmax(np.where(finite, chunk, -np.inf)))
        keep.extend(sorted({a, b}))
    return t[keep].tolist(), v[keep].tolist()


def build_timelines(results: ExperimentResults | None, cells: list[StoredCell],
                    invocations: list[StoredInvocation], *, max_points: int = MAX_POINTS) -> TimelineSet:
    """The drawn series (loaded by the results layer for its :class:`TimelineSelection`),
    downsampled; each reduction is stated in notes."""
    if results is None:
        return TimelineSet()
    ok = [i for i in invocations if i.status == "ok"]
    notes: list[str] = []
    if len(cells) > SELECTION.max_cells:
        notes.append(f"timelines drawn for the first {SELECTION.max_cells} of {len(cells)} cells")
    chosen = pick_drawn(tuple(cells), ok, SELECTION)
    per_cell = Counter(i.cell_id for i in ok)
    thinned = sum(per_cell[c.id] > SELECTION.per_cell for c in cells[:SELECTION.max_cells])
    if thinned:
        notes.append(f"timelines drawn for at most {SELECTION.per_cell} invocations per cell, spread evenly "
                     f"over the blocks ({thinned} cell(s) thinned)")
    series: dict[str, list[Series]] = {}
    reduced = 0
    for inv_id in sorted(results.timelines):
        cell = chosen.get(inv_id)
        if cell is None:
            continue
        for name, (unit, t_s, values) in sorted(results.timelines[inv_id].items()):
            t2, v2 = downsample(t_s, values, max_points)
            reduced += len(t2) < min(len(t_s), len(values))
            series.setdefault(name, []).append(Series(cell.name, cell.idx, inv_id, unit,
                                                      round_sig(t2), round_sig(v2)))
    if reduced:
        notes.append(f"{reduced} series downsampled to at most {max_points} points (minimum and maximum "
                     f"of each time bucket kept)")
    progress = {i: d for i, d in results.progress.items() if i in chosen}
    return TimelineSet(series=series, progress=progress, notes=tuple(notes))
