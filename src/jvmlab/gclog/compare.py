"""Compare two sets of GC logs metric by metric (`jvmlab gc compare`), the pure part.

Each side is a set of logs, one per JVM run (before/after a flag change, two JDKs, two
experiments' cells). A log is one observation: the per-log figures (pause total, p99,
throughput, stalls, ...) are compared as the ratio of the means B/A with a BCa bootstrap
interval that resamples the logs of each side independently (``jvmlab.analyze``'s
``ratio_unpaired``); below ``RATIO_BCA_FROM_N`` logs on a side, where the bootstrap
under-covers, the Welch t interval of the log ratio instead (``ci_method`` names which). A
verdict is given only when the interval excludes 1; with one log on a side there is no
interval, and the verdict says so instead of guessing. With the t interval (2-3 logs a
side) a direction is called only when the two sets do not overlap either: the interval
then rests on a normal model that 3 values cannot check, and an exact permutation test of
3 against 3 cannot reach 5% at all (its smallest p is 0.1), so overlapping sets are
``inconclusive``.

Works on summary JSON documents (``LogSummary.to_json()``, or the ``GcDocument.summary``
experiments stored for each invocation, where older documents may lack newer keys).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from jvmlab import metrics as registry
from jvmlab.analyze.bootstrap import DEFAULT_RESAMPLES, rng_for
from jvmlab.analyze.compare import ratio_unpaired
from jvmlab.analyze.smallsample import RATIO_BCA_FROM_N

Doc = dict[str, Any]

BETTER = "better"
WORSE = "worse"
SAME = "no difference"
HIGHER = "higher"
LOWER = "lower"
NO_CI = "no CI"
INCONCLUSIVE = "inconclusive"
CI_BCA = "BCa bootstrap"
CI_T = "t interval of the log ratio"
MISSING = "not in logs"


def _get(*path: str) -> Callable[[Doc], float | None]:
    def read(doc: Doc) -> float | None:
        cur: Any = doc
        for key in path:
            if not isinstance(cur, dict):
                return None
            cur = cur.get(key)
        return float(cur) if isinstance(cur, int | float) and not isinstance(cur, bool) else None
    return read


def _held(doc: Doc) -> float | None:
    parts = [_get("pauses", "total_ms")(doc), _get("stalls", "total_ms")(doc),
             _get("relocation_stalls", "total_ms")(doc), _get("pacing", "total_ms")(doc)]
    return None if parts[0] is None else sum(p or 0.0 for p in parts)


@dataclass(frozen=True)
class GcMetric:
    """One compared figure: how to read it from a summary, and which direction is better."""

    key: str
    label: str
    unit: str
    better: str | None  # "lower", "higher", or None when neither is better (a workload property)
    read: Callable[[Doc], float | None]


def _metric(key: str, read: Callable[[Doc], float | None]) -> GcMetric:
    """A compared figure whose label, unit and direction are the metric registry's ``gc.<key>``."""
    m = registry.get(f"gc.{key}")
    return GcMetric(key, m.title, m.unit, None if m.neutral else LOWER if m.lower_is_better else HIGHER, read)


METRICS: tuple[GcMetric, ...] = (
    _metric("pause_count", _get("pauses", "count")),
    _metric("pause_total_ms", _get("pauses", "total_ms")),
    _metric("pause_mean_ms", _get("pauses", "mean_ms")),
    _metric("pause_p50_ms", _get("pauses", "p50_ms")),
    _metric("pause_p99_ms", _get("pauses", "p99_ms")),
    _metric("pause_max_ms", _get("pauses", "max_ms")),
    _metric("full_count", _get("pauses", "by_kind", "full", "count")),
    _metric("degenerated_count", _get("pauses", "by_kind", "degenerated", "count")),
    _metric("stall_total_ms", _get("stalls", "total_ms")),
    _metric("relocation_stall_total_ms", _get("relocation_stalls", "total_ms")),
    _metric("pacing_total_ms", _get("pacing", "total_ms")),
    _metric("held_total_ms", _held),
    _metric("throughput_pct", _get("throughput_pct")),
    _metric("concurrent_cycles", _get("concurrent_cycles", "count")),
    _metric("concurrent_total_ms", _get("concurrent_cycles", "total_ms")),
    _metric("heap_after_gc_max_mb", _get("heap_after_gc_mb", "max")),
    _metric("alloc_rate_mb_s", _get("alloc_rate_mb_s")),
    _metric("span_s", _get("span_s")),
)


@dataclass(frozen=True)
class MetricComparison:
    """B relative to A for one metric: ratio of means with its interval, and the verdict."""

    metric: str
    label: str
    unit: str
    n_a: int
    n_b: int
    mean_a: float | None
    mean_b: float | None
    ratio: float | None  # mean(B) / mean(A)
    ci: tuple[float, float] | None
    verdict: str
    reason: str | None
    ci_method: str | None = None  # CI_BCA, CI_T, or None without an interval

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["ci"] = None if self.ci is None else list(self.ci)
        return out


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(a.size and b.size and a.min() <= b.max() and b.min() <= a.max())


def _no_interval(n_a: int, n_b: int, spread: tuple[bool, bool], mean_b: float | None) -> str:
    """Why a ratio has no interval: one log on a side, or a side that is 0 in every log (the log
    ratio's t interval and the bootstrap of a ratio to 0 have nothing to work with)."""
    if min(n_a, n_b) < 2:
        return "one log on a side: pass 2+ logs per side (one per JVM run) for an interval"
    if mean_b == 0:
        return f"0 in every log of B ({n_b} logs): no interval of a ratio to 0; B has none of it"
    if not any(spread):
        return "every log of each side has the same figure: no spread to draw an interval from"
    return "no interval could be drawn from these logs"


def _verdict(m: GcMetric, ratio: float | None, ci: tuple[float, float] | None, n_a: int, n_b: int,
             mean_a: float | None, mean_b: float | None, overlap: bool = False,
             spread: tuple[bool, bool] = (True, True)) -> tuple[str, str | None]:
    """``spread``: whether the logs of A, of B, differ at all on this figure."""
    if not n_a or not n_b:
        side = "A" if not n_a else "B"
        return MISSING, f"no log of set {side} has this figure"
    if ratio is None:
        if mean_a == 0 and mean_b == 0:
            return SAME, "0 on both sides"
        return NO_CI, f"0 in every log of A ({n_a} logs): no ratio" if mean_a == 0 else "no ratio"
    if ci is None:
        return NO_CI, _no_interval(n_a, n_b, spread, mean_b)
    if ci[0] <= 1.0 <= ci[1]:
        return SAME, None
    if ci[0] == ci[1] and not any(spread):  # no spread: a width of 0 says nothing of the noise
        return INCONCLUSIVE, ("every log of each side has the same figure (as the logs round it): an "
                              "interval of width 0 cannot tell a real difference from rounding; add logs "
                              "or compare a finer figure")
    if overlap and min(n_a, n_b) < RATIO_BCA_FROM_N:
        return INCONCLUSIVE, (f"the sets overlap: with under {RATIO_BCA_FROM_N} logs a side the t interval "
                              f"alone does not decide; add logs")
    up = ci[0] > 1.0
    if m.better is None:
        return (HIGHER if up else LOWER), None
    good = (m.better == "higher") == up
    return (BETTER if good else WORSE), None


def compare_metric(m: GcMetric, docs_a: Sequence[Doc], docs_b: Sequence[Doc], seed: int,
                   n_boot: int = DEFAULT_RESAMPLES) -> MetricComparison:
    a = np.asarray([v for v in (m.read(d) for d in docs_a) if v is not None], dtype=float)
    b = np.asarray([v for v in (m.read(d) for d in docs_b) if v is not None], dtype=float)
    mean_a = float(a.mean()) if a.size else None
    mean_b = float(b.mean()) if b.size else None
    ratio, ci = ratio_unpaired(b, a, rng_for(seed, "gc-compare", m.key), n_boot) if a.size and b.size else (None, None)
    spread = (bool(a.size and a.min() != a.max()), bool(b.size and b.min() != b.max()))
    verdict, reason = _verdict(m, ratio, ci, int(a.size), int(b.size), mean_a, mean_b, _overlap(a, b), spread)
    method = None if ci is None else CI_T if min(a.size, b.size) < RATIO_BCA_FROM_N else CI_BCA
    return MetricComparison(m.key, m.label, m.unit, int(a.size), int(b.size), mean_a, mean_b, ratio,
                            None if ci is None else (float(ci[0]), float(ci[1])), verdict, reason, method)


def interval_note(comparisons: Sequence[MetricComparison]) -> str:
    """Which intervals the comparisons carry, in words (the table's header says only "95% CI")."""
    methods = sorted({c.ci_method for c in comparisons if c.ci_method})
    if not methods:
        return "no intervals: one log on a side"
    words = {CI_BCA: "BCa bootstrap over logs", CI_T: f"Welch t interval of the log ratio "
                                                     f"(under {RATIO_BCA_FROM_N} logs a side)"}
    return "95% intervals: " + "; ".join(words[m] for m in methods)


def compare_sets(docs_a: Sequence[Doc], docs_b: Sequence[Doc], seed: int = 1,
                 n_boot: int = DEFAULT_RESAMPLES) -> list[MetricComparison]:
    """Every metric of METRICS that at least one side has, B relative to A."""
    out = []
    for m in METRICS:
        c = compare_metric(m, docs_a, docs_b, seed, n_boot)
        if c.n_a or c.n_b:
            out.append(c)
    return out
