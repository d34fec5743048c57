"""The GC collector: a GC log per invocation, summarised by :mod:`jvmlab.gclog`.

Each invocation's JVM writes its own log into the invocation's artifacts folder
(``gc-<pid>.log``; ``%p`` keeps logs of several JVMs of one ``command`` workload apart).
On JDK 17+ the log is written asynchronously (``-Xlog:async``), off the GC's pauses.
The flags are added after the user's own: the JVM accepts several ``-Xlog`` outputs, so a
user's own GC log keeps working. Logs are not rotated (``filecount=0``) so one file is one
run. After the run the log becomes the ``gc`` document (``GcDocument``: the analyzer's summary JSON),
``gc.*`` metrics, and two timelines: "gc.pause_ms" (each pause at the uptime its end was
logged, value its duration) and "gc.heap_after_mb". JVM uptime starts a few milliseconds
after the executor's clock; timelines are not shifted for that.

The log's warning and error lines are kept (``warning_lines``) for the flag-effect probe,
which runs after this one; with ``keep_gc_logs = false`` the log is deleted afterwards. The
log is read once: summary, findings, timelines and warning lines come from the same pass
(gclog.findings_fold).
"""

from __future__ import annotations

import re
import weakref
from pathlib import Path

from jvmlab.collect.base import NullProbe
from jvmlab.gclog import LogSummary, analyze_paths, summary_metrics
from jvmlab.gclog.findings import summary_document
from jvmlab.model import hazards
from jvmlab.model.collected import Collected, Timeline
from jvmlab.model.documents import GcDocument
from jvmlab.model.hazards import Hazard
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import ProcessResult, Status

NO_GC_LOG = hazards.GC_LOG_MISSING
GC_LOG_UNREADABLE = hazards.GC_LOG_UNREADABLE
_PAUSE_GOAL = re.compile(r"-XX:MaxGCPauseMillis=(\d+)")


# ``gc_log = "light"`` (the default): the tag sets the summary reads, listed instead of the
# gc* wildcard. gc: pauses, cycles, stalls; gc+init: JVM and heap facts; gc+start: when a
# collection began (ZGC's cycle durations, causes); gc+heap: per-generation before/after
# sizes (Parallel, Serial: promotion, old and young use) and ZGC's heap table (soft max,
# committed); gc+marking: G1's concurrent marking phases; gc+phases: ZGC's pauses, G1's pause
# phases; gc+alloc: generational ZGC's stalls; gc+stats: Shenandoah's pacing. Checked against
# gc* on G1, Parallel, Serial, ZGC and Shenandoah, JDK 17 and 25 (tests/collect). What it
# leaves out: the at-exit heap summary (gc+heap+exit), metaspace, TLAB, ergonomics, task
# and CPU lines; the log's span ends at the last GC event rather than at the JVM's exit. It
# costs a short JVM a fraction of gc*'s start-up (docs/collectors.md; bench/collector_flags.py).
LIGHT_SELECTION = "gc,gc+init,gc+start,gc+heap,gc+marking,gc+phases,gc+alloc,gc+stats,safepoint"
FULL_SELECTION = "gc*,safepoint"


def gc_log_args(jdk: JdkInfo, artifacts_dir: Path, level: str = "light") -> list[str]:
    """The flags that make ``jdk`` write a GC log named ``gc-<pid>.log`` into ``artifacts_dir``.

    ``level`` "light" logs only what the summary reads, "full" everything under ``gc*``
    (HotSpot 9+; JDK 8 and OpenJ9 have one level)."""
    target = artifacts_dir / "gc-%p.log"
    if jdk.vm_kind == "OpenJ9":  # OpenJ9 file names take dump-agent tokens: %pid, not %p
        return [f"-Xverbosegclog:{artifacts_dir / 'gc-%pid.log'}"]
    if jdk.feature <= 8:
        return ["-XX:+PrintGCDetails", "-XX:+PrintGCDateStamps", f"-Xloggc:{target}"]
    # The wildcard is what gc* costs a short JVM: unified logging's set-up searches for the
    # shortest description of the output (LogOutput::update_config_string), about 4.5 M
    # instructions (~1.5 ms) per JVM; the lines themselves cost ~0.1 M. Every listed tag set
    # costs more than the last (all 25 that gc* logs in practice: +25 M), so the light
    # selection lists only what the summary reads. See docs/collectors.md.
    selection = LIGHT_SELECTION if level == "light" else FULL_SELECTION
    xlog = f'-Xlog:{selection}:file="{target}":uptime,level,tags:filecount=0'
    # JDK 17+: log lines are written by a separate thread, not by the GC thread inside the
    # pause (a dozen lines per young GC, synchronously written, is measurable on a
    # throughput run). Lines are only lost if the 2 MB buffer overflows; the log then says so.
    return ["-Xlog:async", xlog] if jdk.feature >= 17 else [xlog]


def find_logs(artifacts_dir: Path) -> list[Path]:
    """GC logs the probe's flags produced, largest first."""
    logs = [p for p in artifacts_dir.glob("gc-*.log") if p.is_file()]
    return sorted(logs, key=lambda p: (-p.stat().st_size, p.name))


def gc_timelines(source: Path | LogSummary) -> dict[str, Timeline]:
    """Pause and heap-after-GC timelines of one log (bounded in length), from its summary's
    one pass (a path is analyzed first)."""
    summary = source if isinstance(source, LogSummary) else analyze_paths([source])[0]
    fold = summary.fold
    out: dict[str, Timeline] = {}
    if fold.pause_t:
        out["gc.pause_ms"] = Timeline(tuple(fold.pause_t), tuple(fold.pause_ms), "ms")
    if fold.heap_t:
        out["gc.heap_after_mb"] = Timeline(tuple(fold.heap_t), tuple(fold.heap_mb), "MB")
    return out


def pause_goal_ms(flags: tuple[str, ...]) -> float | None:
    """-XX:MaxGCPauseMillis as the cell sets it (None when it does not: the collector's default
    is no goal the user asked for)."""
    for flag in reversed(flags):
        m = _PAUSE_GOAL.fullmatch(flag)
        if m is not None:
            return float(m[1])
    return None


def _missing_hint(ctx: ProbeContext) -> str:
    """Only a `command` workload can drop jvmlab's flags; any other JVM was told where to write."""
    if ctx.workload_kind == "command":
        return "a `command` workload must pass {jvm_args} to java; or switch the GC collector off"
    return (f"the JVM was told to write it into {ctx.artifacts_dir}; check that the folder is writable "
            f"and that no flag of the cell turns GC logging off (-Xlog:disable)")


class GcProbe(NullProbe):
    """Adds the GC log flags; after the run, summarises the log."""

    def __init__(self, ctx: ProbeContext, keep_logs: bool, level: str = "light") -> None:
        self.ctx = ctx
        self.keep_logs = keep_logs
        self.level = level
        self.pid: int | None = None
        self.warning_lines: list[str] = []

    def jvm_args(self) -> list[str]:
        return gc_log_args(self.ctx.jdk, self.ctx.artifacts_dir, self.level)

    def on_start(self, pid: int) -> None:
        self.pid = pid

    def finish(self, result: ProcessResult) -> Collected:
        logs = find_logs(self.ctx.artifacts_dir)
        if not logs:
            if result.status != Status.OK:
                return Collected()
            return Collected(hazards=[Hazard(NO_GC_LOG, "the JVM wrote no GC log", hint=_missing_hint(self.ctx))])
        own = self.ctx.artifacts_dir / f"gc-{self.pid}.log"
        path = own if own in logs else logs[0]
        try:
            return self._summarize(path, logs, result)
        except Exception as err:  # noqa: BLE001 - a broken log must not lose the invocation
            unreadable = GcDocument((str(path),), str(err), None, None, {})
            return Collected(documents={GcDocument.KIND: unreadable.to_json()},
                             hazards=[Hazard(GC_LOG_UNREADABLE, f"{path.name}: {err}",
                                             hint="see the log in the invocation's artifacts folder")])
        finally:
            if not self.keep_logs:
                for log in logs:
                    log.unlink(missing_ok=True)

    def _summarize(self, path: Path, logs: list[Path], result: ProcessResult) -> Collected:
        summary = analyze_paths([path])[0]  # one read of the log: summary, findings, timelines, warnings
        self.warning_lines = list(summary.fold.lines.warnings)
        summary.pause_goal_ms = summary.pause_goal_ms or pause_goal_ms(self.ctx.flags)
        wall_s = result.measures.wall_s if result.measures else None
        document = summary_document(summary)  # with its findings (`jvmlab gc advise` reads them)
        document["kept"] = self.keep_logs
        document["gc_log"] = self.level
        if len(logs) > 1:
            document["other_logs"] = [str(p) for p in logs if p != path]
        return Collected(metrics=summary_metrics(summary, wall_s=wall_s), timelines=gc_timelines(summary),
                         documents={GcDocument.KIND: GcDocument.of(document).to_json()})


class GcCollector:
    """Makes one :class:`GcProbe` per invocation and remembers it for the flag-effect probe."""

    name = "gc"

    def __init__(self, keep_logs: bool = True, level: str = "light") -> None:
        self.keep_logs = keep_logs
        self.level = level
        self._probes: weakref.WeakValueDictionary[Path, GcProbe] = weakref.WeakValueDictionary()

    def probe(self, ctx: ProbeContext) -> GcProbe:
        probe = GcProbe(ctx, self.keep_logs, self.level)
        self._probes[ctx.artifacts_dir] = probe
        return probe

    def probe_for(self, ctx: ProbeContext) -> GcProbe | None:
        """The probe made for the same invocation (same artifacts folder), if any."""
        return self._probes.get(ctx.artifacts_dir)
