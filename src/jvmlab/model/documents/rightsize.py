"""The ``rightsize`` document: a container-size search's request, every candidate size with
its verdict (measured or implied by monotonicity), and the size chosen.

It is the search's state, rewritten after each candidate is decided; the invocations behind
it are the experiment's own rows, so a resumed search replays them and this record is made
again from them (``sizing/rightsize.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jvmlab.model.documents.base import Document, JsonObject, mapping, opt_float, opt_int, opt_str, present, strings


@dataclass(frozen=True, slots=True)
class GoalRecord:
    metric: str
    comparison: str
    bound: float

    def body(self) -> JsonObject:
        return {"metric": self.metric, "comparison": self.comparison, "bound": self.bound}

    @classmethod
    def decode(cls, data: Any) -> GoalRecord:
        d = mapping(data)
        return cls(str(d["metric"]), str(d["comparison"]), float(d["bound"]))


@dataclass(frozen=True, slots=True)
class RightsizeRequestRecord:
    goals: tuple[GoalRecord, ...]
    cpus: tuple[float, ...]
    memory_bytes: tuple[int, ...]
    jvm_sizing: str  # "auto" or "keep"
    heap_shares: tuple[int, ...]  # percent of the limit (-XX:MaxRAMPercentage), tried in order; () none
    cpu_weight: float
    memory_weight: float  # per GiB
    invocations: int  # at the first look
    max_invocations: int  # per candidate

    def body(self) -> JsonObject:
        return {"goals": [g.body() for g in self.goals], "cpus": list(self.cpus),
                "memory_bytes": list(self.memory_bytes), "jvm_sizing": self.jvm_sizing,
                "heap_shares": list(self.heap_shares), "cpu_weight": self.cpu_weight,
                "memory_weight": self.memory_weight, "invocations": self.invocations,
                "max_invocations": self.max_invocations}

    @classmethod
    def decode(cls, data: Any) -> RightsizeRequestRecord:
        d = mapping(data)
        return cls(tuple(GoalRecord.decode(g) for g in d["goals"]), tuple(float(c) for c in d["cpus"]),
                   tuple(int(m) for m in d["memory_bytes"]), str(d["jvm_sizing"]),
                   tuple(int(s) for s in d["heap_shares"]), float(d["cpu_weight"]), float(d["memory_weight"]),
                   int(d["invocations"]), int(d["max_invocations"]))


@dataclass(frozen=True, slots=True)
class GoalFigures:
    """One goal's figures at a candidate: mean, the one-sided bounds decided on, a 95% CI."""

    metric: str
    n: int
    mean: float | None
    lower: float | None
    upper: float | None
    ci95: tuple[float, float] | None
    verdict: str

    def body(self) -> JsonObject:
        return {"metric": self.metric, "n": self.n, "mean": self.mean, "lower": self.lower, "upper": self.upper,
                "ci95": list(self.ci95) if self.ci95 is not None else None, "verdict": self.verdict}

    @classmethod
    def decode(cls, data: Any) -> GoalFigures:
        d = mapping(data)
        ci = d.get("ci95")
        return cls(str(d["metric"]), int(d["n"]), opt_float(d.get("mean")), opt_float(d.get("lower")),
                   opt_float(d.get("upper")), (float(ci[0]), float(ci[1])) if ci is not None else None,
                   str(d["verdict"]))


@dataclass(frozen=True, slots=True)
class CandidateRecord:
    """One size: measured (its figures) or implied by ``implied_by`` (cpus, memory_bytes)."""

    cpus: float
    memory_bytes: int
    verdict: str  # meets / misses / fails / undecided
    phase: str  # "search", "proof", or "implied"
    cost: float
    jvm_options: tuple[str, ...] = ()
    goals: tuple[GoalFigures, ...] = ()
    reason: str | None = None
    memory_death: bool = False
    implied_by: tuple[float, int] | None = None
    invocations: int = 0
    jvm_processors: int | None = None  # what the JVM saw inside the limits
    jvm_max_heap_bytes: int | None = None

    def body(self) -> JsonObject:
        return present({"cpus": self.cpus, "memory_bytes": self.memory_bytes, "verdict": self.verdict,
                        "phase": self.phase, "cost": self.cost, "jvm_options": list(self.jvm_options),
                        "goals": [g.body() for g in self.goals], "reason": self.reason,
                        "memory_death": self.memory_death,
                        "implied_by": list(self.implied_by) if self.implied_by is not None else None,
                        "invocations": self.invocations, "jvm_processors": self.jvm_processors,
                        "jvm_max_heap_bytes": self.jvm_max_heap_bytes})

    @classmethod
    def decode(cls, data: Any) -> CandidateRecord:
        d = mapping(data)
        by = d.get("implied_by")
        return cls(float(d["cpus"]), int(d["memory_bytes"]), str(d["verdict"]), str(d["phase"]), float(d["cost"]),
                   strings(d.get("jvm_options", ())), tuple(GoalFigures.decode(g) for g in d.get("goals", ())),
                   opt_str(d.get("reason")), bool(d.get("memory_death", False)),
                   (float(by[0]), int(by[1])) if by is not None else None, int(d.get("invocations", 0)),
                   opt_int(d.get("jvm_processors")), opt_int(d.get("jvm_max_heap_bytes")))


@dataclass(frozen=True, slots=True)
class RightsizeDocument(Document):
    """A rightsize search: what was asked, each candidate (cheapest first), the chosen size
    (an index into ``candidates``; None: no size meets) and whether the search finished."""

    KIND = "rightsize"

    request: RightsizeRequestRecord
    candidates: tuple[CandidateRecord, ...]
    chosen: int | None
    finished: bool

    @property
    def chosen_candidate(self) -> CandidateRecord | None:
        return self.candidates[self.chosen] if self.chosen is not None else None

    def body(self) -> JsonObject:
        return {"request": self.request.body(), "candidates": [c.body() for c in self.candidates],
                "chosen": self.chosen, "finished": self.finished}

    @classmethod
    def decode(cls, data: Any, version: int = 1) -> RightsizeDocument:
        d = mapping(data)
        return cls(RightsizeRequestRecord.decode(d["request"]),
                   tuple(CandidateRecord.decode(c) for c in d["candidates"]), opt_int(d.get("chosen")),
                   bool(d["finished"]))
