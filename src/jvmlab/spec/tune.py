"""The `[tune]` section as typed records, validated with the rest of the spec.

Every type, range and cross-reference a spec file can get wrong (a budget of 0, ``low = "a"``
for an int parameter, a condition on a parameter that does not exist, a guardrail on a metric
nobody measures) is refused here, so `check` and `tune` say the same one line before anything
runs. What needs the plan (which collectors are on, which JDK accepts a flag) is checked by
``jvmlab.tune.flow``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Discriminator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from jvmlab import metrics
from jvmlab.errors import UserError
from jvmlab.spec.durations import parse_size_bytes
from jvmlab.spec.flags import Flags, Seconds, Strict

# ``metric <= 1.1x baseline``, ``wall_s <= 500ms``, ``max_rss_bytes <= 512m``
GUARDRAIL = re.compile(r"^\s*(?P<metric>[A-Za-z_][\w.]*)\s*(?P<op><=|>=)\s*(?P<value>[0-9.eE+-]+)"
                       r"\s*(?P<rel>x\s*baseline)?\s*(?P<unit>ms|s|[kmg]b?|bytes)?\s*$")
PARAM_KINDS = ("categorical", "int", "size", "bool", "jdk")


def _size(value: Any) -> int | str:
    """A size as the user wrote it (``"512m"`` or a byte count), checked here, read by the tuner."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError("a size such as \"512m\", \"2g\" or a byte count")
    parse_size_bytes(str(value))  # ValueError with the reason
    return value


Scalar = StrictStr | StrictInt | float | StrictBool
Size = Annotated[int | str, BeforeValidator(_size)]
Positive = Annotated[StrictInt, Field(ge=1)]


class TuneBudget(Strict):
    """When the search stops: whichever limit comes first."""

    trials: Positive | None = None
    invocations: Positive | None = None
    wall: Seconds | None = None  # at most a week, as every duration

    @model_validator(mode="after")
    def _some(self) -> TuneBudget:
        if self.trials is None and self.invocations is None and self.wall is None:
            raise ValueError("is empty: give trials, invocations or wall (e.g. trials = 30)")
        return self


class _Param(Strict):
    when: dict[str, Scalar | list[Scalar]] = Field(default_factory=dict)


class ChoiceTable(Strict):
    """A categorical value as a table: its flags and an archive to prepare."""

    flags: Flags = Field(default_factory=list)
    prepare: StrictStr | None = None


def _choices(value: Any) -> Any:
    """``["a", "b"]`` (names only), ``{ a = "-XX:+A" }`` or ``{ a = { flags = ..., prepare = ... } }``:
    all become name -> table, so one shape is validated and read."""
    if isinstance(value, list):
        if not all(isinstance(v, (str, int, float, bool)) for v in value):
            raise ValueError("values must be names (strings or numbers) or a table of name = flags")
        return {str(v): {} for v in value}
    if isinstance(value, dict):
        return {str(k): v if isinstance(v, dict) else {"flags": v} for k, v in value.items()}
    raise ValueError("values must be a list of names or a table of name = flags")


class CategoricalParam(_Param):
    type: Literal["categorical"]
    values: Annotated[dict[str, ChoiceTable], BeforeValidator(_choices), Field(min_length=1)]


class JdkParam(_Param):
    type: Literal["jdk"]
    values: Annotated[list[StrictStr], Field(min_length=1)] | None = None


class BoolParam(_Param):
    type: Literal["bool"]
    flag: Annotated[StrictStr, Field(min_length=2)]
    off: StrictStr | None = None


def _template(value: str) -> str:
    if "{}" not in value:
        raise ValueError(f"flag {value!r} needs {{}} for the value, e.g. \"-Xmx{{}}\"")
    return value


class IntParam(_Param):
    type: Literal["int"]
    flag: Annotated[StrictStr, BeforeValidator(_template)]
    low: StrictInt
    high: StrictInt
    step: Positive | None = None
    log: StrictBool = False

    @model_validator(mode="after")
    def _range(self) -> IntParam:
        _check_range(self.low, self.high, self.log)
        if self.log and self.step not in (None, 1):
            raise ValueError("log scale takes no step")
        return self


class SizeParam(_Param):
    type: Literal["size"]
    flag: Annotated[StrictStr, BeforeValidator(_template)]
    low: Size
    high: Size
    step: Size | None = None
    log: StrictBool = False

    @model_validator(mode="after")
    def _range(self) -> SizeParam:
        _check_range(parse_size_bytes(str(self.low)), parse_size_bytes(str(self.high)), self.log)
        if self.step is not None and parse_size_bytes(str(self.step)) < 1:
            raise ValueError("step must be at least one byte")
        return self


def _check_range(low: int, high: int, log: bool) -> None:
    if low >= high:
        raise ValueError(f"range {low}..{high} is empty: low must be below high")
    if log and low <= 0:
        raise ValueError("a log-scale range must start above 0")


def _kind(value: Any) -> str | None:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if kind in PARAM_KINDS else None


Param = Annotated[
    Annotated[CategoricalParam, Tag("categorical")] | Annotated[IntParam, Tag("int")]
    | Annotated[SizeParam, Tag("size")] | Annotated[BoolParam, Tag("bool")] | Annotated[JdkParam, Tag("jdk")],
    Discriminator(_kind, custom_error_type="param_type",
                  custom_error_message="needs type = \"categorical\", \"int\", \"size\", \"bool\" or \"jdk\""),
]


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def check_metric(name: str) -> str:
    """A metric the registry knows (or a run-time family such as ``workload.*``); ValueError if not."""
    try:
        metrics.get(name)
    except UserError as err:
        raise ValueError(str(err)) from None
    return name


class TuneSection(Strict):
    """``[tune]``: objective(s), guardrails, the parameters, a budget and the race's settings."""

    objective: StrictStr | Annotated[list[StrictStr], Field(min_length=1)] = "wall_s"
    direction: Literal["minimize", "maximize"] | list[Literal["minimize", "maximize"]] | None = None
    guardrails: StrictStr | list[StrictStr] = Field(default_factory=list)
    params: dict[str, Param]
    budget: TuneBudget
    baseline: Flags = Field(default_factory=list)
    seed: Annotated[StrictInt, Field(ge=0, le=2**32 - 1)] = 1  # numpy and Optuna seeds are 32-bit
    min_blocks: Annotated[StrictInt, Field(ge=2, le=1000)] = 3
    max_blocks: Annotated[StrictInt, Field(ge=2, le=1000)] = 30
    confirm_max_blocks: Annotated[StrictInt, Field(ge=2, le=1000)] = 40
    confirm_ci_pct: Annotated[float, Field(gt=0, le=50)] = 2.0

    @field_validator("confirm_ci_pct", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("a percentage such as 2 or 0.5")
        return value

    @field_validator("params", "budget", mode="before")
    @classmethod
    def _tables(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, dict):
            example = "[tune.budget] trials = 30" if info.field_name == "budget" else "[tune.params.gc] type = ..."
            raise ValueError(f"must be a table ({example}), not {type(value).__name__} {value!r}")
        return value

    @field_validator("params")
    @classmethod
    def _some_params(cls, value: dict[str, Any]) -> dict[str, Any]:
        if not value:
            raise ValueError("is empty: nothing to search (add e.g. [tune.params.gc])")
        return value

    @field_validator("objective")
    @classmethod
    def _objectives(cls, value: str | list[str]) -> str | list[str]:
        for name in _as_list(value):
            check_metric(name)
        return value

    @field_validator("guardrails")
    @classmethod
    def _guardrails(cls, value: str | list[str]) -> str | list[str]:
        for text in _as_list(value):
            m = GUARDRAIL.match(text)
            if not m:
                raise ValueError(f"guardrail {text!r}: write e.g. \"max_rss_bytes <= 1.1x baseline\" "
                                 "or \"wall_s <= 5\"")
            check_metric(m["metric"])
        return value

    @model_validator(mode="after")
    def _cross(self) -> TuneSection:
        if self.min_blocks > self.max_blocks:
            raise ValueError(f"min_blocks = {self.min_blocks} is above max_blocks = {self.max_blocks}")
        if self.direction is not None and len(_as_list(self.direction)) != len(_as_list(self.objective)):
            raise ValueError("objective and direction must have the same length")
        for name, param in self.params.items():
            for other in param.when:
                if other == name or other not in self.params:
                    raise ValueError(f"[tune.params.{name}] when: unknown parameter {other!r}"
                                     f" (parameters: {', '.join(n for n in self.params if n != name)})")
        cycle = _when_cycle({name: list(param.when) for name, param in self.params.items()})
        if cycle:
            raise ValueError(f"the when conditions {' -> '.join(cycle)} form a cycle: each waits for the other, "
                             f"so none is ever tried; make one of them unconditional")
        return self

    def table(self) -> dict[str, Any]:
        """The section as plain TOML-shaped data (what ``jvmlab.tune.space`` reads)."""
        return self.model_dump(exclude_none=True)


def _when_cycle(depends: dict[str, list[str]]) -> list[str]:
    """A cycle of ``when`` conditions (``a -> b -> a``), or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(name: str, path: list[str]) -> list[str]:
        state[name] = 1
        for other in depends.get(name, []):
            if state.get(other) == 1:
                return [*path[path.index(other):], other]
            if other not in state:
                found = walk(other, [*path, other])
                if found:
                    return found
        state[name] = 2
        return []

    for start in depends:
        if start not in state:
            found = walk(start, [start])
            if found:
                return found
    return []
