"""Warm-up analysis of one invocation's throughput series (pure: numbers in, result out).

After Barrett et al., "Virtual Machine Warmup Blows Hot and Cold" (OOPSLA 2017), adapted
to throughput (higher is better) measured in time windows instead of iteration times:

1. The first ``skip_points`` windows (JVM start-up) and the last ``skip_last_points``
   (shutdown, a cut-off last window) are excluded; fewer than ``min_points`` windows
   left -> "unclassified".
2. Changepoints are found with PELT (ruptures, ``l2`` cost) on the series divided by a
   robust noise estimate: sigma = 1.4826 * MAD of successive differences / sqrt 2 (a few
   level shifts do not inflate it), but at least ``min_noise_rel`` (2 %) of the median
   rate, because window rates carry timing jitter whose tails the MAD does not see (a
   line printed late makes one window low and the next high). Changepoints are searched
   in the series after a running median of ``median_window`` (5) windows, which removes
   such blips of one or two windows and keeps real steps where they are (the paper
   removes outliers before its changepoint analysis too); segment means are of the raw
   rates, where a late line's units still count. The penalty is ``penalty_factor * log(n)`` with
   ``penalty_factor = 15`` as in the paper, so on noise-normalised data a shift must be
   several sigmas, over several windows, to count. Segments have at least 3 windows
   (``median_window // 2 + 1``).
3. Two segments are *equivalent* when their means differ by at most
   ``max(rel_tolerance * |last mean|, 3 * sigma * sqrt(1/n_a + 1/n_b))`` (the paper's
   equivalence of segments within their variation); adjacent equivalent segments merge.
4. Classes: **flat** - no changepoint left, or every earlier segment equivalent to the
   last; **no steady state** - the last segment covers less than ``min_last_share`` of the
   analysed windows (the paper: a changepoint in the last 500 of 2000 iterations), or more
   than ``max_changepoints`` changes remain; **warmup** - the last segment is faster than
   every earlier non-equivalent segment; **slowdown** - some earlier non-equivalent
   segment was faster than the last.

The steady state is the last segment (not for "no steady state"): its mean is the steady
rate and its start the time to steady state (seconds since the process started).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.ndimage import median_filter

FLAT = "flat"
WARMUP = "warmup"
SLOWDOWN = "slowdown"
NO_STEADY_STATE = "no steady state"
UNCLASSIFIED = "unclassified"


@dataclass(frozen=True)
class WarmupParams:
    """Tuning of the analysis; the defaults are documented in docs/collectors.md."""

    skip_points: int = 1
    skip_last_points: int = 1
    min_noise_rel: float = 0.02
    median_window: int = 5
    min_points: int = 6
    penalty_factor: float = 15.0
    rel_tolerance: float = 0.05
    min_last_share: float = 0.25
    max_changepoints: int = 6


@dataclass(frozen=True)
class Segment:
    """A run of windows with one mean rate; ``end_s`` is where the next segment starts."""

    start_s: float
    end_s: float
    windows: int
    mean_rate: float


@dataclass(frozen=True)
class WarmupResult:
    klass: str
    reason: str
    changepoints_s: tuple[float, ...]
    segments: tuple[Segment, ...]
    steady_rate: float | None
    warmup_s: float | None
    noise_sd: float | None


def noise_sd(values: np.ndarray) -> float:
    """Robust noise estimate from successive differences (level shifts barely move it)."""
    if len(values) < 3:
        return float(np.std(values))
    diffs = np.abs(np.diff(values))
    return float(1.4826 * np.median(diffs) / math.sqrt(2))


def changepoints(values: np.ndarray, sigma: float, penalty_factor: float, min_size: int = 2) -> list[int]:
    """Indices where a new segment starts (PELT, l2 cost, on values / sigma)."""
    import ruptures

    n = len(values)
    floor = 1e-9 * max(1.0, float(np.median(np.abs(values))))
    z = (values - np.median(values)) / max(sigma, floor)
    ends = ruptures.Pelt(model="l2", min_size=min_size, jump=1).fit(z.reshape(-1, 1)).predict(
        pen=penalty_factor * math.log(max(n, 2)))
    return [int(e) for e in ends[:-1]]


def analyze_warmup(t_s: list[float] | tuple[float, ...], rates: list[float] | tuple[float, ...],
                   params: WarmupParams = WarmupParams()) -> WarmupResult:
    """Classify one series of (window start time, rate) pairs; see the module docstring."""
    end = len(rates) - params.skip_last_points
    times = np.asarray(t_s, dtype=float)[params.skip_points:end]
    values = np.asarray(rates, dtype=float)[params.skip_points:end]
    if len(values) < max(params.min_points, 4):
        return WarmupResult(UNCLASSIFIED, f"{len(values)} windows after skipping the first "
                            f"{params.skip_points} and the last {params.skip_last_points}; need "
                            f"{params.min_points}", (), (), None, None, None)
    sigma = max(noise_sd(values), params.min_noise_rel * abs(float(np.median(values))))
    step = float(np.median(np.diff(times))) if len(times) > 1 else 0.0
    smooth = median_filter(values, size=max(1, params.median_window), mode="nearest")
    min_size = max(2, params.median_window // 2 + 1)  # shorter runs are what the median removes
    bounds = [0, *changepoints(smooth, sigma, params.penalty_factor, min_size), len(values)]
    parts = _merge(list(itertools.pairwise(bounds)), values, sigma, params.rel_tolerance)
    segments = tuple(Segment(float(times[a]), float(times[b]) if b < len(times) else float(times[-1] + step),
                             b - a, float(values[a:b].mean())) for a, b in parts)
    cps = tuple(s.start_s for s in segments[1:])
    last = segments[-1]

    def result(klass: str, reason: str, steady: bool = True) -> WarmupResult:
        return WarmupResult(klass, reason, cps, segments, last.mean_rate if steady else None,
                            last.start_s if steady else None, sigma)

    if len(segments) == 1:
        return result(FLAT, "no changepoint")
    if len(cps) > params.max_changepoints:
        return result(NO_STEADY_STATE, f"{len(cps)} changepoints (more than {params.max_changepoints})", False)
    if last.windows < params.min_last_share * len(values):
        return result(NO_STEADY_STATE, f"the last segment spans {last.windows} of {len(values)} windows "
                      f"(less than {params.min_last_share:.0%})", False)
    others = [s for s in segments[:-1] if not _equivalent(s, last, sigma, params.rel_tolerance)]
    if not others:
        return result(FLAT, "every segment is equivalent to the last")
    if all(s.mean_rate < last.mean_rate for s in others):
        return result(WARMUP, "the last segment is faster than every earlier one")
    return result(SLOWDOWN, "an earlier segment was faster than the last")


def _equivalent(a: Segment, b: Segment, sigma: float, rel_tolerance: float) -> bool:
    return _close(a.mean_rate, a.windows, b.mean_rate, b.windows, sigma, rel_tolerance)


def _close(mean_a: float, n_a: int, mean_b: float, n_b: int, sigma: float, rel_tolerance: float) -> bool:
    allowed = max(rel_tolerance * abs(mean_b), 3.0 * sigma * math.sqrt(1 / n_a + 1 / n_b))
    return abs(mean_a - mean_b) <= allowed


def _merge(parts: list[tuple[int, int]], values: np.ndarray, sigma: float,
           rel_tolerance: float) -> list[tuple[int, int]]:
    """Join adjacent equivalent segments, left to right (bounded by the number of parts)."""
    merged = [parts[0]]
    for a, b in parts[1:]:
        pa, pb = merged[-1]
        if _close(float(values[pa:pb].mean()), pb - pa, float(values[a:b].mean()), b - a,
                  sigma, rel_tolerance):
            merged[-1] = (pa, b)
        else:
            merged.append((a, b))
    return merged
