"""The tuner's documents: ``tune`` (the result `apply`, the HTML report and `tune --resume`
read) and ``tune-cluster`` (the width a tuning run was started with)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jvmlab.model.documents.base import (
    Document,
    JsonObject,
    mapping,
    opt,
    opt_float,
    pair,
    strings,
)


@dataclass(frozen=True, slots=True)
class TunedConfig:
    """A configuration as stored: parameter values, its JDK, its flags and (when known) the
    flags it really ran with (unlocks and archive flags added)."""

    values: dict[str, Any]
    jvm: str
    flags: tuple[str, ...]
    run_flags: tuple[str, ...] | None = None

    @property
    def key(self) -> str:
        return f"{self.jvm}|{' '.join(self.flags)}"

    def body(self) -> JsonObject:
        out: JsonObject = {"values": dict(self.values), "jvm": self.jvm, "flags": list(self.flags)}
        if self.run_flags is not None:
            out["run_flags"] = list(self.run_flags)
        return out

    @classmethod
    def decode(cls, data: Any) -> TunedConfig:
        d = mapping(data)
        return cls(dict(mapping(d.get("values") or {})), str(d["jvm"]), strings(d["flags"]),
                   opt(d.get("run_flags"), strings))


@dataclass(frozen=True, slots=True)
class TunedObjective:
    metric: str
    minimize: bool


@dataclass(frozen=True, slots=True)
class TunedTrial:
    """One trial as stored (the engine's ``Trial``; ``ratio`` and ``ci`` on the first objective)."""

    number: int
    config: TunedConfig
    state: str
    blocks: int
    ratio: float | None
    ci: tuple[float, float] | None
    estimate: tuple[float, ...] | None
    reason: str | None = None
    best_after: float | None = None
    best_ci: tuple[float, float] | None = None
    block_range: tuple[int, int] | None = None
    origin: str = "search"

    def body(self) -> JsonObject:
        return {"number": self.number, "config": self.config.body(), "state": self.state, "blocks": self.blocks,
                "ratio": self.ratio, "ci": _list(self.ci), "estimate": _list(self.estimate), "reason": self.reason,
                "best_after": self.best_after, "best_ci": _list(self.best_ci),
                "block_range": _list(self.block_range), "origin": self.origin}

    @classmethod
    def decode(cls, data: Any) -> TunedTrial:
        d = mapping(data)
        span = d.get("block_range")
        return cls(int(d["number"]), TunedConfig.decode(d["config"]), str(d["state"]), int(d.get("blocks") or 0),
                   opt_float(d.get("ratio")), opt(d.get("ci"), pair),
                   opt(d.get("estimate"), lambda e: tuple(float(x) for x in e)), d.get("reason"),
                   opt_float(d.get("best_after")), opt(d.get("best_ci"), pair),
                   (int(span[0]), int(span[1])) if span else None, str(d.get("origin") or "search"))


@dataclass(frozen=True, slots=True)
class TunedConfirmation:
    """A confirmation race: the configuration against others (name -> ratio and CI), in words."""

    label: str
    config: TunedConfig
    blocks: int
    against: dict[str, tuple[float, tuple[float, float]]] = field(default_factory=dict)
    verdicts: dict[str, str] = field(default_factory=dict)
    side_effects: dict[str, float] = field(default_factory=dict)  # metric -> ratio vs baseline

    def body(self) -> JsonObject:
        return {"label": self.label, "config": self.config.body(), "blocks": self.blocks,
                "against": {k: [r, list(ci)] for k, (r, ci) in self.against.items()},
                "verdicts": dict(self.verdicts), "side_effects": dict(self.side_effects)}

    @classmethod
    def decode(cls, data: Any) -> TunedConfirmation:
        d = mapping(data)
        against = {str(k): (float(v[0]), pair(v[1])) for k, v in mapping(d.get("against") or {}).items()}
        return cls(str(d["label"]), TunedConfig.decode(d["config"]), int(d.get("blocks") or 0), against,
                   {str(k): str(v) for k, v in mapping(d.get("verdicts") or {}).items()},
                   {str(k): float(v) for k, v in mapping(d.get("side_effects") or {}).items()})


@dataclass(frozen=True, slots=True)
class TuneDocument(Document):
    """A tuning run's result: trials, winner, Pareto points, confirmations, importances."""

    KIND = "tune"

    objectives: tuple[TunedObjective, ...]
    guardrails: tuple[str, ...]
    trials: tuple[TunedTrial, ...]
    winner: TunedConfig
    baseline: TunedConfig
    pareto: tuple[TunedConfig, ...]
    confirmations: tuple[TunedConfirmation, ...]
    importances: dict[str, float]
    invocations: int
    hazards: tuple[str, ...] = ()
    stopped_because: str = ""
    winner_why: str = ""  # why the winner is not the last promoted incumbent ("" when it is)

    def body(self) -> JsonObject:
        return {"objectives": [{"metric": o.metric, "minimize": o.minimize} for o in self.objectives],
                "guardrails": list(self.guardrails), "trials": [t.body() for t in self.trials],
                "winner": self.winner.body(), "baseline": self.baseline.body(),
                "pareto": [c.body() for c in self.pareto], "confirmations": [c.body() for c in self.confirmations],
                "importances": dict(self.importances), "invocations": self.invocations,
                "hazards": list(self.hazards), "stopped_because": self.stopped_because,
                **({"winner_why": self.winner_why} if self.winner_why else {})}

    @classmethod
    def decode(cls, data: Any, version: int) -> TuneDocument:
        d = mapping(data)
        return cls(tuple(TunedObjective(str(o["metric"]), bool(o["minimize"])) for o in d.get("objectives") or ()),
                   strings(d.get("guardrails") or ()), tuple(TunedTrial.decode(t) for t in d.get("trials") or ()),
                   TunedConfig.decode(d["winner"]), TunedConfig.decode(d["baseline"]),
                   tuple(TunedConfig.decode(c) for c in d.get("pareto") or ()),
                   tuple(TunedConfirmation.decode(c) for c in d.get("confirmations") or ()),
                   {str(k): float(v) for k, v in mapping(d.get("importances") or {}).items()},
                   int(d.get("invocations") or 0), strings(d.get("hazards") or ()), str(d.get("stopped_because") or ""),
                   str(d.get("winner_why") or ""))

    @classmethod
    def of_winner(cls, winner: TunedConfig) -> TuneDocument:
        """A result that is only a winner (what `gc advise` advised, for `apply`)."""
        return cls((), (), (), winner, winner, (), (), {}, 0)

    def confirmed_verdict(self, config: TunedConfig, against: str = "baseline") -> str | None:
        """The confirmation's verdict of ``config`` against ``against`` (None: not confirmed)."""
        return next((c.verdicts.get(against) for c in self.confirmations if c.config.flags == config.flags), None)


@dataclass(frozen=True, slots=True)
class TuneClusterDocument(Document):
    """How a tuning run was spread: blocks at a time (kept for every resume) and the nodes accepted."""

    KIND = "tune-cluster"

    width: int
    nodes: tuple[str, ...]

    def body(self) -> JsonObject:
        return {"width": self.width, "nodes": list(self.nodes)}

    @classmethod
    def decode(cls, data: Any, version: int) -> TuneClusterDocument:
        d = mapping(data)
        return cls(int(d["width"]), strings(d.get("nodes") or ()))


def _list(value: tuple[Any, ...] | None) -> list[Any] | None:
    return None if value is None else list(value)
