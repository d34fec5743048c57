"""The warnings of one analysed experiment, as typed :class:`jvmlab.model.hazards.Hazard` values:
the stored ones deduplicated, busy blocks folded into one (with the worst share, a number
read from :class:`BusyBlock`), and those the statistics reveal (failures, outliers, drift)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from jvmlab.analyze.model import MetricAnalysis
from jvmlab.model import hazards as hz
from jvmlab.model.stored import StoredHazard
from jvmlab.results.compare import DRIFT_P
from jvmlab.results.records import BusyBlock


class FailuresAndOutliers(Protocol):
    """What the hazards need of a cell's results (``results.experiment.CellResult``)."""

    @property
    def name(self) -> str: ...
    @property
    def failures(self) -> int: ...
    @property
    def failure_reasons(self) -> dict[str, int]: ...
    @property
    def outliers(self) -> tuple[int, ...]: ...


def experiment_hazards(stored: Sequence[StoredHazard], busy: Sequence[BusyBlock],
                       cells: Sequence[FailuresAndOutliers], analysis: MetricAnalysis) -> tuple[hz.Hazard, ...]:
    """Stored hazards (deduplicated, busy blocks as one) plus those the statistics reveal."""
    out = _stored(stored)
    if busy:
        out.insert(0, _busy(busy))
    for cs in cells:
        if cs.failures:
            top = max(cs.failure_reasons.items(), key=lambda kv: kv[1])
            out.append(hz.Hazard(hz.FAILURES, f"{cs.name}: {cs.failures} failed invocation(s); "
                                 f"most common: {top[0]} (x{top[1]})",
                                 "failures are stored with their reason and left out of statistics", cs.name))
        if cs.outliers:
            out.append(hz.Hazard(hz.OUTLIERS, f"{cs.name}: {len(cs.outliers)} outlier(s) on "
                                 f"{analysis.metric} (invocations {', '.join(map(str, cs.outliers))})",
                                 "outliers are shown, never dropped; look at their output", cs.name))
    for name, d in analysis.drift.items():
        if d.p_value is not None and d.p_value < DRIFT_P and d.slope_rel_per_block is not None:
            out.append(hz.Hazard(hz.DRIFT, f"{name}: {analysis.metric} trends across blocks "
                                 f"(Spearman rho {d.rho:+.2f}, p={d.p_value:.3g}, "
                                 f"{d.slope_rel_per_block:+.2%} per block)",
                                 "the machine drifted during the run; random-blocks order keeps "
                                 "comparisons fair, but check for thermal or background effects", name))
    return tuple(out)


def _stored(stored: Sequence[StoredHazard]) -> list[hz.Hazard]:
    """Stored hazards other than busy blocks, each once, with "(xN)" when it repeated."""
    seen: dict[tuple[str, str | None, str], hz.Hazard] = {}
    counts: Counter[tuple[str, str | None, str]] = Counter()
    for h in stored:
        if h.kind == hz.BUSY_MACHINE:
            continue
        key = (h.kind, h.cell, h.detail)
        counts[key] += 1
        seen.setdefault(key, hz.Hazard(h.kind, h.detail, h.hint or "", h.cell))
    return [h if counts[k] == 1 else hz.Hazard(h.kind, f"{h.detail} (x{counts[k]})", h.hint, h.cell)
            for k, h in seen.items()]


def _busy(busy: Sequence[BusyBlock]) -> hz.Hazard:
    """All busy blocks as one warning: how many, and the worst share of the CPU."""
    unique = list({b.detail: b for b in busy}.values())
    shares = [b.share_pct for b in unique if b.share_pct is not None]
    worst = f", up to {max(shares)}% of the CPU" if shares else ""
    head = f"other processes were busy during {len(unique)} block(s){worst}"
    return hz.Hazard(hz.BUSY_MACHINE, f"{head}: {unique[0].detail}" if len(unique) == 1 else head, unique[0].hint)
