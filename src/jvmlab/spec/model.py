"""Typed spec records (pydantic, unknown keys forbidden).

A spec is TOML; see the README's spec reference. Field names here are the TOML keys.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from jvmlab.errors import UserError
from jvmlab.spec.durations import parse_size_bytes
from jvmlab.spec.flags import Flags, Seconds, Strict
from jvmlab.spec.hooks import HookFields, bare_strings_need_shell

FACTOR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
# A level may start with a digit and hold "=" (a one-liner's level is named by what differs:
# "TieredStopAtLevel=1", a scan's value "1"); the cell name still reads "jvm factor=level".
LEVEL_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.=-]*$")
RESERVED_FACTORS = {"jvm", "revision"}  # "revision": the [revisions] factor
# The most cells a matrix (or a one-liner's scan) may have: each cell is at least a few fresh
# JVMs per block, so beyond this a run would take days; refused before any expansion.
MAX_CELLS = 1000


def check_cells(counts: dict[str, int], what: str = "the matrix") -> int:
    """The product of the level counts, refused in one line naming it when above MAX_CELLS
    (``the matrix has jvm (2) x gc (300) x heap (300) = 180000 cells``). Counts only: nothing is expanded."""
    total = 1
    for n in counts.values():
        total *= max(n, 0)
    if total > MAX_CELLS:
        product = " x ".join(f"{name} ({n})" for name, n in counts.items() if n != 1)
        raise UserError(f"{what} has {product} = {total} cells, more than the {MAX_CELLS} jvmlab runs (each a few "
                        f"fresh JVMs per block); split it into several experiments")
    return total


def _level(value: Any) -> Any:
    """A level is flags (string or list) or a table {flags, args, env}."""
    return value if isinstance(value, dict) else {"flags": value}


class Level(Strict):
    """One level of a factor: JVM flags, and optionally program arguments and environment
    added to the workload's (``large = { flags = "-Xmx4g", args = ["--mb", "512"] }``)."""

    flags: Flags = Field(default_factory=list)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    # An archive made by a training run before the measured runs (docs/scenarios.md); the older
    # spelling, a "@cds-archive" pseudo-flag among the flags, is parsed into the same typed field.
    prepare: Literal["cds-archive", "aot-cache", "shared-classes", "readynow"] | None = None


LevelValue = Annotated[Level, BeforeValidator(_level)]


def _jmh_params(value: Any) -> Any:
    """JMH @Param values: ``{ size = [10, 100], mode = "fast" }`` -> lists of strings."""
    if not isinstance(value, dict):
        return value
    out: dict[str, list[str]] = {}
    for name, given in value.items():
        items = given if isinstance(given, list) else [given]
        if not items or not all(isinstance(v, (str, int, float, bool)) for v in items):
            raise ValueError(f"params.{name}: give a value or a non-empty list of values")
        out[name] = [str(v).lower() if isinstance(v, bool) else str(v) for v in items]
    return out


WORKLOAD_KINDS = ("builtin", "main", "jar", "command", "jmh")


def measurement_only_matches(mark: str, flags: list[str] | tuple[str, ...]) -> list[str]:
    """The flags a ``[workload] measurement_only`` entry marks: itself, or ``-Dname=...`` for ``-Dname``."""
    return [f for f in flags if f == mark or (mark.startswith("-D") and "=" not in mark
                                              and f.startswith(mark + "="))]


class Workload(HookFields):
    """What to run: exactly one of builtin, main (+classpath), jar, command or jmh; and the
    hooks run around its invocations (``setup``, ``before_each``, ``after_each``, ``cleanup``)."""

    builtin: str | None = None
    main: str | None = None
    classpath: list[str] | None = None
    jar: str | None = None
    command: list[str] | None = None
    shell: bool = False
    args: list[str] = Field(default_factory=list)
    cwd: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    timeout: Seconds | None = None
    jvm_args: Flags = Field(default_factory=list)  # flags common to every cell (not in cell names)
    # jvm_args needed to measure, not to deploy (-Dlab.exitAfterStart=true): `apply` leaves them out
    measurement_only: list[str] = Field(default_factory=list)
    ready: str | None = None
    progress: str | None = None
    progress_mode: Literal["cumulative", "per-line"] = "cumulative"
    # A JMH benchmarks jar (docs/jmh.md): each invocation is one JMH fork of the selected benchmarks.
    jmh: str | None = None
    benchmarks: list[str] = Field(default_factory=list)  # JMH include regexes (none: all)
    params: Annotated[dict[str, list[str]], BeforeValidator(_jmh_params)] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _hook_strings(cls, data: Any) -> Any:
        return bare_strings_need_shell("workload", data)

    @field_validator("classpath", mode="before")
    @classmethod
    def _classpath_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("ready", "progress")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        return check_regex(value)

    @field_validator("progress")
    @classmethod
    def _progress_group(cls, value: str | None) -> str | None:
        if value is not None and "units" not in re.compile(value).groupindex:
            raise ValueError(f"progress regex {value!r} needs a named group (?P<units>...)")
        return value

    @model_validator(mode="after")
    def _exactly_one(self) -> Workload:
        given = [k for k in WORKLOAD_KINDS if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of builtin, main (with classpath), jar, command or jmh"
                             + (f" (got {', '.join(given)})" if given else ""))
        if self.main is not None and not self.classpath:
            raise ValueError("main needs a classpath")
        if self.classpath is not None and self.main is None and self.jmh is None:
            raise ValueError("classpath goes with main (or jmh)")
        if (self.benchmarks or self.params) and self.jmh is None:
            raise ValueError("benchmarks and params go with jmh = \"benchmarks.jar\"")
        if self.command is not None and not self.command:
            raise ValueError("command must be a non-empty argv list")
        for arg in self.measurement_only:
            if not measurement_only_matches(arg, self.jvm_args):
                raise ValueError(f"measurement_only: {arg!r} is none of jvm_args (give an entry of jvm_args, "
                                 f"or a property's -Dname)")
        if self.shell and self.command is None and not any(
                isinstance(h.command, str) for h in self.hooks().values()):
            raise ValueError("shell = true only applies to command (and to hooks given as strings)")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in WORKLOAD_KINDS if getattr(self, k) is not None)


class Matrix(Strict):
    """Exclude and include rules (tables of factor = level) and the baseline cell."""

    exclude: list[dict[str, str]] = Field(default_factory=list)
    include: list[dict[str, str]] = Field(default_factory=list)
    baseline: dict[str, str] | str | None = None


class Run(Strict):
    invocations: int = Field(default=10, ge=1, le=100_000)
    warmup: int = Field(default=1, ge=0, le=1_000)
    order: Literal["random-blocks", "round-robin", "sequential"] = "random-blocks"
    seed: int = 1
    timeout: Seconds = 600.0
    max_consecutive_failures: int = Field(default=5, ge=1)
    max_failures: int | None = Field(default=None, ge=1)


class Collect(Strict):
    """The [collect] table: which collectors run and their settings.

    Its collector keys are declared by the collector registry (collect/registry.py), which
    checks them when the plan is prepared; only the executor's output cap is declared here.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    output_cap_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)


class Environment(Strict):
    """Machine-level factors combined into the matrix like flag factors."""

    jdk_location: list[Literal["disk", "tmpfs"]] | None = None
    tmpfs_dir: str = "/dev/shm"
    keep_tmpfs_copy: bool = False
    page_cache: list[Literal["warm", "cold"]] | None = None
    prepare: Literal["cds-archive", "aot-cache", "shared-classes", "readynow"] | None = None
    # CPU and memory limits (a cgroup per invocation; see docs/sizing.md).
    cpus: list[Annotated[float, Field(gt=0, le=4096)]] | None = None
    memory: list[str] | None = None
    cpu_limit: Literal["quota", "cpuset"] = "quota"

    @field_validator("cpus", "memory", "jdk_location", "page_cache")
    @classmethod
    def _some_levels(cls, value: list[Any] | None, info: ValidationInfo) -> list[Any] | None:
        if value is not None and not value:
            raise ValueError(f"{info.field_name} = [] names no level: give at least one, or leave the key out")
        return value

    @field_validator("memory")
    @classmethod
    def _memory_sizes(cls, value: list[str] | None) -> list[str] | None:
        for size in value or []:
            if parse_size_bytes(size) < 16 << 20:
                raise ValueError(f"memory = {size!r} is below 16m: no JVM starts in that")
        return value

    @model_validator(mode="after")
    def _whole_cpuset(self) -> Environment:
        """A cpuset holds whole CPUs; the machine-dependent bound is checked by machine/limits.py."""
        if self.cpu_limit == "cpuset":
            for cpus in self.cpus or []:
                if cpus != int(cpus):
                    raise ValueError(f"cpus = {cpus:g} with cpu_limit = \"cpuset\" needs a whole number of CPUs "
                                     f"(a fraction needs cpu_limit = \"quota\")")
        return self


from jvmlab.spec.revisions import Revisions  # noqa: E402  ([revisions], docs/bisect.md)
from jvmlab.spec.server import Load, Server, check_regex  # noqa: E402  (server/load parts, docs/servers.md)
from jvmlab.spec.tune import TuneSection  # noqa: E402  ([tune], docs/tuning.md)


class Spec(Strict):
    name: Annotated[str, Field(max_length=200)] | None = None  # the store's column holds 200
    description: str | None = None
    workload: Workload
    jvms: dict[str, str] = Field(default_factory=lambda: {"default": "default"})
    factors: dict[str, dict[str, LevelValue]] = Field(default_factory=dict)
    matrix: Matrix = Field(default_factory=Matrix)
    run: Run = Field(default_factory=Run)
    collect: Collect = Field(default_factory=Collect)
    environment: Environment = Field(default_factory=Environment)
    tune: TuneSection | None = None  # spec/tune.py; read by jvmlab.tune.space.parse_tune (docs/tuning.md)
    server: Server | None = None
    load: Load | None = None
    revisions: Revisions | None = None  # commits as a factor (spec/revisions.py, docs/bisect.md)

    @model_validator(mode="after")
    def _server_load(self) -> Spec:
        if self.load is not None and self.workload.jmh is not None:
            raise ValueError("[load] drives a server workload; a jmh workload cannot be one")
        if self.server is not None and self.load is None:
            raise ValueError("[server] needs a [load] part (the client phases to run against it)")
        return self

    @field_validator("jvms")
    @classmethod
    def _jvms(cls, value: dict[str, str]) -> dict[str, str]:
        if not value:
            raise ValueError("[jvms] is empty: name at least one JDK, e.g. default = \"default\"")
        for name in value:
            if not FACTOR_NAME.match(name):
                raise ValueError(f"JVM name {name!r} must be letters, digits, _ . -")
            if len(name) > 200:  # the store's column
                raise ValueError(f"JVM name {name[:20]}... has {len(name)} characters: give at most 200")
        return value

    @field_validator("factors")
    @classmethod
    def _factors(cls, value: dict[str, dict[str, Level]]) -> dict[str, dict[str, Level]]:
        for factor, levels in value.items():
            if not FACTOR_NAME.match(factor) or factor in RESERVED_FACTORS:
                raise ValueError(f"factor name {factor!r} must be letters, digits, _ . - and not "
                                 f"{' or '.join(repr(f) for f in sorted(RESERVED_FACTORS))}")
            if not levels:
                raise ValueError(f"[factors.{factor}] has no levels")
            for level in levels:
                if not LEVEL_NAME.match(level):
                    raise ValueError(f"level name {level!r} of factor {factor!r} must be letters, digits, _ . - =")
        return value
