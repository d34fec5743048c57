"""Typed records of the statistics layer.

Every function in :mod:`jvmlab.analyze` takes **one value per JVM invocation** (the caller
reduces in-process iterations, GC events or /proc samples to a per-invocation value first):
invocations are the independent replicates, iterations inside one JVM are not (they share
JIT decisions, heap layout and address-space randomisation), so treating them as
replicates would make every interval far too narrow.

A quantity that could not be computed (too few values, a zero baseline mean) is ``None``,
never 0, following the project's rule for unmeasured values.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt

Interval = tuple[float, float]
Correction = Literal["holm", "bh"]


class _JsonRecord:
    """``to_json`` of a frozen record: its fields, tuples as lists so ``json.dumps`` output is stable."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


@dataclass(frozen=True, eq=False)
class CellData:
    """The per-invocation values of one metric in one cell of the matrix.

    ``blocks`` (optional, parallel to ``values``) holds the block (round) id of each
    invocation: the scheduler runs every cell once per block, so values of different cells
    in the same block were measured close in time and share that moment's machine state.
    Block ids must be orderable (integers in run order) for the drift test.
    Non-finite values (NaN: the metric was missing for that invocation) are dropped and
    counted by the analysis, never treated as 0.
    """

    values: npt.NDArray[np.float64]
    blocks: npt.NDArray[np.int64] | None = None

    @classmethod
    def of(cls, values: Any, blocks: Any = None) -> CellData:
        """Coerce lists (``None`` entries become NaN) into a ``CellData``."""
        vals = np.array([np.nan if v is None else v for v in np.ravel(values)], dtype=float)
        blk = None if blocks is None else np.asarray(blocks, dtype=np.int64).ravel()
        if blk is not None and blk.shape != vals.shape:
            raise ValueError(f"blocks has {blk.size} entries but values has {vals.size}")
        return cls(vals, blk)


@dataclass(frozen=True)
class CellStats:
    """Descriptive statistics of one cell (finite values only).

    ``mad`` is the raw median absolute deviation (multiply by 1.4826 for an estimate of the
    standard deviation under normality). ``n_dropped`` counts non-finite values left out.
    """

    cell: str
    n: int
    n_dropped: int
    mean: float | None
    sd: float | None
    cv: float | None  # sd / mean, None when the mean is 0 or n < 2
    median: float | None
    mad: float | None
    min: float | None
    max: float | None
    mean_ci95: Interval | None
    median_ci95: Interval | None
    # How each interval was made (jvmlab.analyze.smallsample): "bca", "t" (n >= 30, secondary
    # metrics), "t-small-n" (marked: too few values for the bootstrap), "bca-heavy-tail" (marked:
    # a value far out, jvmlab.analyze.tails), "order-statistic".
    mean_ci_kind: str | None = None
    median_ci_kind: str | None = None


@dataclass(frozen=True)
class Comparison(_JsonRecord):
    """One cell against the baseline on one metric.

    ``ratio`` is mean(cell) / mean(baseline); ``ci95`` its bootstrap interval; ``p_value``
    comes from a permutation test of the same statistic, ``p_adjusted`` after the
    correction across all comparisons of the analysis; ``significant`` is
    ``p_adjusted < alpha``. ``paired`` says the values were paired by block.
    """

    cell: str
    baseline: str
    metric: str
    ratio: float | None
    ci95: Interval | None
    rel_diff_pct: float | None
    p_value: float | None
    p_adjusted: float | None
    significant: bool
    n_cell: int
    n_baseline: int
    paired: bool
    # "test-inversion" (paired: the inverted sign-flip test), "bca" (unpaired), or "t-small-n"
    # (marked) below RATIO_BCA_FROM_N per cell
    ci_kind: str | None = None
    # (run-queue delay per invocation before, after) when the two sides of a comparison across runs
    # ran under different contention (analyze.interference.machine_changed): no call either way
    machine_changed_s: tuple[float, float] | None = None
    # the between-run spread (log sd per run, analyze.interference.between_runs) when it is what left
    # a comparison across runs uncalled (significant within the runs, not with that spread added)
    between_run_sd: float | None = None


@dataclass(frozen=True)
class Effect(_JsonRecord):
    """A factorial effect, as a ratio of means on the log scale.

    ``kind == "main"``: ``level`` of ``factor`` against its ``reference`` level, the
    geometric mean over the combinations of the other factors. ``kind == "interaction"``:
    the ratio of ratios (effect of ``level`` vs ``reference`` when ``factor2`` is at
    ``level2``, divided by the same effect when ``factor2`` is at ``reference2``);
    1.0 means the two settings act independently.
    """

    factor: str
    level: str
    reference: str
    ratio: float | None
    ci95: Interval | None
    kind: Literal["main", "interaction"]
    factor2: str | None = None
    level2: str | None = None
    reference2: str | None = None
    n_combinations: int = 0  # combinations of the other factors averaged over
    ci_kind: str | None = None  # "percentile", or "percentile-small-n" (marked: coverage not verified)


@dataclass(frozen=True)
class DriftResult(_JsonRecord):
    """Monotonic trend across blocks of one cell (Spearman on block medians).

    ``slope_rel_per_block`` is the Theil-Sen slope of the block medians divided by the
    cell median: 0.01 means the metric grows by about 1% per block.
    """

    cell: str
    n_blocks: int
    rho: float | None
    p_value: float | None
    slope_rel_per_block: float | None


@dataclass(frozen=True)
class MetricAnalysis:
    """Everything :func:`jvmlab.analyze.analyze_metric` found for one metric."""

    metric: str
    baseline: str | None
    alpha: float
    correction: Correction
    stats: dict[str, CellStats]
    comparisons: tuple[Comparison, ...]
    effects: tuple[Effect, ...]
    drift: dict[str, DriftResult]
    outliers: dict[str, tuple[int, ...]]  # indices into the caller's values array
    notes: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True, eq=False)
class Clean:
    """The finite values of a cell, their blocks and their positions in the caller's array."""

    values: npt.NDArray[np.float64]
    blocks: npt.NDArray[np.int64] | None
    index: npt.NDArray[np.int64]
    n_dropped: int


def clean(data: CellData) -> Clean:
    """Drop non-finite values (counted, never replaced by 0), keeping original positions."""
    keep = np.isfinite(data.values)
    index = np.flatnonzero(keep)
    blocks = None if data.blocks is None else data.blocks[keep]
    return Clean(data.values[keep], blocks, index, int(data.values.size - index.size))
