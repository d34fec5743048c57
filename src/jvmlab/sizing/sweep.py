"""Heap sweeps: sizes as multiples of the minimum heap (or absolute), the sweep spec, the
curves per collector and the knee.

Multiples default to a geometric ladder from 1x to 4x (1, 1.26, 1.59, 2, 2.52, 3.17, 4):
equal ratios between steps, so the steps are finer where the curve bends, at small heaps.
The sweep is an ordinary spec with one more factor, ``heap``, whose levels fix the heap
(``-Xms`` = ``-Xmx``), run in randomized blocks like any other experiment.

The knee is the smallest heap whose mean is within ``within`` (default 5%) of the best
mean of that series (lowest time, or highest throughput for a higher-is-better metric).

A knee from noisy means at a few invocations per heap is itself noisy ("Serial needs 50%
less heap than G1 (108 vs 216 MiB)" came from overlapping intervals at n=3), so each knee
gets an interval: the same rule applied to ``KNEE_RESAMPLES`` bootstrap resamples of the
invocations at every heap (:meth:`Curve.knee_estimate`, a percentile interval over the
swept sizes). It is "not resolved" when a heap has fewer than ``MEAN_BCA_FROM_N`` (6)
invocations (below that a bootstrap of a mean sees too little spread and covers 50-85%,
:mod:`jvmlab.analyze.smallsample`; at 3 per heap a 20%-noise curve gave a confident "72-108
MiB") or the interval spans every size swept. Two series' knees are compared by the ratio of their knee heaps over
the same resamples (:func:`compare_knees`): a difference is "clear" only when its 95%
interval leaves out 1, so "needs 0% less heap" cannot be said.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jvmlab.analyze.bootstrap import mean_ci, resample_means, rng_for
from jvmlab.analyze.smallsample import MEAN_BCA_FROM_N
from jvmlab.errors import UserError, parse_option
from jvmlab.model.documents import HeapLevel
from jvmlab.sizing.probe import HEAP_FLAGS
from jvmlab.spec.durations import parse_size_bytes
from jvmlab.spec.model import Spec

KNEE_RESAMPLES = 2000
HEAP_FACTOR = "heap"
MB = 1 << 20


def geometric_multiples(low: float = 1.0, high: float = 4.0, count: int = 7) -> tuple[float, ...]:
    """``count`` multiples with equal ratios between neighbours (finer at small heaps)."""
    if count < 2 or not 0 < low < high:
        raise UserError("a sweep needs at least two multiples with 0 < low < high")
    return tuple(round(low * (high / low) ** (i / (count - 1)), 2) for i in range(count))


def parse_multiples(text: str) -> tuple[float, ...]:
    """"1,1.5,2,3" -> (1.0, 1.5, 2.0, 3.0); "1-4:7" -> a geometric ladder of 7."""
    m = re.fullmatch(r"\s*([\d.]+)\s*-\s*([\d.]+)\s*:\s*(\d+)\s*", text)
    try:
        if m:
            return geometric_multiples(float(m.group(1)), float(m.group(2)), int(m.group(3)))
        values = tuple(sorted({float(v) for v in text.split(",") if v.strip()}))
    except ValueError:
        values = ()
    if not values or any(v <= 0 for v in values):
        raise UserError(f"--multiples {text!r}: give positive numbers like 1,1.5,2,3 or a ladder like 1-4:7")
    return values


def levels_from_multiples(reference_bytes: int, multiples: Sequence[float]) -> list[HeapLevel]:
    """Heap sizes (rounded up to whole MiB) at each multiple of the reference minimum."""
    out: dict[int, HeapLevel] = {}
    for m in multiples:
        size = max(MB, math.ceil(reference_bytes * m / MB) * MB)
        out.setdefault(size, HeapLevel(f"x{m:g}", size, m))
    return sorted(out.values(), key=lambda level: level.heap_bytes)


def levels_from_sizes(sizes: Sequence[str]) -> list[HeapLevel]:
    """Absolute sizes ("256m", "1g"), each a level named after itself."""
    out: dict[int, HeapLevel] = {}
    for text in sizes:
        size = parse_option("--sizes", text, parse_size_bytes)
        out.setdefault(size, HeapLevel(f"h{size // MB}m", size, None))
    return sorted(out.values(), key=lambda level: level.heap_bytes)


def sweep_toml(spec: Spec, spec_text: str, levels: Sequence[HeapLevel], invocations: int | None = None) -> str:
    """The spec with a ``heap`` factor added (refused if the spec sizes the heap itself)."""
    if HEAP_FACTOR in spec.factors:
        raise UserError(f"the spec already has a factor named {HEAP_FACTOR!r}; the sweep adds it: rename yours")
    for factor, table in spec.factors.items():
        for level_name, value in table.items():
            sized = [f for f in value.flags if f.startswith(HEAP_FLAGS)]
            if sized:
                raise UserError(f"factor {factor!r} level {level_name!r} sets the heap ({' '.join(sized)}); the sweep "
                                f"sets it: remove those flags from the spec")
    lines = [spec_text.rstrip(), "", f"[factors.{HEAP_FACTOR}]"]
    for level in levels:
        k = level.heap_bytes // 1024
        lines.append(f'"{level.name}" = "-Xms{k}k -Xmx{k}k"')
    text = "\n".join(lines) + "\n"
    if invocations is not None:
        text = _with_invocations(text, invocations)
    return text


def _with_invocations(text: str, invocations: int) -> str:
    """Set [run] invocations (kept simple: the spec may not have a [run] table yet)."""
    if re.search(r"^\s*invocations\s*=", text, re.MULTILINE):
        return re.sub(r"^(\s*invocations\s*=\s*)\d+", rf"\g<1>{invocations}", text, count=1, flags=re.MULTILINE)
    if re.search(r"^\s*\[run\]\s*$", text, re.MULTILINE):
        return re.sub(r"^(\s*\[run\]\s*)$", rf"\1\ninvocations = {invocations}", text, count=1, flags=re.MULTILINE)
    return text + f"\n[run]\ninvocations = {invocations}\n"


@dataclass(frozen=True)
class CurvePoint:
    level: str
    heap_bytes: int
    multiple: float | None
    n: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class KneeEstimate:
    """A series' knee (the point estimate's level) with a 95% interval of knee heap sizes from
    the bootstrap over invocations; ``resolved`` False with ``reason`` when it says nothing."""

    point: CurvePoint | None
    low_bytes: int | None
    high_bytes: int | None
    resolved: bool
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"level": self.point.level if self.point else None, "low_bytes": self.low_bytes,
                "high_bytes": self.high_bytes, "resolved": self.resolved, "reason": self.reason}


@dataclass(frozen=True)
class KneeComparison:
    """Knee heap of series ``a`` over that of ``b``: the point ratio and its 95% bootstrap
    interval; ``clear`` when both knees are resolved and the interval leaves out 1."""

    ratio: float | None
    low: float | None
    high: float | None
    clear: bool


def _knee_index(means: np.ndarray, heaps: np.ndarray, lower_is_better: bool, within: float) -> np.ndarray:
    """Per column of ``means`` (levels x replicates, NaN = no value), the index of the knee:
    the smallest heap whose mean is within ``within`` of the column's best (-1: no value)."""
    finite = np.isfinite(means)
    if lower_is_better:
        best = np.where(finite, means, np.inf).min(axis=0)
        ok = finite & (means <= best * (1 + within))
    else:
        best = np.where(finite, means, -np.inf).max(axis=0)
        ok = finite & (means >= best * (1 - within))
    order = np.argsort(heaps, kind="stable")
    first = np.argmax(ok[order], axis=0)
    return np.where(ok.any(axis=0), order[first], -1)


@dataclass(frozen=True)
class Curve:
    """One series (a collector on a JDK, ...) of one metric against heap size. ``boot_means``
    (levels x ``KNEE_RESAMPLES``, NaN where a level has no value) are the level means of the
    bootstrap resamples of invocations that the knee's interval comes from."""

    series: str
    metric: str
    lower_is_better: bool
    points: tuple[CurvePoint, ...]
    boot_means: np.ndarray | None = field(default=None, compare=False, repr=False)

    def knee(self, within: float = 0.05) -> CurvePoint | None:
        """The smallest heap whose mean is within ``within`` of the best mean (None: no data)."""
        measured = [(p, p.mean) for p in self.points if p.mean is not None]
        if not measured:
            return None
        values = [mean for _, mean in measured]
        best = min(values) if self.lower_is_better else max(values)
        limit = best * (1 + within) if self.lower_is_better else best * (1 - within)
        for p, mean in sorted(measured, key=lambda pm: pm[0].heap_bytes):
            if (mean <= limit) if self.lower_is_better else (mean >= limit):
                return p
        return None

    def knee_draws(self, within: float = 0.05) -> np.ndarray | None:
        """The knee heap (bytes) in each bootstrap resample; None when a measured heap has
        fewer than ``MEAN_BCA_FROM_N`` invocations (too few to resample) or there are no resamples."""
        measured = [p for p in self.points if p.n > 0]
        if self.boot_means is None or not measured or any(p.n < MEAN_BCA_FROM_N for p in measured):
            return None
        heaps = np.array([p.heap_bytes for p in self.points], dtype=np.float64)
        idx = _knee_index(self.boot_means, heaps, self.lower_is_better, within)
        return np.where(idx >= 0, heaps[np.maximum(idx, 0)], np.nan)

    def knee_estimate(self, within: float = 0.05) -> KneeEstimate:
        """The knee with its 95% interval over the swept sizes, or "not resolved" and why."""
        point = self.knee(within)
        draws = self.knee_draws(within)
        if point is None:
            return KneeEstimate(None, None, None, False, "no heap size had a measurement")
        if draws is None:
            return KneeEstimate(point, None, None, False,
                                f"fewer than {MEAN_BCA_FROM_N} invocations at a heap size")
        lo, hi = (int(v) for v in np.nanquantile(draws, [0.025, 0.975], method="inverted_cdf"))
        sizes = [p.heap_bytes for p in self.points if p.n > 0]
        if len(sizes) > 1 and lo <= min(sizes) and hi >= max(sizes):
            return KneeEstimate(point, lo, hi, False, "its 95% interval spans every heap size swept")
        return KneeEstimate(point, lo, hi, True)


def compare_knees(a: Curve, b: Curve, within: float = 0.05) -> KneeComparison:
    """Knee heap of ``a`` / knee heap of ``b`` with a 95% percentile interval over the paired
    resample draws (independent resamples of independent invocations, aligned by index)."""
    ka, kb = a.knee(within), b.knee(within)
    ratio = ka.heap_bytes / kb.heap_bytes if ka is not None and kb is not None else None
    da, db = a.knee_draws(within), b.knee_draws(within)
    if ratio is None or da is None or db is None or da.size != db.size:
        return KneeComparison(ratio, None, None, False)
    lo, hi = (float(v) for v in np.nanquantile(da / db, [0.025, 0.975]))
    resolved = a.knee_estimate(within).resolved and b.knee_estimate(within).resolved
    return KneeComparison(ratio, lo, hi, resolved and not lo <= 1.0 <= hi)


def curve(series: str, metric: str, lower_is_better: bool, levels: Sequence[HeapLevel],
          values: Mapping[str, Sequence[float | None]], seed: int = 0) -> Curve:
    """Mean and 95% bootstrap CI of ``metric`` at each heap level (missing levels: n = 0),
    and ``KNEE_RESAMPLES`` resampled means per level for the knee's interval."""
    points = []
    boot = np.full((len(levels), KNEE_RESAMPLES), np.nan)
    for i, level in enumerate(levels):
        x = np.asarray([v for v in values.get(level.name, ()) if v is not None and math.isfinite(v)], dtype=np.float64)
        ci = mean_ci(x, rng_for(seed, metric, series, level.name)) if x.size >= 2 else None
        points.append(CurvePoint(level.name, level.heap_bytes, level.multiple, int(x.size),
                                 float(x.mean()) if x.size else None,
                                 ci[0] if ci else None, ci[1] if ci else None))
        if x.size:
            boot[i] = resample_means(x, rng_for(seed, metric, series, level.name, "knee"), KNEE_RESAMPLES)
    return Curve(series, metric, lower_is_better, tuple(points), boot)
