"""Durations and sizes as users write them in specs ("90s", "2m", "500ms", 30)."""

from __future__ import annotations

import re

_DURATION = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>ms|s|m|min|h)?\s*$")
_FACTORS = {"ms": 0.001, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, None: 1.0}


def parse_duration_s(value: object) -> float:
    """Seconds from a number (seconds) or a string with a unit; ValueError when malformed."""
    if isinstance(value, bool):
        raise ValueError("a duration, such as 30, \"90s\", \"2m\" or \"500ms\"")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        match = _DURATION.match(value)
        if match:
            return float(match["num"]) * _FACTORS[match["unit"]]
    raise ValueError(f"{value!r} is not a duration (write 30, \"90s\", \"2m\" or \"500ms\")")
