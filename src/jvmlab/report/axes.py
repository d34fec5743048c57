"""Axis ranges and tick labels for log axes that people can read.

Plotly's own log ticks over a short range label the minor ticks with one digit
("9 0.1 2 3" for 0.09 ... 0.3), which reads as nonsense. Here every tick gets its full
value ("0.09 0.1 0.2 0.3"), and the range is set from the data so that no interval end is
clipped by the plot's edge.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

MAX_TICKS = 9


def padded_log_range(values: Sequence[float | None], pad: float = 0.08) -> tuple[float, float]:
    """(log10 low, log10 high) holding every positive value, with ``pad`` of the span (at
    least a hair) added on each side so markers and interval ends stay inside the plot."""
    positive = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    if not positive:
        return -0.1, 0.1
    lo, hi = math.log10(min(positive)), math.log10(max(positive))
    margin = max((hi - lo) * pad, 0.004)
    return lo - margin, hi + margin


def _nice_step(span: float, target: int) -> float:
    """A step of 1, 2, 2.5 or 5 times a power of ten giving about ``target`` ticks."""
    raw = span / max(target, 1)
    power = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 2.5, 5, 10):
        if mult * power >= raw:
            return float(mult * power)
    return float(10 * power)


def _label(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step)) + (1 if round(step / 10 ** math.floor(math.log10(step)), 6)
                                                        == 2.5 else 0))
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def log_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    """Tick values and their full labels between ``low`` and ``high`` (both > 0).

    Within about one decade the ticks are evenly spaced nice numbers (0.9, 1, 1.1, ...);
    over several decades 1-2-5 per decade, thinned to powers of ten when too many."""
    if not (low > 0 and high > low):
        return [], []
    if high / low <= 12:
        step = _nice_step(high - low, 6)
        first = math.ceil(low / step - 1e-9)
        values = [round(k * step, 12) for k in range(first, math.floor(high / step + 1e-9) + 1)]
        values = [v for v in values if v > 0]
        return values, [_label(v, step) for v in values]
    values = []
    for exp in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for mult in (1, 2, 5):
            v = mult * 10.0 ** exp
            if low <= v <= high:
                values.append(v)
    if len(values) > MAX_TICKS:
        values = [v for v in values if round(v / 10 ** math.floor(math.log10(v)), 6) == 1]
    return values, [f"{v:g}" for v in values]
