"""Small arithmetic on a Summary's cell statistics for the scenario verdicts.

Comparisons in a Summary are against one baseline cell; a scenario verdict needs other
pairs (pre-touch on vs off at each heap). A difference of two independent cells' means gets
a 95% interval from their own 95% CIs combined in quadrature (normal approximation); the
verdicts say "95% CI" for these as for the bootstrap ones.
"""

from __future__ import annotations

import math
from typing import Any

Interval3 = tuple[float, float, float]  # estimate, low, high
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


def _half(ci: Interval3) -> float:
    return (ci[2] - ci[1]) / 2.0 if math.isfinite(ci[1]) and math.isfinite(ci[2]) else math.nan


def diff_ci(a: Any, b: Any, metric: str, scale: float = 1.0) -> Interval3 | None:
    """mean(a) - mean(b), times ``scale``, with an approximate 95% CI."""
    ma, mb = mean_ci(a, metric), mean_ci(b, metric)
    if ma is None or mb is None:
        return None
    d = (ma[0] - mb[0]) * scale
    h = math.hypot(_half(ma), _half(mb)) * abs(scale)
    return d, d - h, d + h


def ratio_pct(a: Any, b: Any, metric: str) -> Interval3 | None:
    """(mean(a) / mean(b) - 1) in percent, with an approximate 95% CI (delta method)."""
    ma, mb = mean_ci(a, metric), mean_ci(b, metric)
    if ma is None or mb is None or mb[0] == 0 or ma[0] == 0:
        return None
    r = ma[0] / mb[0]
    rel = math.hypot(_half(ma) / ma[0], _half(mb) / mb[0])
    return (r - 1) * 100, (r * (1 - rel) - 1) * 100, (r * (1 + rel) - 1) * 100


def fmt_interval(value: Interval3, fmt: str) -> str:
    """"+0.123 s (95% CI +0.100 s ... +0.150 s)"; without a CI, says so."""
    est, lo, hi = value
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{fmt.format(est)} (no CI: too few invocations)"
    return f"{fmt.format(est)} (95% CI {fmt.format(lo)} ... {fmt.format(hi)})"


def clearly(value: Interval3) -> bool:
    """The interval excludes zero."""
    return math.isfinite(value[1]) and math.isfinite(value[2]) and (value[1] > 0 or value[2] < 0)
