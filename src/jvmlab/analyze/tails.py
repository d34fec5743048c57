"""Heavy tails in one cell: when a bootstrap interval of the mean must be marked.

A bootstrap interval of a mean can only resample the spikes the sample happened to hold:
with infinite-variance noise (Student t with 1.5 degrees of freedom) or rare 3x slow
invocations (a full GC, a deoptimisation storm) the BCa interval of the mean covered the
true mean only 84-90% (t1.5) and 48-80% (spikes) of the time at 15-30 invocations in the
seeded simulation
(``bench/heavy_tails.py``, docs/statistics.md). A cell is called heavy-tailed when a value
lies more than ``HEAVY_TAIL_ROBUST_SDS`` robust standard deviations from the median, the
robust SD being 1.4826 x the median absolute deviation (Hampel 1974, "The influence curve
and its role in robust estimation", JASA 69:383): a normal sample of a million values
stays within about 5 such SDs, so 12 is never reached by chance on well-behaved data,
while one 3x spike over 5% noise lies about 40 away. Its BCa interval is then marked
``bca-heavy-tail``, and the report says why (:mod:`jvmlab.report.trust`).

A cell whose MAD is 0 (most values identical, e.g. a count of full GCs) gets no judgement:
there is no robust scale to measure "far" with.
"""

from __future__ import annotations

import numpy as np

HEAVY_TAIL_ROBUST_SDS = 12.0
MAD_TO_SD = 1.4826  # MAD -> SD under normality
BCA_HEAVY_TAIL = "bca-heavy-tail"  # CellStats.mean_ci_kind of a marked BCa interval


def farthest_robust_sds(x: np.ndarray) -> float | None:
    """How many robust SDs the value farthest from the median lies from it (None: n < 3 or MAD 0)."""
    if x.size < 3:
        return None
    median = float(np.median(x))
    mad = float(np.median(np.abs(x - median)))
    if mad <= 0 or not np.isfinite(mad):
        return None
    return float(np.max(np.abs(x - median))) / (MAD_TO_SD * mad)


def heavy_tailed(x: np.ndarray, limit: float = HEAVY_TAIL_ROBUST_SDS) -> bool:
    """A value more than ``limit`` robust SDs from the median."""
    far = farthest_robust_sds(x)
    return far is not None and far > limit
