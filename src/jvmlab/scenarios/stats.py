"""Pairs of cells for the scenario verdicts, with the statistics of :mod:`jvmlab.analyze`.

Comparisons in a Summary are against one baseline cell; a scenario verdict needs other
pairs (pre-touch on vs off at each heap). Each pair goes through the results layer
(:func:`jvmlab.results.pair_difference` / :func:`jvmlab.results.pair_ratio_pct`): the same
bootstrap as the report's comparisons, paired by block when the cells share blocks.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from jvmlab.analyze.model import Clean, clean
from jvmlab.report.notation import sentence_ci
from jvmlab.results import cell_values, pair_difference, pair_ratio_pct
from jvmlab.results.compare import Interval3

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary

__all__ = ["Interval3", "cell_n", "clearly", "diff_ci", "fmt_interval", "index_cells", "key_with", "mean_ci",
           "not_estimable", "pair_n", "ratio_pct"]
CellKey = tuple[tuple[str, str], ...]


def index_cells(summary: Summary) -> dict[CellKey, Any]:
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


def cell_n(cell: Any, metric: str) -> int:
    """Invocations behind a cell's mean of ``metric`` (0 when it has none)."""
    st = cell.stats.get(metric)
    return int(st.n) if st is not None else 0


def _values(cell: Any, metric: str) -> Clean:
    return clean(cell_values(cell.ok_invocations, metric))


def diff_ci(a: Any, b: Any, metric: str, scale: float = 1.0) -> Interval3 | None:
    """mean(a) - mean(b), times ``scale``, with its 95% bootstrap CI."""
    return pair_difference(a.cell.name, _values(a, metric), b.cell.name, _values(b, metric), metric, scale)


def ratio_pct(a: Any, b: Any, metric: str) -> Interval3 | None:
    """(mean(a) / mean(b) - 1) in percent, with its 95% bootstrap CI."""
    return pair_ratio_pct(a.cell.name, _values(a, metric), b.cell.name, _values(b, metric), metric)


def not_estimable(n: int) -> str:
    """Why an estimate has no interval: "not estimable at n=2" (0: the count is not known)."""
    return f"not estimable at n={n}" if n > 0 else "not estimable: too few invocations"


def fmt_interval(value: Interval3, fmt: str, n: int = 0) -> str:
    """"+0.123 s (95% CI +0.100 s ... +0.150 s)"; without a CI, "+0.123 s (not estimable at n=2)"."""
    est, lo, hi = value
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{fmt.format(est)} ({not_estimable(n)})"
    return f"{fmt.format(est)} ({sentence_ci(fmt.format(lo), fmt.format(hi))})"


def clearly(value: Interval3) -> bool:
    """The interval excludes zero."""
    return math.isfinite(value[1]) and math.isfinite(value[2]) and (value[1] > 0 or value[2] < 0)


def pair_n(a: Any, b: Any, metric: str) -> int:
    """Invocations behind a pair's interval: the smaller cell's count of values."""
    return min(_values(a, metric).values.size, _values(b, metric).values.size)
