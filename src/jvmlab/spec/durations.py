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


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)


def parse_size_bytes(text: str) -> int:
    """"512m", "4g", "1.5G", "1048576" -> bytes (powers of 1024, like -Xmx)."""
    m = _SIZE.match(str(text))
    if not m:
        raise ValueError(f"{text!r} is not a size like 512m or 4g")
    scale = 1 << (10 * " kmgt".index((m.group(2) or " ").lower()))
    return int(float(m.group(1)) * scale)
