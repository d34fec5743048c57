"""JMH's JSON result (``-rf json``): one typed record per benchmark and @Param combination,
the metric name jvmlab gives it, the score of each fork, and the check that a fork ran on
the JDK and with the flags of its cell.

Used by the JMH workload's probe (one fork per invocation) and by ``jvmlab import jmh``
(every fork of a result file). Pure: parses text and compares records, starts nothing.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jvmlab.errors import UserError
from jvmlab.files import MAX_JSON_BYTES, json_refusal, read_bounded
from jvmlab.metrics import JMH_PREFIX
from jvmlab.model.documents import JmhScoreRecord, JmhSecondaryRecord

RESULT_FILE = "jmh-result.json"  # in each invocation's artifacts folder
MAIN_CLASS = "org.openjdk.jmh.Main"
# The harness JVM's only flag. JMH takes an exclusive lock on $TMPDIR/jmh.lock so that two JMH runs
# on one machine do not disturb each other's forks; with it, a second JMH on the machine (another
# user's, a jvmlab worker's) fails every invocation. jvmlab owns the forks and watches the machine
# between blocks (other processes' CPU is a stored hazard), so it runs past the lock, as JMH's own
# `-Djmh.ignoreLock=true` allows.
HARNESS_FLAGS = ("-Djmh.ignoreLock=true",)
THROUGHPUT_MODES = ("thrpt",)
MODES = ("thrpt", "avgt", "sample", "ss")
# JMH options jvmlab sets itself: each invocation is one fork, its JSON goes to the artifacts
# folder, and the fork's JVM flags are the cell's (so they can be verified).
OWNED_OPTIONS = ("-f", "-rf", "-rff", "-jvm", "-jvmArgs", "-jvmArgsAppend", "-jvmArgsPrepend",
                 "-l", "-lp", "-lrf", "-lprof", "-h")


@dataclass(frozen=True)
class JmhSecondary:
    """A profiler's metric of a benchmark (``-prof gc``: ``gc.alloc.rate.norm`` in B/op ...)."""

    name: str
    unit: str
    fork_scores: tuple[float, ...]


@dataclass(frozen=True)
class JmhBenchmark:
    """One benchmark x @Param combination x mode of a JMH result file."""

    benchmark: str  # JMH's full name, e.g. org.openjdk.jmh.samples.JMHSample_01_HelloWorld.wellHelloThere
    mode: str  # thrpt, avgt, sample, ss
    params: tuple[tuple[str, str], ...]  # sorted (name, value)
    unit: str  # JMH's score unit, e.g. "ops/s", "us/op"
    score: float | None  # JMH's score over all forks
    score_error: float | None  # JMH's 99.9% half-width, None when JMH gives NaN
    fork_scores: tuple[float, ...]  # mean of the measurement iterations of each fork
    iterations: int  # measurement iterations per fork
    jvm: str
    jvm_args: tuple[str, ...]
    jdk_version: str
    vm_version: str
    metric: str = ""  # jmh.<Class.method>[params], set by :func:`parse_results`
    secondary: tuple[JmhSecondary, ...] = ()

    @property
    def lower_is_better(self) -> bool:
        return self.mode not in THROUGHPUT_MODES

    def fork_metrics(self, fork: int) -> dict[str, float]:
        """Fork ``fork``'s score and its profilers' metrics (``jmh.X.run:gc.alloc.rate.norm``)."""
        out = {self.metric: self.fork_scores[fork]} if fork < len(self.fork_scores) else {}
        out.update({f"{self.metric}:{s.name}": s.fork_scores[fork] for s in self.secondary
                    if fork < len(s.fork_scores)})
        return out

    def units(self) -> dict[str, str]:
        return {self.metric: self.unit, **{f"{self.metric}:{s.name}": s.unit for s in self.secondary}}

    def record(self) -> JmhScoreRecord:
        """What the ``jmh`` document keeps of it (model/documents)."""
        return JmhScoreRecord(self.benchmark, self.mode, dict(self.params), self.unit, self.score, self.score_error,
                              self.fork_scores, self.iterations, self.lower_is_better,
                              {s.name: JmhSecondaryRecord(s.unit, s.fork_scores) for s in self.secondary})

    def to_json(self) -> dict[str, Any]:
        return self.record().body()


@dataclass(frozen=True)
class ForkCheck:
    """What a fork must have run with: the cell's JDK and flags."""

    java: Path
    jdk_version: str
    flags: tuple[str, ...]
    own_prefix: str | None = None  # flags naming this folder are jvmlab's collectors' (GC log ...)


# Flags jvmlab's collectors add that name no file of the invocation (the GC log's writer thread).
PATHLESS_COLLECTOR_FLAGS = frozenset({"-Xlog:async"})


def short_name(benchmark: str) -> str:
    """``org.openjdk.jmh.samples.JMHSample_35_Profilers.Atomic.test`` -> ``JMHSample_35_Profilers.Atomic.test``:
    the package (its lower-case leading parts) dropped, as JMH's own table shows it."""
    parts = benchmark.split(".")
    first = next((i for i, p in enumerate(parts[:-1]) if p[:1].isupper()), 0)
    return ".".join(parts[first:])


def metric_name(benchmark: str, params: tuple[tuple[str, str], ...], mode: str | None = None) -> str:
    """``jmh.JMHSample_27_Params.bench[arg=1,certainty=0]`` (``@avgt`` added when one file
    measures the same benchmark in several modes)."""
    name = JMH_PREFIX + benchmark
    if params:
        name += "[" + ",".join(f"{k}={v}" for k, v in params) + "]"
    return name + (f"@{mode}" if mode else "")


def parse_results(text: str, source: str) -> list[JmhBenchmark]:
    """Parse a JMH JSON result; UserError (one line) when it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise UserError(f"{source}: not JSON ({err.msg} at line {err.lineno}); write it with -rf json") from None
    except (RecursionError, ValueError) as err:  # nested too deep; an integer of over 4300 digits
        raise UserError(f"{source}: not JMH's JSON ({json_refusal(err)}); write it with -rf json") from None
    if not isinstance(data, list) or not all(isinstance(e, dict) and "benchmark" in e for e in data):
        raise UserError(f"{source}: not a JMH JSON result (expected a list of benchmark entries)")
    entries = []
    for k, e in enumerate(data):
        try:
            entries.append(_entry(e, source))
        except (TypeError, ValueError, AttributeError, KeyError) as err:  # a field of the wrong shape
            raise UserError(f"{source}: benchmark entry {k} ({e.get('benchmark')!r}) is not JMH's JSON shape: "
                            f"{type(err).__name__}: {err}") from None
    return _named(entries)


def read_results(path: Path) -> list[JmhBenchmark]:
    try:
        text = read_bounded(path, "JMH result", MAX_JSON_BYTES).decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserError(f"{path}: not UTF-8 text (byte {err.start}); is it a binary file? "
                        f"Give JMH's -rf json result") from None
    return parse_results(text, str(path))


def _named(entries: list[JmhBenchmark]) -> list[JmhBenchmark]:
    """Give each entry its metric name: short class names unless two benchmarks collide."""
    shorts: dict[str, set[str]] = {}
    for e in entries:
        shorts.setdefault(short_name(e.benchmark), set()).add(e.benchmark)
    modes: dict[tuple[str, tuple[tuple[str, str], ...]], set[str]] = {}
    for e in entries:
        modes.setdefault((e.benchmark, e.params), set()).add(e.mode)
    out = []
    for e in entries:
        short = short_name(e.benchmark)
        base = short if len(shorts[short]) == 1 else e.benchmark
        mode = e.mode if len(modes[(e.benchmark, e.params)]) > 1 else None
        out.append(JmhBenchmark(**{**e.__dict__, "metric": metric_name(base, e.params, mode)}))
    return out


def _entry(e: dict[str, Any], source: str) -> JmhBenchmark:
    primary = e.get("primaryMetric")
    mode = str(e.get("mode", ""))
    if not isinstance(primary, dict) or mode not in MODES:
        raise UserError(f"{source}: benchmark {e.get('benchmark')!r} has no primaryMetric or an unknown "
                        f"mode {mode!r}")
    params = tuple(sorted((str(k), str(v)) for k, v in (e.get("params") or {}).items()))
    forks = _fork_scores(primary)
    iterations = int(e.get("measurementIterations") or 0)
    secondary = tuple(JmhSecondary(str(name).lstrip("·"), str(m.get("scoreUnit", "")), _fork_scores(m))
                      for name, m in (e.get("secondaryMetrics") or {}).items() if isinstance(m, dict))
    return JmhBenchmark(
        benchmark=str(e["benchmark"]), mode=mode, params=params, unit=str(primary.get("scoreUnit", "")),
        score=_number(primary.get("score")), score_error=_number(primary.get("scoreError")),
        fork_scores=forks, iterations=iterations, jvm=str(e.get("jvm", "")),
        jvm_args=tuple(str(a) for a in e.get("jvmArgs") or ()), jdk_version=str(e.get("jdkVersion", "")),
        vm_version=str(e.get("vmVersion", "")), secondary=secondary)


def _number(value: Any) -> float | None:
    """JMH writes NaN as the string "NaN"; a value that is not a finite number is None."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _fork_scores(primary: dict[str, Any]) -> tuple[float, ...]:
    """Each fork's score: the mean of its measurement iterations (rawData), or for sample
    mode the count-weighted mean of its histogram (rawDataHistogram)."""
    raw = primary.get("rawData")
    if isinstance(raw, list) and raw:
        out = []
        for fork in raw:
            values = [v for v in (_number(x) for x in fork or ()) if v is not None]
            if values:
                out.append(sum(values) / len(values))
        return tuple(out)
    hist = primary.get("rawDataHistogram")
    if isinstance(hist, list):
        out = []
        for fork in hist:
            total = count = 0.0
            for iteration in fork or ():
                for value, n in iteration or ():
                    total += float(value) * float(n)
                    count += float(n)
            if count:
                out.append(total / count)
        return tuple(out)
    return ()


def check_fork(entry: JmhBenchmark, expected: ForkCheck) -> str | None:
    """Why this fork does not belong to its cell, or None when its JDK and flags are the cell's.

    The flags must be exactly the cell's, in order; the only other flags allowed are those
    naming the invocation's own folder (jvmlab's GC and class-load logs). A flag added by an
    ``@Fork(jvmArgsAppend=...)`` or a different java is a mismatch."""
    if entry.jvm and _resolved(entry.jvm) != _resolved(str(expected.java)):
        return f"{entry.metric}: the fork ran {entry.jvm}, not the cell's {expected.java}"
    if entry.vm_version and entry.vm_version != expected.jdk_version:
        return f"{entry.metric}: the fork ran JDK {entry.vm_version}, not the cell's {expected.jdk_version}"
    folder = expected.own_prefix.rstrip("/") + "/" if expected.own_prefix else None
    own = [a for a in entry.jvm_args if (folder and folder in a) or a in PATHLESS_COLLECTOR_FLAGS]
    theirs = tuple(a for a in entry.jvm_args if a not in own)
    if theirs != expected.flags:
        missing = [f for f in expected.flags if f not in theirs]
        extra = [f for f in theirs if f not in expected.flags]
        detail = "; ".join(part for part in (
            f"missing {' '.join(missing)}" if missing else "", f"added {' '.join(extra)}" if extra else "",
            "in another order" if not missing and not extra else "") if part)
        return f"{entry.metric}: the fork's jvmArgs are not the cell's flags ({detail})"
    return None


def _resolved(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except OSError:
        return path


@dataclass(frozen=True)
class JmhCommand:
    """The JMH part of a command line: what to run and the options jvmlab owns."""

    benchmarks: tuple[str, ...] = ()
    params: tuple[tuple[str, tuple[str, ...]], ...] = ()
    options: tuple[str, ...] = field(default_factory=tuple)  # the user's, passed through

    def argv(self, result_file: str, fork_flags: list[str]) -> list[str]:
        """Arguments after ``org.openjdk.jmh.Main``: one fork, JSON to ``result_file``, fail on
        error (a failed benchmark fails the invocation), the cell's flags for the fork."""
        out = [*self.benchmarks]
        for name, values in self.params:
            out += ["-p", f"{name}={','.join(values)}"]
        out += [*self.options, "-f", "1", "-rf", "json", "-rff", result_file]
        if "-foe" not in self.options:
            out += ["-foe", "true"]
        if fork_flags:
            spaced = [f for f in fork_flags if any(c.isspace() for c in f)]
            if spaced:
                raise UserError(f"JMH takes the fork's flags as one space-separated -jvmArgs string; "
                                f"these contain spaces: {spaced}; move the artifacts folder or the flag")
            out += ["-jvmArgs", " ".join(fork_flags)]
        return out


def check_options(options: list[str]) -> None:
    """Refuse JMH options that would take the forks, the result file or the fork's flags away
    from jvmlab (they would make the per-cell check meaningless)."""
    owned = [o for o in options if o in OWNED_OPTIONS]
    if owned:
        raise UserError(f"[workload] args: {' '.join(owned)} is set by jvmlab for a jmh workload (each "
                        f"invocation is one fork with the cell's flags); see docs/jmh.md")
