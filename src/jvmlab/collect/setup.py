"""Which collectors run for an experiment: the spec's [collect] table, overridden on the
command line (``--no-gc``, ``--collect proc=off`` ...)."""

from __future__ import annotations

from dataclasses import dataclass

from jvmlab.collect.base import Collector
from jvmlab.spec.model import Collect


@dataclass(frozen=True)
class CollectSettings:
    gc: bool = True
    proc: bool = True
    proc_interval_ms: int = 100
    progress: bool = True
    workload_metrics: bool = True
    flag_effect: bool = True
    keep_gc_logs: bool = True
    jfr: bool = False
    jfr_settings: str = "default"
    startup: bool = False

    @classmethod
    def from_spec(cls, collect: Collect, overrides: dict[str, bool | str] | None = None) -> "CollectSettings":
        values = {name: getattr(collect, name) for name in cls.__dataclass_fields__}
        values.update(overrides or {})
        return cls(**values)


def build_collectors(settings: CollectSettings, progress_regex: str | None,
                     progress_mode: str = "cumulative", jmh: bool = False) -> list[Collector]:
    """The collectors switched on, in the order their probes are called.

    The flag-effect collector comes last: its ``finish`` reads what the GC probe (warnings
    in the log) and the /proc probe (peak RSS, AnonHugePages) of the same invocation found.
    """
    collectors: list[Collector] = []
    if jmh:  # a JMH workload's scores: not switchable, they are its result
        from jvmlab.collect.jmh import JmhCollector

        collectors.append(JmhCollector())
        # The /proc sampler and the flag-effect checks watch the process jvmlab started, which
        # for JMH is the harness, not the fork that runs the benchmarks: their numbers would
        # describe the wrong JVM. The fork's flags and JDK are verified from JMH's JSON instead.
        from dataclasses import replace

        settings = replace(settings, proc=False, flag_effect=False)
    if settings.workload_metrics:
        from jvmlab.collect.workload_metrics import WorkloadMetricsCollector

        collectors.append(WorkloadMetricsCollector())
    gc = proc = None
    if settings.gc:
        from jvmlab.collect.gc import GcCollector

        gc = GcCollector(keep_logs=settings.keep_gc_logs)
        collectors.append(gc)
    if settings.proc:
        from jvmlab.collect.proc import ProcCollector

        proc = ProcCollector(interval_ms=settings.proc_interval_ms)
        collectors.append(proc)
    if settings.progress and progress_regex:
        from jvmlab.collect.progress import ProgressCollector

        collectors.append(ProgressCollector(progress_regex, progress_mode))
    if settings.jfr:
        from jvmlab.collect.jfr import JfrCollector

        collectors.append(JfrCollector(settings.jfr_settings))
    if settings.startup:
        from jvmlab.collect.startup import StartupCollector

        collectors.append(StartupCollector())
    if settings.flag_effect:
        from jvmlab.collect.flag_effect import FlagEffectCollector

        collectors.append(FlagEffectCollector(proc=proc, gc=gc))
    return collectors
