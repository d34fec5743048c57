"""Timelines and progress documents for the HTML report, bounded in size.

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

from jvmlab.store.records import StoredCell, StoredInvocation
from jvmlab.store.sql import SqlStore

MAX_INVOCATIONS_PER_CELL = 5
MAX_POINTS = 400
MAX_CELLS = 12


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
    progress: dict[int, dict[str, Any]] = field(default_factory=dict)  # drawn invocation -> doc
    warmup_classes: dict[str, Counter[str]] = field(default_factory=dict)  # cell -> class -> count
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


def pick_evenly(items: list[Any], k: int) -> list[Any]:
    """``k`` items spread evenly over the list (first and last included), deterministic."""
    if len(items) <= k:
        return list(items)
    idx = np.unique(np.linspace(0, len(items) - 1, k).round().astype(int))
    return [items[i] for i in idx]


def load_timelines(store: SqlStore, cells: list[StoredCell], invocations: list[StoredInvocation], *,
                   max_invocations: int = MAX_INVOCATIONS_PER_CELL, max_points: int = MAX_POINTS,
                   max_cells: int = MAX_CELLS) -> TimelineSet:
    """Load the drawn invocations' timelines and every invocation's warm-up class."""
    ok = [i for i in invocations if i.status == "ok"]
    by_cell = {c.id: sorted((i for i in ok if i.cell_id == c.id), key=lambda i: (i.block, i.id)) for c in cells}
    notes: list[str] = []
    drawn_cells = cells[:max_cells]
    if len(cells) > max_cells:
        notes.append(f"timelines drawn for the first {max_cells} of {len(cells)} cells")
    chosen: dict[int, StoredCell] = {}
    thinned = 0
    for c in drawn_cells:
        picked = pick_evenly(by_cell[c.id], max_invocations)
        thinned += len(picked) < len(by_cell[c.id])
        chosen.update({i.id: c for i in picked})
    if thinned:
        notes.append(f"timelines drawn for at most {max_invocations} invocations per cell, spread evenly "
                     f"over the blocks ({thinned} cell(s) thinned)")
    raw = store.timelines(sorted(chosen))
    series: dict[str, list[Series]] = {}
    reduced = 0
    for inv_id in sorted(raw):
        cell = chosen[inv_id]
        for name, (unit, t_s, values) in sorted(raw[inv_id].items()):
            t2, v2 = downsample(t_s, values, max_points)
            reduced += len(t2) < min(len(t_s), len(values))
            series.setdefault(name, []).append(Series(cell.name, cell.idx, inv_id, unit,
                                                      round_sig(t2), round_sig(v2)))
    if reduced:
        notes.append(f"{reduced} series downsampled to at most {max_points} points (minimum and maximum "
                     f"of each time bucket kept)")
    progress_docs = store.documents([i.id for i in ok], "progress")
    names = {c.id: c.name for c in cells}
    classes: dict[str, Counter[str]] = {}
    for inv in ok:
        doc = progress_docs.get(inv.id)
        if isinstance(doc, dict) and doc.get("class"):
            classes.setdefault(names[inv.cell_id], Counter())[str(doc["class"])] += 1
    progress = {i: d for i, d in progress_docs.items() if i in chosen and isinstance(d, dict)}
    return TimelineSet(series=series, progress=progress, warmup_classes=classes, notes=tuple(notes))
