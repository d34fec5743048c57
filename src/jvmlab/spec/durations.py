"""Durations and sizes as users write them in specs ("90s", "2m", "500ms", 30).

Every duration is finite and at most :data:`MAX_DURATION_S` (a week): a wait that is written
``inf`` or ``1e300`` would never end (or overflow a timer), so it is refused where it is read.
"""

from __future__ import annotations

import math
import re

_DURATION = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>ms|s|m|min|h)?\s*$")
_FACTORS = {"ms": 0.001, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, None: 1.0}
MAX_DURATION_S = 7 * 24 * 3600.0  # a week: the upper bound of every wait, timeout and budget


def parse_duration_s(value: object) -> float:
    """Seconds from a number (seconds) or a string with a unit; ValueError when malformed,
    negative, not finite or beyond :data:`MAX_DURATION_S`."""
    if isinstance(value, bool):
        raise ValueError("a duration, such as 30, \"90s\", \"2m\" or \"500ms\"")
    seconds: float | None = None
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        match = _DURATION.match(value)
        if match:
            seconds = float(match["num"]) * _FACTORS[match["unit"]]
    if seconds is None:
        raise ValueError(f"{value!r} is not a duration (write 30, \"90s\", \"2m\" or \"500ms\")")
    if not math.isfinite(seconds):
        raise ValueError(f"{value!r} is not a finite duration: every wait in jvmlab is bounded "
                         f"(at most {MAX_DURATION_S:g} s, a week)")
    if seconds < 0:
        raise ValueError(f"{value!r} is a negative duration")
    if seconds > MAX_DURATION_S:
        raise ValueError(f"{value!r} is {seconds:g} s, beyond the bound of any duration "
                         f"({MAX_DURATION_S:g} s, a week)")
    return seconds


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)


def parse_size_bytes(text: str) -> int:
    """"512m", "4g", "1.5G", "1048576" -> bytes (powers of 1024, like -Xmx)."""
    m = _SIZE.match(str(text))
    if not m:
        raise ValueError(f"{text!r} is not a size like 512m or 4g")
    scale = 1 << (10 * " kmgt".index((m.group(2) or " ").lower()))
    return int(float(m.group(1)) * scale)
