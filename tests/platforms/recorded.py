"""Reading recorded platform outputs (psutil reprs, whoami, /proc files) kept in tests/data/platforms."""

from __future__ import annotations

import re
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "platforms"
_REPR = re.compile(r"^(\w+)\((.*)\)$")
_FIELD = re.compile(r"(\w+)=([-\d.e]+)")


def text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def psutil_records(name: str) -> dict[str, dict[str, float]]:
    """{"pmem": {...}, "pcputimes": {...}} from a file of psutil namedtuple reprs."""
    out: dict[str, dict[str, float]] = {}
    for line in text(name).splitlines():
        match = _REPR.match(line.strip())
        if match:
            out[match.group(1)] = {k: float(v) for k, v in _FIELD.findall(match.group(2))}
    return out
