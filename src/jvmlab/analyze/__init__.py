"""Statistics over per-invocation values: pure functions of numbers, no I/O, no wording.

Start with :func:`analyze_metric`; the stopping rule is in :mod:`.stopping`. Methods and
their justification: docs/statistics.md.
"""

from jvmlab.analyze.model import (
    CellData,
    CellStats,
    Comparison,
    DriftResult,
    Effect,
    MetricAnalysis,
)
from jvmlab.analyze.pipeline import analyze_metric
from jvmlab.analyze.stopping import (
    half_width_rel,
    invocations_needed,
    invocations_remaining,
    precision_reached,
)

__all__ = [
    "CellData", "CellStats", "Comparison", "DriftResult", "Effect", "MetricAnalysis",
    "analyze_metric", "half_width_rel", "invocations_needed", "invocations_remaining",
    "precision_reached",
]
