"""Read a unified-logging decorator block (``[0.123s][info][gc]``, ``[2024-...][12ms]``...)
into uptime seconds on the log's continuing time axis.

The uptime decorator's position is learnt from the first line and read directly after
that (one split and one float per line); wall-clock-only logs count from their first stamp.
"""

from __future__ import annotations

import re
from datetime import datetime

from jvmlab.gclog.clock import MonotonicClock


def decimal(text: str) -> float:
    """A number with a decimal point or a decimal comma (locale-dependent logs)."""
    try:
        return float(text)
    except ValueError:
        return float(text.replace(",", "."))


SIZE_MB = {"B": 1.0 / (1 << 20), "K": 1.0 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0 * 1024}


def size_mb(value: str | None, unit: str | None) -> float | None:
    """A size as the log prints it (``512``, ``K``) in MB; None when it is not printed."""
    if value is None or unit is None:
        return None
    return decimal(value) * SIZE_MB[unit]


def transition_mb(m: re.Match[str]) -> tuple[float | None, float | None, float | None]:
    """(before, after, committed) MB of a heap transition ``12M->5M(64M)`` matched with the
    groups b, bu, a, au, c, cu (the parsers' regexes all name them so)."""
    return size_mb(m["b"], m["bu"]), size_mb(m["a"], m["au"]), size_mb(m["c"], m["cu"])


class Timer:
    """Reads the decorator block once per relevant line into an uptime in seconds."""

    def __init__(self) -> None:
        self.clock = MonotonicClock()
        self.uptime_idx: int | None = None  # which decorator holds the uptime, once learnt
        self.uptime_scale = 1.0
        self._last_tok = ""  # the uptime token read last, and its value in seconds
        self._last_raw = 0.0

    def __call__(self, deco: str) -> float | None:
        idx = self.uptime_idx
        if idx == 0:  # the usual place: read the first block without splitting the others
            end = deco.find("][")
            tok = deco[1:end] if end >= 0 else deco[1:-1]
            if tok == self._last_tok:  # several lines share a stamp: read it once
                return self.clock(self._last_raw)
            try:
                raw = decimal(tok.strip().rstrip("mns")) * self.uptime_scale
            except ValueError:
                return self._slow(deco[1:-1].split("]["))
            self._last_tok, self._last_raw = tok, raw
            return self.clock(raw)
        parts = deco[1:-1].split("][")
        if idx is not None and idx < len(parts):
            tok = parts[idx].strip()
            try:
                return self.clock(decimal(tok.rstrip("mns")) * self.uptime_scale)
            except ValueError:
                pass
        return self._slow(parts)

    def _slow(self, parts: list[str]) -> float | None:
        wall: float | None = None
        for i, raw in enumerate(parts):
            tok = raw.strip()
            if not tok or not tok[0].isdigit():
                continue
            if "T" in tok and "-" in tok:
                wall = iso_seconds(tok) if wall is None else wall
                continue
            unit = "ns" if tok.endswith("ns") else "ms" if tok.endswith("ms") else "s" if tok.endswith("s") else ""
            if not unit:
                continue  # pid / tid
            try:
                value = decimal(tok[: -len(unit)])
            except ValueError:
                continue
            scale = {"s": 1.0, "ms": 1e-3, "ns": 1e-9}[unit]
            if value * scale > 1e8:  # timemillis / timenanos: epoch based, not uptime
                wall = value * scale if wall is None else wall
                continue
            self.uptime_idx, self.uptime_scale = i, scale
            self.clock.uptime = True
            return self.clock(value * scale)
        return self.clock.wall(wall)


def iso_seconds(tok: str) -> float | None:
    """An ISO-8601 stamp (``2024-03-04T13:59:49.153+0100``, decimal comma too) in epoch seconds."""
    try:
        return datetime.fromisoformat(tok.replace(",", ".")).timestamp()
    except ValueError:
        return None
