"""The collector registry: every collector is declared here once, and everything else reads it.

The spec's ``[collect]`` keys and their validation, the ``--collect``/``--no-collect`` names
and help, the default on/off of each collector, the table in ``docs/collectors.md`` (checked
by a test) and the runner's list of collectors all derive from :data:`REGISTRY`.

A new collector is one module plus one registration line below::

    register(CollectorEntry("mine", "what it adds", "`mine.x`", build="jvmlab.collect.mine:build"))

where ``build(ctx: BuildContext) -> Collector | None`` lives in the new module. A ``build``
given as ``"module:function"`` is imported only when the collector is switched on, so the
command line does not pay for heavy collectors (the progress collector imports ruptures).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jvmlab.collect.base import Collector
from jvmlab.errors import UserError, did_you_mean

if TYPE_CHECKING:  # the pydantic spec model costs ~70 ms to import: `jvmlab --help` must not pay it
    from jvmlab.spec.model import Collect

Value = bool | int | str


@dataclass(frozen=True)
class Option:
    """A setting of a collector besides its on/off switch (``proc_interval_ms``)."""

    key: str  # the [collect] key
    default: int | str | bool
    help: str
    choices: tuple[str, ...] = ()  # for a string: the values allowed
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class BuildContext:
    """What a collector's ``build`` may read: the resolved settings and the workload."""

    settings: CollectSettings
    progress_regex: str | None = None
    progress_mode: str = "cumulative"
    jmh: bool = False
    built: Mapping[str, Collector] = field(default_factory=dict)  # collectors built before this one


Builder = Callable[[BuildContext], Collector | None]


@dataclass(frozen=True)
class CollectorEntry:
    """One collector as the spec, the command line, the docs and the runner see it."""

    name: str  # the [collect] key and the --collect name
    help: str  # one line: what it adds (CLI help, docs table)
    metrics: str = ""  # the metrics it adds, for the docs table (Markdown)
    build: Builder | str = ""  # a callable, or "module:function" imported when switched on
    default_on: bool = True
    options: tuple[Option, ...] = ()
    setting: str | None = None  # the option ``--collect NAME=VALUE`` sets (jfr=profile)
    order: int = 50  # probes are called in (order, registration) order
    switchable: bool = True  # False: not a [collect] key (JMH scores are the workload's result)

    def builder(self) -> Builder:
        """The build function, importing its module now if it was named by path."""
        if callable(self.build):
            return self.build
        module, _, attr = self.build.partition(":")
        build: Builder = getattr(importlib.import_module(module), attr)
        return build


REGISTRY: dict[str, CollectorEntry] = {}


def register(entry: CollectorEntry) -> CollectorEntry:
    """Add (or replace) a collector; its spec key, CLI name and docs row follow from this."""
    taken = {o.key for e in REGISTRY.values() if e.name != entry.name for o in e.options}
    clash = ({entry.name} | {o.key for o in entry.options}) & (taken | set(REGISTRY) - {entry.name})
    if clash or entry.name in RESERVED_KEYS:
        raise ValueError(f"collector {entry.name!r}: key {sorted(clash) or entry.name} is taken")
    if entry.setting and entry.setting not in {o.key for o in entry.options}:
        raise ValueError(f"collector {entry.name!r}: setting {entry.setting!r} is not one of its options")
    REGISTRY[entry.name] = entry
    return entry


# [collect] keys that are not collectors: the executor's output cap (spec/model.py Collect).
RESERVED_KEYS = frozenset({"output_cap_bytes"})


def entries() -> list[CollectorEntry]:
    """Collectors in probe order."""
    index = {name: i for i, name in enumerate(REGISTRY)}
    return sorted(REGISTRY.values(), key=lambda e: (e.order, index[e.name]))


def switchable() -> list[CollectorEntry]:
    return [e for e in entries() if e.switchable]


def names() -> list[str]:
    """The names ``--collect`` and the ``[collect]`` table accept as switches."""
    return [e.name for e in switchable()]


def defaults() -> dict[str, Value]:
    """Every [collect] key this registry knows, with its default."""
    out: dict[str, Value] = {}
    for e in switchable():
        out[e.name] = e.default_on
        out.update({o.key: o.default for o in e.options})
    return out


def _option(key: str) -> Option | None:
    return next((o for e in REGISTRY.values() for o in e.options if o.key == key), None)


def check_value(key: str, value: object, where: str = "[collect]") -> Value:
    """One [collect] value checked against its declaration; a UserError names key and rule."""
    known = defaults()
    if key not in known:
        raise UserError(f"unknown key {key!r} in {where}{did_you_mean(key, [*known, *RESERVED_KEYS])}; "
                        f"collectors: {', '.join(names())}")
    option = _option(key)
    expected = type(known[key])
    if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise UserError(f"{where} {key}: must be a whole number (got {value!r})")
    if expected is not int and not isinstance(value, expected):
        raise UserError(f"{where} {key}: must be {'true or false' if expected is bool else 'a string'} "
                        f"(got {value!r})")
    if option is not None:
        if option.choices and value not in option.choices:
            raise UserError(f"{where} {key}: choose {' or '.join(option.choices)} (got {value!r})")
        if option.minimum is not None and isinstance(value, int) and value < option.minimum:
            raise UserError(f"{where} {key}: must be at least {option.minimum} (got {value!r})")
        if option.maximum is not None and isinstance(value, int) and value > option.maximum:
            raise UserError(f"{where} {key}: must be at most {option.maximum} (got {value!r})")
    assert isinstance(value, bool | int | str)  # checked above: it has its default's type
    return value


@dataclass(frozen=True, init=False)
class CollectSettings:
    """Resolved [collect] values (defaults, then the spec, then the command line).

    Read a value as an attribute (``settings.gc``, ``settings.proc_interval_ms``). Plain data,
    so a cluster task can carry it to another machine.
    """

    values: Mapping[str, Value]

    def __init__(self, **values: Value) -> None:
        merged = defaults()
        merged.update({key: check_value(key, value) for key, value in values.items()})
        object.__setattr__(self, "values", merged)

    def __getattr__(self, key: str) -> Value:
        if key.startswith("_") or key == "values":
            raise AttributeError(key)
        try:
            return self.values[key]
        except KeyError:
            raise AttributeError(f"no collector setting {key!r}") from None

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.values.items())))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_settings, (dict(self.values),))


    @classmethod
    def from_spec(cls, collect: Collect | Mapping[str, Value],
                  overrides: Mapping[str, Value] | None = None) -> CollectSettings:
        """From the spec's ``[collect]`` table (the keys it set) and command-line overrides."""
        return cls(**{**spec_values(collect), **(overrides or {})})


def _settings(values: dict[str, Value]) -> CollectSettings:
    return CollectSettings(**values)


def spec_values(collect: Collect | Mapping[str, Value]) -> dict[str, Value]:
    """The collector keys a spec's [collect] table set (its other keys are not collectors')."""
    data = dict(collect) if isinstance(collect, Mapping) else collect.model_dump()
    return {key: value for key, value in data.items() if key not in RESERVED_KEYS}


def check_table(collect: Collect | Mapping[str, Value], origin: str = "spec") -> CollectSettings:
    """Validate a spec's [collect] table: one line naming the file, key and rule on a problem."""
    try:
        return CollectSettings.from_spec(collect)
    except UserError as err:
        raise UserError(f"{origin}: {err}") from None


def parse_overrides(enable: Iterable[str], disable: Iterable[str]) -> dict[str, Value]:
    """``--collect gc``, ``--no-collect proc``, ``--collect jfr=profile`` -> settings."""
    out: dict[str, Value] = {}
    for given, on in ((enable, True), (disable, False)):
        for text in given:
            key, _, value = text.replace("-", "_").partition("=")
            entry = REGISTRY.get(key)
            if entry is None or not entry.switchable:
                raise UserError(f"unknown collector {text!r}{did_you_mean(key, names())}; "
                                f"choose from {', '.join(names())}")
            if value:
                out.update(_setting(entry, text, value if on else None))
            out[key] = on
    return out


def _setting(entry: CollectorEntry, text: str, value: str | None) -> dict[str, Value]:
    """``--collect jfr=profile``: the value of the one option a collector lets the CLI set."""
    option = _option(entry.setting) if entry.setting else None
    if option is None or value is None:
        takes = [(e.name, _option(e.setting)) for e in switchable() if e.setting]
        examples = [f"{name}={choice}" for name, o in takes if o is not None for choice in o.choices]
        raise UserError(f"--collect {text}: only {' and '.join(n for n, _ in takes) or 'no collector'} takes a "
                        f"setting ({' or '.join(examples)})")
    raw = text.partition("=")[2]
    if option.choices and raw not in option.choices:
        raise UserError(f"--collect {text}: choose {' or '.join(option.choices)}")
    parsed: Value = raw
    if isinstance(option.default, bool):
        parsed = {"true": True, "false": False}.get(raw.lower(), raw)
    elif isinstance(option.default, int):
        parsed = int(raw) if raw.lstrip("-").isdigit() else raw
    return {option.key: check_value(option.key, parsed, f"--collect {entry.name}=")}


def override_args(overrides: Mapping[str, Value]) -> tuple[list[str], list[str]]:
    """The ``--collect`` / ``--no-collect`` values that give these overrides again
    (``{"jfr": True, "jfr_settings": "profile"}`` -> ``["jfr=profile"]``): stored with a run
    and repeated by the resume command."""
    enable, disable = [], []
    for name, on in sorted(overrides.items()):
        entry = REGISTRY.get(name)
        if entry is None:
            continue  # an option key: written with its collector below
        if not on:
            disable.append(name)
            continue
        value = overrides.get(entry.setting) if entry.setting else None
        enable.append(f"{name}={value}" if value is not None else name)
    return enable, disable


def from_record(enable: Iterable[str], disable: Iterable[str]) -> dict[str, Value]:
    """Overrides from stored ``--collect`` values; names no longer registered, and option
    keys that older runs stored as names (``jfr_settings``), are left out."""
    def known(items: Iterable[str]) -> list[str]:
        return [i for i in items if i.replace("-", "_").partition("=")[0] in REGISTRY]
    return parse_overrides(known(enable), known(disable))


def cli_help() -> str:
    """The ``--collect`` help: the registry's names, opt-in ones marked."""
    parts = [e.name + ("" if e.default_on else " (off by default)") for e in switchable()]
    options = [(e.name, _option(e.setting)) for e in switchable() if e.setting]
    settings = [f"{name}={v}" for name, o in options if o is not None for v in o.choices]
    return ("Switch a collector on: " + ", ".join(parts)
            + (f"; {', '.join(settings)} picks a setting" if settings else "") + ".")


def build_collectors(settings: CollectSettings, progress_regex: str | None,
                     progress_mode: str = "cumulative", jmh: bool = False) -> list[Collector]:
    """The collectors switched on, in probe order (a later one may read those before it)."""
    built: dict[str, Collector] = {}
    for entry in entries():
        if entry.switchable and not settings.values.get(entry.name):
            continue
        ctx = BuildContext(settings, progress_regex, progress_mode, jmh, dict(built))
        collector = entry.builder()(ctx)
        if collector is not None:
            built[entry.name] = collector
    return list(built.values())


def _toml(value: Value) -> str:
    return str(value).lower() if isinstance(value, bool) else f'"{value}"' if isinstance(value, str) else str(value)


def docs_table() -> str:
    """The Markdown table of docs/collectors.md, generated from the registry (a test checks it)."""
    lines = ["| `[collect]` key / `--collect` name | default | adds | settings | metrics |", "|---|---|---|---|---|"]
    for e in switchable():
        settings = "; ".join(f"`{o.key} = {_toml(o.default)}`: {o.help}"
                             + (f" ({' or '.join(o.choices)}" + (f"; `--collect {e.name}=VALUE`" if o.key == e.setting
                                                                 else "") + ")" if o.choices else "")
                             for o in e.options)
        lines.append(f"| `{e.name}` | {'on' if e.default_on else 'off'} | {e.help} | {settings or '-'} | "
                     f"{e.metrics or '-'} |")
    return "\n".join(lines)


# The built-in collectors, one registration line each (their builders: collect/builders.py).
_B = "jvmlab.collect.builders:"
register(CollectorEntry("jmh", "a JMH workload's scores (always on for JMH: they are its result)", "`jmh.<benchmark>`",
                        _B + "jmh", order=0, switchable=False))
register(CollectorEntry("workload_metrics", "`jvmlab-metric name=x value=1.5 unit=ms` lines the workload prints",
                        "`workload.<name>`", _B + "workload_metrics"))
register(CollectorEntry("gc", "a GC log per invocation, summarised (docs/gclog.md)",
                        "`gc.pause_*`, `gc.paused_pct`, `gc.alloc_rate_mb_s`, ...", _B + "gc",
                        options=(Option("keep_gc_logs", True, "keep each GC log (false: delete it once summarised)"),
                                 Option("gc_log", "light", "what the GC log records: light (the 9 tag sets the "
                                        "summary reads; two thirds of full's cost at each JVM's start) "
                                        "or full (`gc*`: everything)",
                                        choices=("light", "full")))))
register(CollectorEntry("proc", "/proc sampler: RSS, PSS, AnonHugePages, CPU per thread group, run-queue "
                        "delay and the machine's other load (Linux)",
                        "`mem.peak_*`, `cpu.*_share`, `sched.run_delay_s`, `sched.other_share`, `sched.steal_share`",
                        _B + "proc",
                        options=(Option("proc_interval_ms", 100, "sampling interval in ms (5 to 60000)",
                                        minimum=5, maximum=60_000),)))
register(CollectorEntry("progress", "throughput and warm-up from the workload's `progress` regex",
                        "`progress.*`", _B + "progress"))
register(CollectorEntry("jfr", "a Flight Recording per invocation, read by jvmlab's reader of the JFR "
                        "format (docs/jfr.md)",
                        "`jfr.*`", _B + "jfr", default_on=False, setting="jfr_settings",
                        options=(Option("jfr_settings", "default", "JFR settings: default is the JDK's default.jfc "
                                        "with 100-ms execution samplers (20 ms in jdk-default)",
                                        choices=("default", "jdk-default", "profile")),)))
register(CollectorEntry("startup", "`-Xlog:startuptime` and class-load phases", "`startup.*`", _B + "startup",
                        default_on=False))
register(CollectorEntry("flag_effect", "did each `-XX` flag take effect? (reads the gc and proc probes: last)",
                        "hazards, `documents[\"flag_effect\"]`", _B + "flag_effect", order=90))
