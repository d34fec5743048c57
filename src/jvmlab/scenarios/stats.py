"""Pairs of cells for the scenario verdicts, with the statistics of :mod:`jvmlab.analyze`.

Comparisons in a Summary are against one baseline cell; a scenario verdict needs other
pairs (pre-touch on vs off at each heap). Each pair goes through the results layer
(:func:`jvmlab.results.pair_difference` / :func:`jvmlab.results.pair_ratio_pct`): the same
bootstrap as the report's comparisons, paired by block when the cells share blocks.
"""

from __future__ import annotations

import math
from typing import Any

from jvmlab.analyze.model import Clean, clean
from jvmlab.report.notation import sentence_ci
from jvmlab.results import cell_values, pair_difference, pair_ratio_pct
from jvmlab.results.compare import Interval3

__all__ = ["Interval3", "clearly", "diff_ci", "fmt_interval", "index_cells", "key_with", "mean_ci", "pair_n",
           "ratio_pct"]
CellKey = tuple[tuple[str, str], ...]


def index_cells(summary: Any) -> dict[CellKey, Any]:
    """Cells by their sorted (factor, level) pairs, the JVM included."""
    return {tuple(sorted({"jvm": cs.cell.jvm, **cs.cell.levels}.items())): cs for cs in summary.cells}


def key_with(key: CellKey, **changes: str) -> CellKey:
    return tuple(sorted({**dict(key), **changes}.items()))


def mean_ci(cell: Any, metric: str) -> Interval3 | None:
    st = cell.stats.get(metric)
    if st is None or st.mean is None:
        return None
    lo, hi = st.mean_ci95 if st.mean_ci95 else (math.nan, math.nan)
    return st.mean, lo, hi


def _values(cell: Any, metric: str) -> Clean:
    return clean(cell_values(cell.ok_invocations, metric))


def diff_ci(a: Any, b: Any, metric: str, scale: float = 1.0) -> Interval3 | None:
    """mean(a) - mean(b), times ``scale``, with its 95% bootstrap CI."""
    return pair_difference(a.cell.name, _values(a, metric), b.cell.name, _values(b, metric), metric, scale)


def ratio_pct(a: Any, b: Any, metric: str) -> Interval3 | None:
    """(mean(a) / mean(b) - 1) in percent, with its 95% bootstrap CI."""
    return pair_ratio_pct(a.cell.name, _values(a, metric), b.cell.name, _values(b, metric), metric)


def fmt_interval(value: Interval3, fmt: str) -> str:
    """"+0.123 s (95% CI +0.100 s ... +0.150 s)"; without a CI, says so."""
    est, lo, hi = value
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{fmt.format(est)} (no CI: too few invocations)"
    return f"{fmt.format(est)} ({sentence_ci(fmt.format(lo), fmt.format(hi))})"


def clearly(value: Interval3) -> bool:
    """The interval excludes zero."""
    return math.isfinite(value[1]) and math.isfinite(value[2]) and (value[1] > 0 or value[2] < 0)


def pair_n(a: Any, b: Any, metric: str) -> int:
    """Invocations behind a pair's interval: the smaller cell's count of values."""
    return min(_values(a, metric).values.size, _values(b, metric).values.size)
