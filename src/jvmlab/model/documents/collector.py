"""Documents a collector stores inside one invocation: the warm-up analysis of its progress
lines (``progress``), its JFR notes (``jfr``) and collapsed stacks (``jfr.profile``), and the
/proc sampler's counts and reasons (``proc``).

Version 1 is the layout these collectors wrote before documents had versions; a part that
was not measured is not written (``present``), and reads back as None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jvmlab.model.documents.base import (
    Document,
    JsonObject,
    floats,
    mapping,
    opt,
    opt_float,
    opt_int,
    opt_str,
    present,
    strings,
    texts,
)


@dataclass(frozen=True, slots=True)
class ProgressSegment:
    """A run of throughput windows with one mean rate; ``end_s`` is where the next one starts."""

    start_s: float
    end_s: float
    windows: int
    mean_rate: float

    def body(self) -> JsonObject:
        return {"start_s": self.start_s, "end_s": self.end_s, "windows": self.windows, "mean_rate": self.mean_rate}

    @classmethod
    def decode(cls, data: Any) -> ProgressSegment:
        d = mapping(data)
        return cls(float(d["start_s"]), float(d["end_s"]), int(d["windows"]), float(d["mean_rate"]))


@dataclass(frozen=True, slots=True)
class ProgressDocument(Document):
    """The warm-up analysis of one invocation's progress lines (collect/warmup.py): its class
    (flat, warmup, slowdown, no steady state, unclassified) and why, the changepoints and
    segments, and the steady state; ``params`` is the analysis's tuning as it ran."""

    KIND = "progress"

    klass: str | None  # stored as "class"
    reason: str | None = None
    mode: str | None = None  # cumulative or per-line
    lines: int | None = None
    window_s: float | None = None
    params: JsonObject | None = None
    changepoints_s: tuple[float, ...] = ()
    segments: tuple[ProgressSegment, ...] = ()
    steady_rate: float | None = None
    warmup_s: float | None = None
    noise_sd: float | None = None

    def body(self) -> JsonObject:
        return {**present({"mode": self.mode, "lines": self.lines, "window_s": self.window_s,
                           "params": self.params, "class": self.klass, "reason": self.reason}),
                "changepoints_s": list(self.changepoints_s), "segments": [s.body() for s in self.segments],
                **present({"steady_rate": self.steady_rate, "warmup_s": self.warmup_s, "noise_sd": self.noise_sd})}

    @classmethod
    def decode(cls, data: Any, version: int) -> ProgressDocument:
        d = mapping(data)
        return cls(opt_str(d.get("class")), opt_str(d.get("reason")), opt_str(d.get("mode")), opt_int(d.get("lines")),
                   opt_float(d.get("window_s")), opt(d.get("params"), lambda p: dict(mapping(p))),
                   tuple(float(c) for c in d.get("changepoints_s") or ()),
                   tuple(ProgressSegment.decode(s) for s in d.get("segments") or ()),
                   opt_float(d.get("steady_rate")), opt_float(d.get("warmup_s")), opt_float(d.get("noise_sd")))


@dataclass(frozen=True, slots=True)
class JfrDocument(Document):
    """What one JFR recording said besides its metrics: why metrics are missing, GC phase
    totals (ms by phase; None: no phase table), the settings used and how the file was read.
    ``error`` set: the recording could not be used, every jfr metric is missing."""

    KIND = "jfr"

    error: str | None = None
    metrics: dict[str, float] | None = None
    missing: dict[str, str] | None = None
    gc_phases_ms: dict[str, float] | None = None
    recording_s: float | None = None
    settings: str | None = None  # the collector's setting: default, profile or jdk-default
    settings_argument: str | None = None  # settings= on the JVM's command line
    sampler_period: str | None = None
    settings_note: str | None = None
    file: str | None = None  # the recording, when kept
    chunks: int | None = None
    read_s: float | None = None
    reader: str | None = None
    fallbacks: tuple[str, ...] | None = None  # chunks read with the JDK's jfr print, and why

    def body(self) -> JsonObject:
        return present({"error": self.error, "metrics": self.metrics, "missing": self.missing,
                        "gc_phases_ms": self.gc_phases_ms, "recording_s": self.recording_s,
                        "settings": self.settings, "settings_argument": self.settings_argument,
                        "sampler_period": self.sampler_period, "settings_note": self.settings_note,
                        "file": self.file, "chunks": self.chunks, "read_s": self.read_s, "reader": self.reader,
                        "fallbacks": None if self.fallbacks is None else list(self.fallbacks)})

    @classmethod
    def decode(cls, data: Any, version: int) -> JfrDocument:
        d = mapping(data)
        return cls(opt_str(d.get("error")), opt(d.get("metrics"), floats), opt(d.get("missing"), texts),
                   opt(d.get("gc_phases_ms"), floats), opt_float(d.get("recording_s")), opt_str(d.get("settings")),
                   opt_str(d.get("settings_argument")), opt_str(d.get("sampler_period")),
                   opt_str(d.get("settings_note")), opt_str(d.get("file")), opt_int(d.get("chunks")),
                   opt_float(d.get("read_s")), opt_str(d.get("reader")), opt(d.get("fallbacks"), strings))


@dataclass(frozen=True, slots=True)
class JfrProfileDocument(Document):
    """One recording's collapsed stacks ("outer;...;leaf" -> weight): execution samples
    (``cpu``, a count) and allocation samples (``alloc``, bytes)."""

    KIND = "jfr.profile"

    cpu: dict[str, float]
    alloc: dict[str, float]

    def stacks(self) -> dict[str, dict[str, float]]:
        """Kind ("cpu", "alloc") -> its stacks."""
        return {"cpu": self.cpu, "alloc": self.alloc}

    def body(self) -> JsonObject:
        return {"cpu": dict(self.cpu), "alloc": dict(self.alloc)}

    @classmethod
    def decode(cls, data: Any, version: int) -> JfrProfileDocument:
        d = mapping(data)
        return cls(floats(d.get("cpu") or {}), floats(d.get("alloc") or {}))


@dataclass(frozen=True, slots=True)
class ProcDocument(Document):
    """The /proc sampler of one invocation: how many samples (and how many with
    smaps_rollup), at what interval, and why each metric it did not give was not measured."""

    KIND = "proc"

    samples: int
    rollup_samples: int | None = None
    interval_s: float | None = None
    unmeasured: dict[str, str] | None = None  # metric -> why not measured

    def body(self) -> JsonObject:
        return present({"samples": self.samples, "rollup_samples": self.rollup_samples,
                        "interval_s": self.interval_s, "unmeasured": self.unmeasured or None})

    @classmethod
    def decode(cls, data: Any, version: int) -> ProcDocument:
        d = mapping(data)
        return cls(int(d["samples"]), opt_int(d.get("rollup_samples")), opt_float(d.get("interval_s")),
                   opt(d.get("unmeasured"), texts) or None)
