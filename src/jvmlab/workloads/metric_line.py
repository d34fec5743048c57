"""Parse the ``jvmlab-metric`` lines that workloads print on stdout.

A workload reports its own measurements (``heapsort_ms``, ``chunks_per_s`` ...) with one line
each, ``jvmlab-metric name=<name> value=<number> unit=<unit>``, so jvmlab can treat them like
any other metric without knowing the workload. The format is documented in docs/workloads.md.
The parser reads arbitrary program output, so it must never raise: anything that is not a
well-formed metric line gives ``None``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

PREFIX = "jvmlab-metric"

_NAME = re.compile(r"[A-Za-z0-9_.\-]+")
# Decimal numbers as Java's Double.toString / Long.toString print them (and the usual
# hand-written forms). Stricter than float(): no "nan", "inf", "1_000", hex or non-ASCII digits.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_UNIT = re.compile(r"[^\s=]+")
_FIELDS = {"name": _NAME, "value": _NUMBER, "unit": _UNIT}


@dataclass(frozen=True)
class WorkloadMetric:
    """One value a workload measured itself, e.g. ``WorkloadMetric("heapsort_ms", 812.5, "ms")``."""

    name: str
    value: float
    unit: str  # free-form ("ms", "bytes", "chunks/s"); "" when the line gave none


def parse_metric_line(line: str) -> WorkloadMetric | None:
    """Return the metric on ``line``, or None when the line is not a well-formed metric line.

    Tolerant of leading/trailing and repeated whitespace (spaces, tabs, CR/LF) and of the
    fields in any order; ``unit`` may be omitted. Rejected (None): another prefix, a missing
    or repeated name/value, unknown fields, a value that is not a finite decimal number.
    """
    try:
        return _parse(line)
    except Exception:  # noqa: BLE001 - contract: never raise on arbitrary output
        return None


def _parse(line: object) -> WorkloadMetric | None:
    if not isinstance(line, str):
        return None
    tokens = line.split()
    if not tokens or tokens[0] != PREFIX:
        return None
    fields: dict[str, str] = {}
    for token in tokens[1:]:
        key, sep, value = token.partition("=")
        pattern = _FIELDS.get(key)
        if not sep or pattern is None or key in fields or not pattern.fullmatch(value):
            return None
        fields[key] = value
    if "name" not in fields or "value" not in fields:
        return None
    number = float(fields["value"])
    if not math.isfinite(number):  # e.g. 1e999 overflows to inf
        return None
    return WorkloadMetric(fields["name"], number, fields.get("unit", ""))


def format_metric_line(name: str, value: float, unit: str) -> str:
    """The line a workload prints for one metric; the inverse of :func:`parse_metric_line`."""
    return f"{PREFIX} name={name} value={value!r} unit={unit}"
