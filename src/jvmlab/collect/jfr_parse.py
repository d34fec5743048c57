"""Digesting a Flight Recording's events into metrics, GC phase totals and collapsed stacks,
and the JDK's own ``jfr print --json`` as the way to read a chunk our reader cannot.

The events come from :mod:`jvmlab.collect.jfr_read` (our reader of the binary format, with
this module's :func:`print_json` as the fallback per chunk); both give the same shape, so
one :func:`digest_events` serves both. ``jfr print`` is bounded by ``--events`` (only the
events we read) and ``--stack-depth``; ``bench/jfr_read.py`` prints both readers' times.

Every metric that the recording cannot give is left out and its reason put in
``JfrDigest.missing`` (for example "no jdk.CPULoad event: the run ended before the first
1 s period"), so the store holds ``None`` with a reason, never a made-up zero.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jvmlab.errors import UserError

EVENTS = ("jdk.ExecutionSample", "jdk.ObjectAllocationSample", "jdk.SafepointBegin",
          "jdk.SafepointStateSynchronization", "jdk.CompilerStatistics", "jdk.ClassLoadingStatistics",
          "jdk.CPULoad", "jdk.GCPhasePause", "jdk.GCPhasePauseLevel1", "jdk.GCPhaseConcurrent",
          "jdk.GarbageCollection", "jdk.JavaMonitorEnter", "jdk.ThreadPark", "jdk.Deoptimization", "jdk.JVMInformation",
          "jdk.ActiveRecording", "jdk.ThreadAllocationStatistics", "jdk.ZAllocationStall")
STACK_DEPTH = 64
PRINT_TIMEOUT_S = 300.0
_ISO = re.compile(r"^(-)?PT(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$")
_MAX_UNIQUE_STACKS = 50_000  # while reading
KEEP_STACKS = 1_000  # stored per invocation and kind: the heaviest; the rest folded into one
OBSERVER_FRAME = "jdk.jfr.internal."
_LAMBDA = re.compile(r"\$\$Lambda(?:\$\d+)?(?:[+.]0x[0-9a-f]+)?(?:\.\d+)?")
_HIDDEN = re.compile(r"[+.]0x[0-9a-f]+(?:\.\d+)?")


@dataclass
class JfrDigest:
    """What one recording says: metrics (registry names), reasons for the missing ones,
    GC phase totals (ms by phase name) and collapsed stacks ("outer;...;leaf" -> weight)."""

    metrics: dict[str, float] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    gc_phases_ms: dict[str, float] = field(default_factory=dict)
    cpu_stacks: dict[str, float] = field(default_factory=dict)  # execution samples (count)
    alloc_stacks: dict[str, float] = field(default_factory=dict)  # allocation samples (bytes)
    recording_s: float | None = None


def iso_duration_s(text: Any) -> float | None:
    """Seconds from an ISO-8601 duration as ``jfr print --json`` writes them (``PT0.0029S``);
    a number (our own reader's seconds) is taken as it is."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        return float(text)
    if not isinstance(text, str):
        return None
    m = _ISO.match(text)
    if not m:
        return None
    hours, minutes, seconds = (float(g) if g else 0.0 for g in m.groups()[1:])
    value = hours * 3600 + minutes * 60 + seconds
    return -value if m.group(1) else value


def iso_instant_s(text: Any) -> float | None:
    """Epoch seconds of an ISO-8601 instant (``2026-11-23T11:52:22.975060353Z``), ns kept; a
    number (our own reader's epoch seconds) is taken as it is."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        return float(text)
    if not isinstance(text, str) or not text.endswith("Z"):
        return None
    head, _, frac = text[:-1].partition(".")
    try:
        base = dt.datetime.fromisoformat(head).replace(tzinfo=dt.UTC).timestamp()
    except ValueError:
        return None
    return base + (float("0." + frac) if frac.isdigit() else 0.0)


def jfr_tool(java_home: Path) -> Path:
    """The ``jfr`` tool of a JDK (the one that wrote the recording reads it best)."""
    tool = java_home / "bin" / "jfr"
    if not tool.is_file():
        raise UserError(f"{java_home} has no bin/jfr tool (a JRE, or a JDK older than 11); "
                        f"switch the jfr collector off for it")
    return tool


def print_json(tool: Path, recording: Path, timeout_s: float = PRINT_TIMEOUT_S) -> dict[str, Any]:
    """``jfr print --json`` of the events we read; raises ValueError with the tool's own reason."""
    argv = [str(tool), "print", "--json", "--stack-depth", str(STACK_DEPTH), "--events", ",".join(EVENTS),
            str(recording.resolve())]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise ValueError(f"jfr print took more than {timeout_s:.0f} s") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ValueError(f"jfr print failed: {reason[-1] if reason else f'exit {done.returncode}'}")
    try:
        parsed: dict[str, Any] = json.loads(done.stdout)
        return parsed
    except json.JSONDecodeError as err:
        raise ValueError(f"jfr print wrote no JSON: {err}") from None


def class_name(raw: str) -> str:
    """``pkg.Class``; hidden classes lose their per-run address and number
    (``Foo$$Lambda$42+0x7f..`` / ``Foo$$Lambda/0x7f..`` -> ``Foo$$Lambda``) so equal code has
    equal names in every invocation and cell."""
    name = _LAMBDA.sub("$$Lambda", raw.replace("/", "."))
    return _HIDDEN.sub("", name)


def frame_name(frame: dict[str, Any]) -> str:
    """``pkg.Class.method`` of one frame (no descriptor: overloads share a frame)."""
    method = frame.get("method") or {}
    cls = class_name((method.get("type") or {}).get("name") or "?")
    return f"{cls}.{method.get('name') or '?'}"


def collapsed(stack: dict[str, Any] | None) -> str | None:
    """"outer;...;leaf" of a JFR stack trace (JFR lists the leaf first); truncated stacks get
    a leading "[truncated]" root so they are not mistaken for whole ones."""
    if not stack or not stack.get("frames"):
        return None
    frames = stack["frames"]
    names = [frame_name(f) for f in reversed(frames[:STACK_DEPTH])]  # as jfr print --stack-depth cuts
    if stack.get("truncated") or len(frames) > STACK_DEPTH:
        names.insert(0, "[truncated]")
    return ";".join(names)


def _add(stacks: dict[str, float], key: str | None, weight: float) -> None:
    """Count a stack; the recorder's own work (``jdk.jfr.internal`` frames) is the observer, not
    the workload, and is left out."""
    if key is None or OBSERVER_FRAME in key:
        return
    if key in stacks or len(stacks) < _MAX_UNIQUE_STACKS:
        stacks[key] = stacks.get(key, 0.0) + weight
    else:
        stacks["[other stacks]"] = stacks.get("[other stacks]", 0.0) + weight


def events_by_type(document: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The events of ``jfr print --json`` output, grouped by type name, in recording order."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for event in (document.get("recording") or {}).get("events") or []:
        by_type.setdefault(event.get("type", ""), []).append(event.get("values") or {})
    return by_type


def digest(document: dict[str, Any]) -> JfrDigest:
    """Metrics, GC phases and stacks from ``jfr print --json`` output."""
    return digest_events(events_by_type(document))


def digest_events(by_type: dict[str, list[dict[str, Any]]]) -> JfrDigest:
    """Metrics, GC phases and stacks from events grouped by type, as ``jfr print --json`` shows
    them or as :mod:`jvmlab.collect.jfr_read` reads them (numbers for times)."""
    out = JfrDigest()
    out.recording_s = _recording_s(by_type)
    _stacks(out, by_type)
    _allocation(out, by_type)
    _gc(out, by_type)
    _safepoints(out, by_type)
    _jit(out, by_type)
    _classes_locks_cpu(out, by_type)
    _recording_start(out, by_type)
    out.cpu_stacks, out.alloc_stacks = bounded(out.cpu_stacks), bounded(out.alloc_stacks)
    return out


def _recording_start(out: JfrDigest, by_type: dict[str, list[dict[str, Any]]]) -> None:
    """JVM start (``jdk.JVMInformation.jvmStartTime``) to the recording's start
    (``jdk.ActiveRecording.recordingStart``): JFR starts as VM creation ends, so this is VM
    init as JFR sees it, its own startup included. Both are in milliseconds."""
    info, active = by_type.get("jdk.JVMInformation", []), by_type.get("jdk.ActiveRecording", [])
    start = iso_instant_s(info[0].get("jvmStartTime")) if info else None
    began = min((t for v in active if (t := iso_instant_s(v.get("recordingStart"))) is not None), default=None)
    if start is None or began is None:
        out.missing["jfr.recording_start_s"] = "no jdk.JVMInformation or jdk.ActiveRecording event"
    else:
        out.metrics["jfr.recording_start_s"] = max(0.0, began - start)


def bounded(stacks: dict[str, float], keep: int = KEEP_STACKS) -> dict[str, float]:
    """The ``keep`` heaviest stacks; the others' weight under "[other stacks]" (so shares
    still add up to the whole), which bounds what one invocation stores."""
    if len(stacks) <= keep:
        return stacks
    ranked = sorted(stacks.items(), key=lambda kv: (-kv[1], kv[0]))
    out = dict(ranked[:keep])
    out["[other stacks]"] = out.get("[other stacks]", 0.0) + sum(w for _, w in ranked[keep:])
    return out


def stall_wall_ms(values: list[dict[str, Any]]) -> float | None:
    """Wall-clock time during which at least one thread was stalled: the union of the events'
    [start, start + duration) intervals (two threads stalled over the same 10 ms count 10 ms, not
    20). None when an event lacks its start time."""
    spans = []
    for v in values:
        start, length = iso_instant_s(v.get("startTime")), iso_duration_s(v.get("duration"))
        if start is None or length is None:
            return None
        spans.append((start, start + length))
    total, end = 0.0, float("-inf")
    for lo, hi in sorted(spans):
        if hi > end:
            total += hi - max(lo, end)
            end = hi
    return total * 1000


def _durations_ms(values: list[dict[str, Any]]) -> list[float]:
    return [d * 1000 for d in (iso_duration_s(v.get("duration")) for v in values) if d is not None]


def _recording_s(by_type: dict[str, list[dict[str, Any]]]) -> float | None:
    """Seconds from the first to the last event of the recording (its usable span)."""
    times = [t for vs in by_type.values() for v in vs if (t := iso_instant_s(v.get("startTime"))) is not None]
    return (max(times) - min(times)) if len(times) >= 2 else None


def _stacks(out: JfrDigest, by_type: dict[str, list[dict[str, Any]]]) -> None:
    samples = by_type.get("jdk.ExecutionSample", [])
    for v in samples:
        _add(out.cpu_stacks, collapsed(v.get("stackTrace")), 1.0)
    out.metrics["jfr.exec_samples"] = float(len(samples))


def _allocation(out: JfrDigest, by_type: dict[str, list[dict[str, Any]]]) -> None:
    samples = by_type.get("jdk.ObjectAllocationSample", [])
    if not samples:
        out.missing["jfr.alloc_total_bytes"] = "no jdk.ObjectAllocationSample event (JDK 16+; run too short)"
        return
    total = 0.0
    for v in samples:
        weight = float(v.get("weight") or 0)
        total += weight
        _add(out.alloc_stacks, collapsed(v.get("stackTrace")), weight)
    out.metrics["jfr.alloc_total_bytes"] = total
    if out.recording_s and out.recording_s > 0:
        out.metrics["jfr.alloc_rate_mb_s"] = total / (1 << 20) / out.recording_s
    else:
        out.missing["jfr.alloc_rate_mb_s"] = "the recording spans less than two events"


def _gc(out: JfrDigest, by_type: dict[str, list[dict[str, Any]]]) -> None:
    out.metrics["jfr.gc_count"] = float(len(by_type.get("jdk.GarbageCollection", [])))
    pauses = _durations_ms(by_type.get("jdk.GCPhasePause", []))
    out.metrics["jfr.gc_pause_total_ms"] = sum(pauses)
    out.metrics["jfr.gc_concurrent_total_ms"] = sum(_durations_ms(by_type.get("jdk.GCPhaseConcurrent", [])))
    stall_events = by_type.get("jdk.ZAllocationStall", [])
    stalls = _durations_ms(stall_events)
    if stalls:
        out.metrics["jfr.alloc_stall_total_ms"] = sum(stalls)  # summed over threads: thread-ms
        union = stall_wall_ms(stall_events)
        if union is not None:
            out.metrics["jfr.alloc_stall_wall_ms"] = union
    for kind in ("jdk.GCPhasePause", "jdk.GCPhasePauseLevel1", "jdk.GCPhaseConcurrent"):
        for v in by_type.get(kind, []):
            d = iso_duration_s(v.get("duration"))
            if d is not None:
                name = f"{kind.removeprefix('jdk.GCPhase')}: {v.get('name') or '?'}"
                out.gc_phases_ms[name] = out.gc_phases_ms.get(name, 0.0) + d * 1000


def _safepoints(out: JfrDigest, by_type: dict[str, list[dict[str, Any]]]) -> None:
    begins = by_type.get("jdk.SafepointBegin", [])
    syncs = _durations_ms(by_type.get("jdk.SafepointStateSynchronization", []))
    out.metrics["jfr.safepoint_count"] = float(len(begins))
    out.metrics["jfr.safepoint_total_ms"] = sum(_durations_ms(begins))
    if syncs or not begins:
        out.metrics["jfr.safepoint_ttsp_total_ms"] = sum(syncs)
        if syncs:
            out.metrics["jfr.safepoint_ttsp_max_ms"] = max(syncs)
    else:
        out.missing["jfr.safepoint_ttsp_total_ms"] = "no jdk.SafepointStateSynchronization events"


def _last(values: list[dict[str, Any]]) -> dict[str, Any] | None:
    return max(values, key=lambda v: iso_instant_s(v.get("startTime")) or 0.0) if values else None


def _jit(out: JfrDigest, by_type: dict[str, list[dict[str, Any]]]) -> None:
    stats = _last(by_type.get("jdk.CompilerStatistics", []))
    if stats is None:
        reason = "no jdk.CompilerStatistics event: the run ended before the recording's first period"
        out.missing["jfr.jit_compile_count"] = out.missing["jfr.jit_compile_total_ms"] = reason
    else:
        out.metrics["jfr.jit_compile_count"] = float(stats.get("compileCount") or 0)
        spent = iso_duration_s(stats.get("totalTimeSpent"))
        if spent is not None:
            out.metrics["jfr.jit_compile_total_ms"] = spent * 1000
    out.metrics["jfr.deopt_count"] = float(len(by_type.get("jdk.Deoptimization", [])))


def _classes_locks_cpu(out: JfrDigest, by_type: dict[str, list[dict[str, Any]]]) -> None:
    classes = _last(by_type.get("jdk.ClassLoadingStatistics", []))
    if classes is None:
        out.missing["jfr.classes_loaded"] = "no jdk.ClassLoadingStatistics event: the run ended before its first period"
    else:
        out.metrics["jfr.classes_loaded"] = float(classes.get("loadedClassCount") or 0)
    out.metrics["jfr.lock_contention_ms"] = sum(_durations_ms(by_type.get("jdk.JavaMonitorEnter", [])))
    out.metrics["jfr.thread_park_ms"] = sum(_durations_ms(by_type.get("jdk.ThreadPark", [])))
    loads = by_type.get("jdk.CPULoad", [])
    if not loads:
        reason = "no jdk.CPULoad event: the run ended before the first 1 s period"
        out.missing["jfr.cpu_jvm_share"] = out.missing["jfr.cpu_machine_share"] = reason
        return
    # The first period of a recording has no earlier reading: JFR reports it as all zeros.
    pairs = [(float(v.get("jvmUser") or 0) + float(v.get("jvmSystem") or 0), float(v.get("machineTotal") or 0))
             for v in loads]
    pairs = [p for p in pairs if p != (0.0, 0.0)]
    if not pairs:
        reason = "only the first jdk.CPULoad period (all zeros) was recorded"
        out.missing["jfr.cpu_jvm_share"] = out.missing["jfr.cpu_machine_share"] = reason
        return
    jvm, machine = [p[0] for p in pairs], [p[1] for p in pairs]
    out.metrics["jfr.cpu_jvm_share"] = sum(jvm) / len(jvm)
    out.metrics["jfr.cpu_machine_share"] = sum(machine) / len(machine)
