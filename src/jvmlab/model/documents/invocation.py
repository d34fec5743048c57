"""Documents stored inside one invocation (with its metrics, in the same transaction): a JMH
fork's scores (``jmh``) and a server run's merged latency histogram (``load_histogram``).
The minimum-heap probe (``minheap_probe``) is in ``sizing.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jvmlab.model.documents.base import Document, JsonObject, mapping, opt_float


@dataclass(frozen=True, slots=True)
class JmhSecondaryRecord:
    """A profiler's metric of a benchmark, per fork."""

    unit: str
    fork_scores: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class JmhScoreRecord:
    """One benchmark x @Param combination x mode as the fork reported it."""

    benchmark: str
    mode: str
    params: dict[str, str]
    unit: str
    score: float | None
    score_error: float | None
    fork_scores: tuple[float, ...]
    iterations: int
    lower_is_better: bool
    secondary: dict[str, JmhSecondaryRecord]

    def body(self) -> JsonObject:
        return {"benchmark": self.benchmark, "mode": self.mode, "params": dict(self.params),
                "secondary": {k: {"unit": s.unit, "fork_scores": list(s.fork_scores)}
                              for k, s in self.secondary.items()},
                "unit": self.unit, "score": self.score, "score_error": self.score_error,
                "fork_scores": list(self.fork_scores), "iterations": self.iterations,
                "lower_is_better": self.lower_is_better}

    @classmethod
    def decode(cls, data: Any) -> JmhScoreRecord:
        d = mapping(data)
        secondary = {str(k): JmhSecondaryRecord(str(v["unit"]), tuple(float(x) for x in v.get("fork_scores") or ()))
                     for k, v in mapping(d.get("secondary") or {}).items()}
        params = {str(k): str(v) for k, v in mapping(d.get("params") or {}).items()}
        return cls(str(d["benchmark"]), str(d["mode"]), params,
                   str(d["unit"]), opt_float(d.get("score")), opt_float(d.get("score_error")),
                   tuple(float(x) for x in d.get("fork_scores") or ()), int(d.get("iterations") or 0),
                   bool(d.get("lower_is_better")), secondary)


@dataclass(frozen=True, slots=True)
class JmhDocument(Document):
    """A JMH fork's result: metric name (``jmh.<Class.method>[params]``) -> its scores (version 1
    stored the map itself)."""

    KIND = "jmh"

    benchmarks: dict[str, JmhScoreRecord]

    def body(self) -> JsonObject:
        return {"benchmarks": {k: b.body() for k, b in self.benchmarks.items()}}

    @classmethod
    def decode(cls, data: Any, version: int) -> JmhDocument:
        d = mapping(data)
        found = d["benchmarks"] if "version" in d else d
        return cls({str(k): JmhScoreRecord.decode(v) for k, v in mapping(found).items()})


@dataclass(frozen=True, slots=True)
class LoadHistogramDocument(Document):
    """The latency histogram of every load client of one invocation merged (log buckets with
    ``sub_buckets`` per power of two; bucket -> count, values in ``unit``)."""

    KIND = "load_histogram"

    unit: str  # "us"
    sub_buckets: int
    counts: dict[int, int]

    def body(self) -> JsonObject:
        counts = {str(k): v for k, v in sorted(self.counts.items())}
        return {"unit": self.unit, "sub": self.sub_buckets, "counts": counts}

    @classmethod
    def decode(cls, data: Any, version: int) -> LoadHistogramDocument:
        d = mapping(data)
        return cls(str(d.get("unit") or "us"), int(d.get("sub") or 32),
                   {int(k): int(v) for k, v in mapping(d.get("counts") or {}).items()})
