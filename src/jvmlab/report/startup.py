"""Startup phases per cell as a stacked bar: JVM init, init to main, main to ready.

Values are means over a cell's measured invocations of ``startup.jvm_init_s``,
``startup.to_main_s`` (both JVM uptime, from the startup collector) and ``ready_s`` (the
executor's clock; JVM uptime starts a few ms later, so the last segment is a slight
over-estimate). A cell without a value for a segment gets no bar for it (not a zero).
"""

from __future__ import annotations

import html
from statistics import fmean
from typing import Any

from jvmlab.model.stored import StoredCell, StoredInvocation

SEGMENTS = (("JVM init", "#4c6ef5"), ("init → main", "#f08c00"), ("main → ready", "#2b8a3e"))


def _mean(values: list[float]) -> float | None:
    return fmean(values) if values else None


def phase_means(cells: list[StoredCell], invocations: list[StoredInvocation]) -> dict[str, tuple[float | None, ...]]:
    """cell -> (init, main - init, ready - main) in seconds; None where not measured."""
    out: dict[str, tuple[float | None, ...]] = {}
    for cell in cells:
        mine = [i for i in invocations if i.cell_id == cell.id and i.status == "ok"]
        init = _mean([v for i in mine if (v := i.value("startup.jvm_init_s")) is not None])
        main = _mean([v for i in mine if (v := i.value("startup.to_main_s")) is not None])
        ready = _mean([v for i in mine if (v := i.value("ready_s")) is not None])
        if init is None and main is None:
            continue
        out[cell.name] = (init, None if main is None or init is None else max(0.0, main - init),
                          None if ready is None or main is None else max(0.0, ready - main))
    return out


def startup_figure(phases: dict[str, tuple[float | None, ...]]) -> dict[str, Any] | None:
    if not phases:
        return None
    names = list(phases)
    traces = []
    for idx, (label, colour) in enumerate(SEGMENTS):
        xs = [phases[n][idx] for n in names]
        traces.append({"type": "bar", "orientation": "h", "name": label, "marker": {"color": colour},
                       "y": [html.escape(n) for n in names],
                       "x": [None if x is None else x * 1000 for x in xs],
                       "hovertemplate": f"{label}: %{{x:.1f}} ms<extra>%{{y}}</extra>"})
    return {"data": traces, "layout": {
        "barmode": "stack", "title": {"text": "Startup phases (mean per cell)", "font": {"size": 14}, "x": 0.01},
        "height": 120 + 40 * len(names), "xaxis": {"title": {"text": "ms since JVM start"}},
        "yaxis": {"autorange": "reversed", "automargin": True}, "margin": {"l": 60, "r": 16, "t": 40, "b": 50},
        "legend": {"orientation": "h"}}}
