"""The `[tune]` section: objectives, guardrails, a typed search space and a budget.

The spec's model (``jvmlab.spec.tune.TuneSection``) validates `[tune]`: types, ranges, unknown
keys, empty tables, conditions on unknown parameters, unknown metrics. It is read here, once,
into frozen records; what only the reading can tell (a metric no collector measures per
invocation, a condition its parameter never meets, an unknown archive preparation, a JDK not
in [jvms]) is one line and exit 2 before anything runs too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from jvmlab import metrics
from jvmlab.errors import UserError
from jvmlab.plan.template import PREPARE_MARK, split_prepare
from jvmlab.spec.durations import parse_duration_s, parse_size_bytes
from jvmlab.spec.load import describe_error
from jvmlab.spec.tune import GUARDRAIL, TuneSection
from jvmlab.tune.sources import collector_of

Kind = Literal["categorical", "int", "size", "bool", "jdk"]


@dataclass(frozen=True)
class Objective:
    metric: str
    minimize: bool


@dataclass(frozen=True)
class Guardrail:
    """``metric <= value`` (absolute, in the metric's unit) or ``<= factor x baseline``."""

    metric: str
    at_most: bool
    value: float
    relative: bool
    text: str

    def holds(self, value: float, baseline: float | None) -> bool:
        bound = self.value * baseline if self.relative and baseline is not None else self.value
        return value <= bound if self.at_most else value >= bound


@dataclass(frozen=True)
class Param:
    """One typed parameter and how its value becomes flags."""

    name: str
    kind: Kind
    choices: tuple[str, ...] = ()  # categorical / jdk: value names
    choice_flags: dict[str, tuple[str, ...]] = field(default_factory=dict)
    low: int = 0
    high: int = 0
    log: bool = False
    step: int = 1
    template: str = ""  # int/size: "-Xmx{}"; bool: the flag when true
    off_flag: str = ""  # bool: the flag when false ("" = nothing)
    when: dict[str, tuple[str, ...]] = field(default_factory=dict)  # other param -> allowed values

    def active(self, values: dict[str, Any]) -> bool:
        return all(value_text(values.get(p)) in allowed for p, allowed in self.when.items())

    def flags(self, value: Any) -> tuple[str, ...]:
        if self.kind == "categorical":
            return self.choice_flags[str(value)]
        if self.kind == "jdk":
            return ()
        if self.kind == "bool":
            flag = self.template if value else self.off_flag
            return (flag,) if flag else ()
        text = size_text(int(value)) if self.kind == "size" else str(int(value))
        return (self.template.replace("{}", text),)

    def grid(self, points: int = 6) -> list[Any]:
        """Values a full grid would try (categoricals all; ranges ``points`` log/linear steps)."""
        if self.kind in ("categorical", "jdk"):
            return list(self.choices)
        if self.kind == "bool":
            return [False, True]
        if self.log:
            raw = [self.low * (self.high / self.low) ** (i / (points - 1)) for i in range(points)]
        else:
            raw = [self.low + (self.high - self.low) * i / (points - 1) for i in range(points)]
        return sorted({self.low + round((v - self.low) / self.step) * self.step for v in raw})


@dataclass(frozen=True)
class Budget:
    trials: int | None
    invocations: int | None
    wall_s: float | None


@dataclass(frozen=True)
class TuneConfig:
    objectives: tuple[Objective, ...]
    guardrails: tuple[Guardrail, ...]
    params: tuple[Param, ...]
    budget: Budget
    baseline_flags: tuple[str, ...]
    seed: int = 1
    min_blocks: int = 3
    max_blocks: int = 30
    confirm_max_blocks: int = 40
    confirm_ci_pct: float = 2.0

    @property
    def multi(self) -> bool:
        return len(self.objectives) > 1

    def flags(self, values: dict[str, Any]) -> tuple[str, ...]:
        return tuple(f for p in self.params if p.name in values for f in p.flags(values[p.name]))


def size_text(n_bytes: int) -> str:
    """A byte count as a JVM size: whole gigabytes as ``2g``, else megabytes (``768m``)."""
    mb = max(1, round(n_bytes / (1 << 20)))
    return f"{mb // 1024}g" if mb % 1024 == 0 else f"{mb}m"


def parse_tune(section: TuneSection | dict[str, Any] | None,
               jvm_names: tuple[str, ...] = ("default",)) -> TuneConfig:
    """Read `[tune]` (validated by the spec's model, ``jvmlab.spec.tune``) into a TuneConfig or
    raise one UserError line."""
    if not section:
        raise UserError("the spec has no [tune] section: add objective, [tune.params.*] and a budget "
                        "(see docs/tuning.md)")
    if isinstance(section, dict):
        try:
            section = TuneSection.model_validate(section)
        except ValidationError as err:
            raise UserError(describe_error(err, TuneSection, ("tune",))) from None
    table = section.table()
    objectives = _objectives(table.get("objective", "wall_s"), table.get("direction"))
    guardrails = tuple(_guardrail(g) for g in _as_list(table.get("guardrails", [])))
    params = _params(table.get("params") or {}, jvm_names)
    b = table["budget"]  # TuneSection: at least one limit
    budget = Budget(int(b["trials"]) if "trials" in b else None, int(b["invocations"]) if "invocations" in b else None,
                    parse_duration_s(b["wall"]) if "wall" in b else None)
    baseline = table.get("baseline", "")
    base_flags = tuple(baseline.split() if isinstance(baseline, str) else baseline)
    ints = {k: int(table[k]) for k in ("seed", "min_blocks", "max_blocks", "confirm_max_blocks") if k in table}
    return TuneConfig(objectives, guardrails, params, budget, base_flags,
                      confirm_ci_pct=float(table.get("confirm_ci_pct", 2.0)), **ints)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _objectives(objective: Any, direction: Any) -> tuple[Objective, ...]:
    names = _as_list(objective)
    dirs = _as_list(direction) if direction is not None else [None] * len(names)
    out = []
    for name, d in zip(names, dirs, strict=True):
        collector_of(str(name))  # a metric measured per invocation (which collector: checked by flow)
        minimize = metrics.get(name).lower_is_better if d is None else d == "minimize"
        out.append(Objective(str(name), minimize))
    return tuple(out)


def _guardrail(text: Any) -> Guardrail:
    m = GUARDRAIL.match(str(text))
    assert m is not None  # TuneSection matched it
    metric = m["metric"]
    collector_of(metric)
    value = float(m["value"])
    unit = (m["unit"] or "").lower()
    if unit in ("k", "kb", "m", "mb", "g", "gb"):
        value = float(parse_size_bytes(f"{m['value']}{unit[0]}"))
    elif unit == "ms":
        value /= 1000.0
    return Guardrail(metric, m["op"] == "<=", value, bool(m["rel"]), str(text))


def _params(table: dict[str, Any], jvm_names: tuple[str, ...]) -> tuple[Param, ...]:
    params = [_param(name, body, jvm_names) for name, body in table.items()]
    names = {p.name: p for p in params}
    for p in params:
        for other, allowed in p.when.items():
            possible = {value_text(v) for v in names[other].grid()}
            if not set(allowed) & possible:
                raise UserError(f"[tune.params.{p.name}] when {other} = {list(allowed)}: "
                                f"{other} never takes that value, so {p.name} is never used")
    return tuple(params)


def _param(name: str, body: dict[str, Any], jvm_names: tuple[str, ...]) -> Param:
    kind = body["type"]
    when = {k: tuple(str(x).lower() if isinstance(x, bool) else str(x) for x in _as_list(v))
            for k, v in (body.get("when") or {}).items()}
    if kind in ("categorical", "jdk"):
        values = body.get("values") or (list(jvm_names) if kind == "jdk" else None)
        if not values:
            raise UserError(f"[tune.params.{name}] has no values")
        if isinstance(values, dict):
            flags = {str(k): _choice_flags(name, str(k), v) for k, v in values.items()}
        else:
            flags = {str(v): () for v in values}
        if kind == "jdk" and (bad := [v for v in flags if v not in jvm_names]):
            raise UserError(f"[tune.params.{name}] JDK {bad[0]!r} is not in [jvms] ({', '.join(jvm_names)})")
        return Param(name, kind, tuple(flags), flags, when=when)
    if kind == "bool":
        flag = body["flag"]
        off = body.get("off", flag.replace("-XX:+", "-XX:-", 1) if flag.startswith("-XX:+") else "")
        return Param(name, "bool", template=flag, off_flag=off, when=when)
    if kind in ("int", "size"):
        return _range(name, kind, body, when)
    raise UserError(f"[tune.params.{name}] type {kind!r}: use categorical, int, size, bool or jdk")


def _choice_flags(name: str, value: str, body: Any) -> tuple[str, ...]:
    """A categorical value's flags: a string, a list, or ``{ flags = "...", prepare = "cds-archive" }``
    (the archive is made for each configuration with that value before it runs; the older
    ``@cds-archive`` mark among the flags says the same)."""
    prepare = None
    if isinstance(body, dict):
        prepare, body = body.get("prepare"), body.get("flags", "")
    flags = tuple(body.split() if isinstance(body, str) else (str(f) for f in body))
    flags = (*flags, f"{PREPARE_MARK}{prepare}") if prepare else flags
    try:
        split_prepare(f"{name}={value}", flags, None)
    except UserError as err:
        raise UserError(f"[tune.params.{name}] value {value!r}: {err}") from None
    return flags


def _range(name: str, kind: Kind, body: dict[str, Any], when: dict[str, tuple[str, ...]]) -> Param:
    conv = (lambda v: parse_size_bytes(str(v))) if kind == "size" else int
    step = int(conv(body["step"])) if "step" in body else (1 << 20 if kind == "size" else 1)
    return Param(name, kind, low=int(conv(body["low"])), high=int(conv(body["high"])), log=bool(body.get("log")),
                 step=max(1, step), template=body["flag"], when=when)


def grid_points(config: TuneConfig, points: int = 6) -> list[dict[str, Any]]:
    """Every point of a full grid of the space (conditions respected: an inactive parameter is left out)."""
    combos: list[dict[str, Any]] = [{}]
    for p in config.params:
        nxt: list[dict[str, Any]] = []
        for c in combos:
            nxt.extend({**c, p.name: v} for v in p.grid(points)) if p.active(c) else nxt.append(c)
        combos = nxt
    return combos


def grid_size(config: TuneConfig, points: int = 6) -> int:
    """How many cells a full grid of the space holds (conditions respected)."""
    return len(grid_points(config, points))


def value_text(value: Any) -> str:
    """A parameter value as conditions and keys spell it (booleans lower-case)."""
    return str(value).lower() if isinstance(value, bool) else str(value)
