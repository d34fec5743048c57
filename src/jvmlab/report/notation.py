"""One way to write numbers with intervals, for every table (terminal, HTML, compare).

* an interval is ``[low, high]`` followed by the unit once: ``[1.94, 2.07] s``;
* a row's mean, spread, interval and range share the mean's unit: ``2.01 ± 0.081 s`` and
  ``[1.94, 2.07] s``, never ``2.007 s ± 80.6 ms``;
* a ratio is ``1.39x [1.32, 1.46]``;
* in a sentence (verdicts, gate lines, scenario verdicts) an interval is
  ``95% CI low ... high`` (:func:`sentence_ci`), a change in percent ``95% CI -1.2% ... +0.8%``
  (:func:`pct_change_ci`), a large factor ``95% CI 4.3-4.9x`` (:func:`times_ci`). These are
  the only places an interval becomes text.

Throughput metrics registered as ``units/s`` are shown in the workload's own unit when
its progress line names one (``progress (?P<units>\\d+) chunks`` -> ``chunks/s``).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from jvmlab import metrics as registry
from jvmlab.analyze import CellStats
from jvmlab.workloads.builtin import list_builtins

GENERIC_RATE = "units/s"
_UNIT_AFTER_GROUP = re.compile(r"\(\?P<units>(?:[^()]|\([^()]*\))*\)\s*(?:\\s[*+?]?\s*)*([A-Za-z][A-Za-z_-]*)")


def digits3(x: float) -> str:
    """About three significant digits, never in exponent form: 1021, 70.4, 3.43, 0.224."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    decimals = max(0, 2 - math.floor(math.log10(abs(x))))
    return f"{x:.{decimals}f}"


def _scaled(values: Sequence[float | None], unit: str, like: float) -> tuple[list[str], str]:
    divisor, suffix = registry.scale_for(like, unit)
    if unit == "count" and all(v is None or float(v).is_integer() for v in values):
        return ["-" if v is None else f"{v:.0f}" for v in values], suffix
    if unit == "share":
        divisor, suffix = 0.01, "%"
    return ["-" if v is None else digits3(v / divisor) for v in values], suffix


def _with_unit(text: str, suffix: str) -> str:
    if suffix == "count":
        return text
    return f"{text}{suffix}" if suffix == "%" else f"{text} {suffix}".rstrip()


def mean_sd(metric: registry.Metric, st: CellStats | None) -> str:
    """``2.01 ± 0.081 s`` (the spread in the mean's unit)."""
    if st is None or st.mean is None:
        return "-"
    parts, suffix = _scaled([st.mean] + ([st.sd] if st.sd is not None else []), metric.unit, st.mean)
    return _with_unit(" ± ".join(parts), suffix)


def interval(metric: registry.Metric, low: float | None, high: float | None, like: float | None = None) -> str:
    """``[1.94, 2.07] s``, in the unit that fits ``like`` (the row's mean) or ``low``."""
    if low is None or high is None:
        return "-"
    parts, suffix = _scaled([low, high], metric.unit, low if like is None else like)
    return _with_unit(f"[{parts[0]}, {parts[1]}]", suffix)


def span(metric: registry.Metric, low: float | None, high: float | None, like: float | None = None) -> str:
    """A min–max range (not an interval estimate): ``1.90–2.10 s``."""
    if low is None or high is None:
        return "-"
    parts, suffix = _scaled([low, high], metric.unit, low if like is None else like)
    return _with_unit("–".join(parts), suffix)


def value(metric: registry.Metric, v: float | None, like: float | None = None) -> str:
    if v is None or math.isnan(v):
        return "-"
    parts, suffix = _scaled([v], metric.unit, v if like is None else like)
    return _with_unit(parts[0], suffix)


def ratio_ci(ratio: float | None, ci: tuple[float, float] | None) -> str:
    """``1.39x [1.32, 1.46]``; "-" without a ratio."""
    if ratio is None:
        return "-"
    return f"{ratio:#.3g}x" + (f" [{ci[0]:#.3g}, {ci[1]:#.3g}]" if ci else "")


def pct(value: float, signed: bool = False) -> str:
    """A percentage with one decimal (two below 0.095%): "12.3%", "+0.08%"."""
    digits = 1 if abs(value) >= 0.095 else 2
    return f"{value:+.{digits}f}%" if signed else f"{value:.{digits}f}%"


def change_pct(ratio: float) -> str:
    """A ratio as a signed change in percent, one decimal: 1.182 -> "+18.2%"."""
    return f"{(ratio - 1.0) * 100.0:+.1f}%"


def times(value: float) -> str:
    """A factor: "4.6x", "120x"."""
    return f"{value:.0f}x" if value >= 100 else f"{value:.1f}x"


def sentence_ci(low: str, high: str) -> str:
    """An interval inside a sentence, its ends already written: "95% CI 1.21 ... 1.26"."""
    return f"95% CI {low} ... {high}"


def pct_change_ci(ci: tuple[float, float], signed: bool = True) -> str:
    """A ratio interval as signed percent changes: "95% CI -1.2% ... +0.8%"."""
    lo, hi = ((v - 1.0) * 100.0 for v in ci)
    return sentence_ci(pct(lo, signed), pct(hi, signed))


def times_ci(low: float, high: float) -> str:
    """An interval of factors: "95% CI 4.3-4.9x"."""
    return f"95% CI {times(low)[:-1]}-{times(high)}"


@lru_cache(maxsize=32)  # asked once per table column; the spec text does not change
def progress_unit(spec_text: str) -> str | None:
    """The rate unit a workload's progress line names ("chunks/s"), or None when it names none."""
    try:
        workload = tomllib.loads(spec_text).get("workload") or {}
    except tomllib.TOMLDecodeError:
        return None
    pattern = workload.get("progress") if isinstance(workload, dict) else None
    if not pattern and isinstance(workload, dict) and isinstance(workload.get("builtin"), str):
        found = [b for b in list_builtins() if b.name == workload["builtin"]]
        pattern = getattr(found[0], "progress_regex", None) if found else None
    if not isinstance(pattern, str):
        return None
    match = _UNIT_AFTER_GROUP.search(pattern)
    return f"{match.group(1)}/s" if match else None


def shown_metric(name: str, rate_unit: str | None,
                 metrics: registry.MetricRegistry = registry.DEFAULT) -> registry.Metric:
    """The metric from ``metrics`` (an experiment's registry), with ``units/s`` replaced by
    the workload's own rate unit."""
    metric = metrics.get(name)
    if rate_unit and metric.unit == GENERIC_RATE:
        return replace(metric, unit=rate_unit)
    return metric
