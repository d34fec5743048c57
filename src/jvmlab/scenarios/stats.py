"""Pairs of cells for the scenario verdicts, with the statistics of :mod:`jvmlab.analyze`.

Comparisons in a Summary are against one baseline cell; a scenario verdict needs other
pairs (pre-touch on vs off at each heap). Each pair gets the same bootstrap as the
report's comparisons (paired by block when the cells share blocks): a BCa interval of the
difference of means (:func:`jvmlab.analyze.difference.mean_difference`) or of the ratio of
means (:func:`jvmlab.analyze.compare.ratio_paired` / ``ratio_unpaired``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.compare import block_sums, ratio_paired, ratio_unpaired
from jvmlab.analyze.difference import mean_difference
from jvmlab.analyze.model import Clean, clean
from jvmlab.analyze.stored import load_values

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


def _values(cell: Any, metric: str) -> Clean:
    return clean(load_values(list(cell.ok_invocations), metric))


def _rng(a: Any, b: Any, metric: str, what: str) -> np.random.Generator:
    return rng_for(0, metric, a.cell.name, b.cell.name, what)


def diff_ci(a: Any, b: Any, metric: str, scale: float = 1.0) -> Interval3 | None:
    """mean(a) - mean(b), times ``scale``, with its 95% bootstrap CI."""
    d, ci = mean_difference(_values(a, metric), _values(b, metric), _rng(a, b, metric, "diff"))
    if d is None:
        return None
    lo, hi = ci if ci is not None else (math.nan, math.nan)
    low, high = sorted((lo * scale, hi * scale))
    return d * scale, low, high


def ratio_pct(a: Any, b: Any, metric: str) -> Interval3 | None:
    """(mean(a) / mean(b) - 1) in percent, with its 95% bootstrap CI."""
    va, vb = _values(a, metric), _values(b, metric)
    sums = block_sums(va, vb)
    rng = _rng(a, b, metric, "ratio")
    r, ci = ratio_paired(sums, rng) if sums is not None else ratio_unpaired(va.values, vb.values, rng)
    if r is None:
        return None
    lo, hi = ci if ci is not None else (math.nan, math.nan)
    return (r - 1) * 100, (lo - 1) * 100, (hi - 1) * 100


def fmt_interval(value: Interval3, fmt: str) -> str:
    """"+0.123 s (95% CI +0.100 s ... +0.150 s)"; without a CI, says so."""
    est, lo, hi = value
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{fmt.format(est)} (no CI: too few invocations)"
    return f"{fmt.format(est)} (95% CI {fmt.format(lo)} ... {fmt.format(hi)})"


def clearly(value: Interval3) -> bool:
    """The interval excludes zero."""
    return math.isfinite(value[1]) and math.isfinite(value[2]) and (value[1] > 0 or value[2] < 0)


def pair_n(a: Any, b: Any, metric: str) -> int:
    """Invocations behind a pair's interval: the smaller cell's count of values."""
    return min(_values(a, metric).values.size, _values(b, metric).values.size)
