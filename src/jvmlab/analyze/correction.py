"""Multiple-comparison correction across all comparisons of one analysis.

Default: Holm (1979, "A simple sequentially rejective multiple test procedure", Scand. J.
Statist. 6:65). It controls the family-wise error rate (the chance that *any* "real
difference" claim is wrong) under any dependence between the tests; ours are dependent
because every comparison shares the baseline. A matrix has few cells, so its power cost
against Benjamini-Hochberg is small, and a tuning decision is usually made on the single
best-looking cell, which is exactly where FDR control is weakest.

Option: Benjamini-Hochberg (1995, JRSS B 57:289), false discovery rate control; valid for
the positively dependent tests that a shared baseline produces (Benjamini & Yekutieli
2001). Better for large exploratory sweeps.

Comparisons without a p-value (too little data) are left out of the family.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from jvmlab.analyze.model import Comparison, Correction
from jvmlab.errors import UserError, did_you_mean


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values (monotone, capped at 1)."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted.tolist()


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg step-up adjusted p-values (q-values), capped at 1."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted.tolist()


def adjust(comparisons: Sequence[Comparison], alpha: float = 0.05,
           method: Correction = "holm") -> tuple[Comparison, ...]:
    """Fill ``p_adjusted`` and ``significant`` across the family of comparisons."""
    if method not in ("holm", "bh"):
        raise UserError(f"unknown correction {method!r}{did_you_mean(method, ('holm', 'bh'))}; "
                        f"use 'holm' (family-wise) or 'bh' (false discovery rate)")
    tested = [i for i, c in enumerate(comparisons) if c.p_value is not None]
    raw = [float(comparisons[i].p_value or 0.0) for i in tested]
    fn = holm if method == "holm" else benjamini_hochberg
    adjusted = dict(zip(tested, fn(raw) if raw else [], strict=True))
    out = []
    for i, c in enumerate(comparisons):
        p_adj = adjusted.get(i)
        out.append(replace(c, p_adjusted=p_adj, significant=p_adj is not None and p_adj < alpha))
    return tuple(out)
