"""The sizing documents: each probe of a minimum-heap search (``minheap_probe``, inside its
invocation), the search itself (``minheap``) and a heap sweep's levels (``heap_sweep``).

The probe and result records are the search's own (``sizing/minheap.py`` re-exports them):
what is stored is what the bisection reads."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any

from jvmlab.model.documents.base import Document, JsonObject, mapping, opt_float, opt_int


class Verdict(StrEnum):
    """How one probe ended, as the bisection reads it."""

    PASS = "pass"
    OOM = "oom"  # java.lang.OutOfMemoryError (heap or GC overhead)
    TIMEOUT = "timeout"
    PATTERN = "pattern"  # the user's failure pattern matched the output
    KILLED = "killed"  # killed by a signal not sent by jvmlab (e.g. a memory limit)
    FAILED = "failed"  # any other failure: too small as well, but worth reporting

    @property
    def passed(self) -> bool:
        return self is Verdict.PASS


@dataclass(frozen=True, slots=True)
class ProbeOutcome(Document):
    """One run at one heap size; stored inside its invocation as the ``minheap_probe`` document."""

    KIND = "minheap_probe"

    heap_bytes: int
    verdict: Verdict
    reason: str | None = None
    wall_s: float | None = None

    def body(self) -> JsonObject:
        return {"heap_bytes": self.heap_bytes, "verdict": str(self.verdict), "reason": self.reason,
                "wall_s": self.wall_s}

    @classmethod
    def decode(cls, data: Any, version: int = 1) -> ProbeOutcome:
        d = mapping(data)
        return cls(int(d["heap_bytes"]), Verdict(d["verdict"]), d.get("reason"), opt_float(d.get("wall_s")))


class Status(StrEnum):
    FOUND = "found"  # interval confirmed at both ends
    BELOW_LOWER = "below-lower"  # the lower bound already passes
    ABOVE_UPPER = "above-upper"  # the upper bound fails
    BUDGET = "budget"  # max_probes reached before both ends were confirmed
    UNCONFIRMED = "unconfirmed"  # a bound itself gives both answers


@dataclass(frozen=True, slots=True)
class MinHeapResult:
    """The minimum heap as an interval (lower_bytes, upper_bytes], and every probe behind it."""

    status: Status
    lower_bytes: int | None  # largest size confirmed too small (None: not found)
    upper_bytes: int | None  # smallest size confirmed large enough (None: not found)
    confidence: float | None  # for FOUND only
    flaky_sizes: tuple[int, ...]  # sizes that both passed and failed
    probes: tuple[ProbeOutcome, ...] = field(default=())
    note: str = ""

    @property
    def flaky(self) -> bool:
        return bool(self.flaky_sizes)

    @property
    def invocations(self) -> int:
        return len(self.probes)

    def to_json(self) -> JsonObject:
        return {"status": str(self.status), "lower_bytes": self.lower_bytes, "upper_bytes": self.upper_bytes,
                "confidence": self.confidence, "flaky_sizes": list(self.flaky_sizes),
                "invocations": self.invocations, "note": self.note,
                "probes": [p.body() for p in self.probes]}

    @classmethod
    def from_json(cls, data: Any) -> MinHeapResult:
        d = mapping(data)
        return cls(Status(d["status"]), opt_int(d.get("lower_bytes")), opt_int(d.get("upper_bytes")),
                   opt_float(d.get("confidence")), tuple(int(s) for s in d.get("flaky_sizes") or ()),
                   tuple(ProbeOutcome.decode(p) for p in d.get("probes") or ()), str(d.get("note") or ""))


@dataclass(frozen=True, slots=True)
class MinHeapRequestRecord:
    """The search settings as stored (bytes; ``timeout_s`` per probe, None: the spec's)."""

    lower_bytes: int
    upper_bytes: int
    step_bytes: int
    repeats: int
    max_probes: int
    fail_pattern: str | None = None
    timeout_s: float | None = None

    def body(self) -> JsonObject:
        return asdict(self)

    @classmethod
    def decode(cls, data: Any) -> MinHeapRequestRecord:
        d = mapping(data)
        return cls(int(d["lower_bytes"]), int(d["upper_bytes"]), int(d["step_bytes"]), int(d["repeats"]),
                   int(d["max_probes"]), d.get("fail_pattern"), opt_float(d.get("timeout_s")))


@dataclass(frozen=True, slots=True)
class MinHeapCellRecord:
    """One cell's search: its probes in order and, once it finished, its result."""

    name: str
    probes: tuple[ProbeOutcome, ...]
    result: MinHeapResult | None

    def body(self) -> JsonObject:
        return {"name": self.name, "probes": [p.body() for p in self.probes],
                "result": None if self.result is None else self.result.to_json() | {"probes": None}}

    @classmethod
    def decode(cls, data: Any) -> MinHeapCellRecord:
        d = mapping(data)
        probes = tuple(ProbeOutcome.decode(p) for p in d.get("probes") or ())
        result = d.get("result")
        found = None if result is None else replace(MinHeapResult.from_json(dict(result, probes=None)), probes=probes)
        return cls(str(d.get("name") or ""), probes, found)


@dataclass(frozen=True, slots=True)
class MinHeapDocument(Document):
    """A minimum-heap search: its settings and each cell's probes and result (cell index -> cell);
    derived from the probes, rewritten after each cell."""

    KIND = "minheap"

    request: MinHeapRequestRecord
    cells: dict[int, MinHeapCellRecord]

    def body(self) -> JsonObject:
        return {"request": self.request.body(), "cells": {str(k): c.body() for k, c in sorted(self.cells.items())}}

    @classmethod
    def decode(cls, data: Any, version: int) -> MinHeapDocument:
        d = mapping(data)
        return cls(MinHeapRequestRecord.decode(d["request"]),
                   {int(k): MinHeapCellRecord.decode(c) for k, c in mapping(d.get("cells") or {}).items()})


@dataclass(frozen=True, slots=True)
class HeapLevel:
    """One heap size of the sweep; ``multiple`` of the reference minimum, or None if absolute."""

    name: str
    heap_bytes: int
    multiple: float | None

    def to_json(self) -> JsonObject:
        return {"name": self.name, "heap_bytes": self.heap_bytes, "multiple": self.multiple}

    @classmethod
    def from_json(cls, data: Any) -> HeapLevel:
        d = mapping(data)
        return cls(str(d["name"]), int(d["heap_bytes"]), opt_float(d.get("multiple")))


@dataclass(frozen=True, slots=True)
class HeapSweepDocument(Document):
    """A heap sweep's levels, the minimum they are multiples of, and the search it came from."""

    KIND = "heap_sweep"

    levels: tuple[HeapLevel, ...]
    reference_bytes: int | None  # None: absolute sizes
    minheap_experiment: int | None  # the minimum-heap search the multiples are of

    def body(self) -> JsonObject:
        return {"levels": [lv.to_json() for lv in self.levels], "reference_bytes": self.reference_bytes,
                "minheap_experiment": self.minheap_experiment}

    @classmethod
    def decode(cls, data: Any, version: int) -> HeapSweepDocument:
        d = mapping(data)
        return cls(tuple(HeapLevel.from_json(lv) for lv in d["levels"]), opt_int(d.get("reference_bytes")),
                   opt_int(d.get("minheap_experiment")))
