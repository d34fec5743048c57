"""How each built-in collector is made from the resolved settings (see collect/registry.py).

Each builder imports its collector when called, so only the collectors switched on are
imported. A builder may return None: the collector does not apply to this workload.
"""

from __future__ import annotations

from jvmlab.collect.base import Collector
from jvmlab.collect.registry import BuildContext


def jmh(ctx: BuildContext) -> Collector | None:
    from jvmlab.collect.jmh import JmhCollector

    return JmhCollector() if ctx.jmh else None


def workload_metrics(ctx: BuildContext) -> Collector | None:
    from jvmlab.collect.workload_metrics import WorkloadMetricsCollector

    return WorkloadMetricsCollector()


def gc(ctx: BuildContext) -> Collector | None:
    from jvmlab.collect.gc import GcCollector

    return GcCollector(keep_logs=bool(ctx.settings.keep_gc_logs), level=str(ctx.settings.gc_log))


def proc(ctx: BuildContext) -> Collector | None:
    # The /proc sampler and the flag-effect checks watch the process jvmlab started, which
    # for JMH is the harness, not the fork that runs the benchmarks: their numbers would
    # describe the wrong JVM. The fork's flags and JDK are verified from JMH's JSON instead.
    if ctx.jmh:
        return None
    from jvmlab.collect.proc import ProcCollector

    return ProcCollector(interval_ms=int(ctx.settings.proc_interval_ms))


def progress(ctx: BuildContext) -> Collector | None:
    if not ctx.progress_regex:
        return None
    from jvmlab.collect.progress import ProgressCollector

    return ProgressCollector(ctx.progress_regex, ctx.progress_mode)


def jfr(ctx: BuildContext) -> Collector | None:
    from jvmlab.collect.jfr import JfrCollector

    return JfrCollector(str(ctx.settings.jfr_settings))


def startup(ctx: BuildContext) -> Collector | None:
    from jvmlab.collect.startup import StartupCollector

    return StartupCollector()


def flag_effect(ctx: BuildContext) -> Collector | None:
    """Last: its ``finish`` reads what the GC probe (warnings in the log) and the /proc probe
    (peak RSS, AnonHugePages) of the same invocation found."""
    if ctx.jmh:
        return None
    from jvmlab.collect.flag_effect import FlagEffectCollector
    from jvmlab.collect.gc import GcCollector
    from jvmlab.collect.proc import ProcCollector

    proc, gc = ctx.built.get("proc"), ctx.built.get("gc")
    return FlagEffectCollector(proc=proc if isinstance(proc, ProcCollector) else None,
                               gc=gc if isinstance(gc, GcCollector) else None)
