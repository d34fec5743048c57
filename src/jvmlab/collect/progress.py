"""The progress collector: throughput over time from the workload's own progress lines.

A regex with a named group ``units`` is matched against stdout lines; each match, with
the line's arrival time, is a point. In "cumulative" mode the number is the total so far
(``progress 1200 chunks``); in "per-line" mode each line adds its number. The cumulative
curve is interpolated linearly onto equal windows (the median gap between lines, but at
most 300 windows per run) and differenced into a rate: units per second per window.

Per invocation the rate series goes through :func:`jvmlab.collect.warmup.analyze_warmup`
for the warm-up class, the time to steady state and the steady-state rate. The mean rate
is over the span between the first and the last progress line (what happened before the
first line cannot be timed).
"""

from __future__ import annotations

import threading
from dataclasses import asdict, replace

import numpy as np

from jvmlab.collect.base import NullProbe
from jvmlab.collect.warmup import UNCLASSIFIED, WarmupParams, analyze_warmup
from jvmlab.errors import UserError
from jvmlab.model.collected import Collected, Timeline
from jvmlab.model.documents import JsonObject, ProgressDocument, ProgressSegment
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import ProcessResult
from jvmlab.spec.pattern import BoundedPattern, check_compiles

MODES = ("cumulative", "per-line")
MAX_WINDOWS = 300
_MAX_POINTS = 1_000_000  # memory bound for pathological output
_SAME_TIME_S = 1e-4


def compile_progress(pattern: str) -> BoundedPattern:
    """The regex, checked: it must compile and have a named group ``units``. Each line is
    matched within a time bound (spec/pattern.py): a pattern that runs out stops collecting and
    the "progress" document says why."""
    try:
        check_compiles(pattern)
        regex = BoundedPattern(pattern, what="[workload] progress")
    except ValueError as err:
        raise UserError(f"progress {err}; fix it in the spec") from err
    if "units" not in regex.groupindex:
        raise UserError(f"progress regex {pattern!r} needs a named group (?P<units>...)")
    return regex


def rate_windows(times: list[float], cumulative: list[float],
                 max_windows: int = MAX_WINDOWS) -> tuple[list[float], list[float], float]:
    """(window starts, rates per second, window length) from cumulative points.

    Points closer than 0.1 ms are one point (the last value wins); a trailing part shorter
    than half a window is left out. Fewer than two distinct points give no windows.
    """
    t_kept: list[float] = []
    u_kept: list[float] = []
    for t, u in zip(times, cumulative, strict=False):
        if t_kept and t - t_kept[-1] < _SAME_TIME_S:
            u_kept[-1] = u
        else:
            t_kept.append(t)
            u_kept.append(u)
    if len(t_kept) < 2:
        return [], [], 0.0
    t_arr, u_arr = np.asarray(t_kept), np.asarray(u_kept)
    span = float(t_arr[-1] - t_arr[0])
    window = max(float(np.median(np.diff(t_arr))), span / max_windows)
    count = int(span / window + 1e-9)
    edges = [float(t_arr[0] + k * window) for k in range(count + 1)]
    if span - count * window >= window / 2:
        edges.append(float(t_arr[-1]))
    at = np.interp(edges, t_arr, u_arr)
    rates = np.diff(at) / np.diff(edges)
    return edges[:-1], [float(r) for r in rates], window


class ProgressProbe(NullProbe):
    """Collects (arrival time, units) of matching stdout lines for one invocation."""

    def __init__(self, regex: BoundedPattern, mode: str, params: WarmupParams) -> None:
        self.regex = regex.fresh()
        self.mode = mode
        self.params = params
        self.times: list[float] = []
        self.units: list[float] = []
        self._lock = threading.Lock()

    def on_line(self, stream: str, t_s: float, line: str) -> None:
        if stream != "stdout":
            return
        match = self.regex.search_quiet(line)
        if match is None or len(self.times) >= _MAX_POINTS:
            return
        try:
            value = float(match.group("units").replace(",", "").replace("_", ""))
        except (TypeError, ValueError):
            return
        with self._lock:
            self.times.append(t_s)
            self.units.append(value)

    def finish(self, result: ProcessResult) -> Collected:
        with self._lock:
            times, units = list(self.times), list(self.units)
        if self.regex.spent is not None:  # the points before it ran out are not the run's progress
            return Collected(documents=_unclassified(self.regex.spent))
        if not times:
            return Collected()
        cumulative = list(np.cumsum(units)) if self.mode == "per-line" else units
        try:
            return summarize_progress(times, [float(u) for u in cumulative], self.params, self.mode)
        except (ValueError, ArithmeticError) as err:  # odd numbers must not lose the invocation
            return Collected(metrics={"progress.total_units": float(cumulative[-1])},
                             documents=_unclassified(f"error: {err}"))


def _unclassified(reason: str) -> dict[str, JsonObject]:
    return {ProgressDocument.KIND: ProgressDocument(UNCLASSIFIED, reason).to_json()}


def summarize_progress(times: list[float], cumulative: list[float], params: WarmupParams,
                       mode: str = "cumulative") -> Collected:
    """Metrics, timelines and the "progress" document from cumulative points."""
    out = Collected()
    out.timelines["progress.units"] = Timeline(tuple(times), tuple(cumulative), "units")
    out.metrics["progress.total_units"] = cumulative[-1]
    starts, rates, window = rate_windows(times, cumulative)
    run = ProgressDocument(UNCLASSIFIED, "fewer than two progress lines", mode, len(times), window or None,
                           asdict(params) | {"penalty": "penalty_factor * log(n)"})
    if times[-1] > times[0]:
        out.metrics["progress.mean_rate"] = (cumulative[-1] - cumulative[0]) / (times[-1] - times[0])
    if starts:
        out.timelines["progress.rate"] = Timeline(tuple(starts), tuple(rates), "units/s")
        warm = analyze_warmup(starts, rates, params)
        doc = replace(run, klass=warm.klass, reason=warm.reason, changepoints_s=warm.changepoints_s,
                      segments=tuple(ProgressSegment(s.start_s, s.end_s, s.windows, s.mean_rate)
                                     for s in warm.segments),
                      steady_rate=warm.steady_rate, warmup_s=warm.warmup_s, noise_sd=warm.noise_sd)
        if warm.steady_rate is not None:
            out.metrics["progress.steady_rate"] = warm.steady_rate
        if warm.warmup_s is not None:
            out.metrics["progress.warmup_s"] = warm.warmup_s
    else:
        doc = run
    out.documents[ProgressDocument.KIND] = doc.to_json()
    return out


class ProgressCollector:
    name = "progress"

    def __init__(self, pattern: str, mode: str = "cumulative", params: WarmupParams = WarmupParams()) -> None:
        if mode not in MODES:
            raise UserError(f"progress mode {mode!r} is not one of {', '.join(MODES)}")
        self.regex = compile_progress(pattern)
        self.mode = mode
        self.params = params

    def probe(self, ctx: ProbeContext) -> ProgressProbe:
        return ProgressProbe(self.regex, self.mode, self.params)
