"""The one metric registry: name -> unit, formatter, direction.

Tables, statistics, the HTML report and the tuner's objective all read it. A metric that
is not registered by name can still be used when its prefix is registered (for example
``workload.<name>`` for metrics a workload prints itself).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from jvmlab.errors import UserError, did_you_mean

RUN_DELAY = "sched.run_delay_s"  # the measured process's run-queue delay (schedstat): contention
OTHER_SHARE = "sched.other_share"  # other processes' share of the machine's CPU during an invocation
STEAL_SHARE = "sched.steal_share"  # the hypervisor's steal during an invocation


@dataclass(frozen=True)
class Metric:
    """How to read one measured quantity."""

    name: str
    unit: str  # "s", "ms", "bytes", "count", "%", "MB/s", "units/s", "share", or a workload's
    lower_is_better: bool
    description: str
    label: str = ""  # short column/row label in tables ("pause p99"); "" -> the name
    neutral: bool = False  # neither direction is better (a workload property): tables give no verdict

    @property
    def title(self) -> str:
        return self.label or self.name

    @property
    def never_negative(self) -> bool:
        """True when no value can be below 0 (a duration, a size, a count, a rate, a share):
        its intervals are made on the log scale or not at all, never reaching below 0."""
        return self.unit in NEVER_NEGATIVE_UNITS or self.unit.endswith("/s")

    def format(self, value: float | None) -> str:
        """Render a value with its unit for humans (None means 'not measured')."""
        if value is None or math.isnan(value):
            return "-"
        return format_value(value, self.unit)

    def compact(self, value: float | None) -> str:
        """Three significant digits in the unit that fits (GC tables: ``850 µs``, ``1.5 GB``)."""
        if value is None or math.isnan(value):
            return "-"
        return format_compact(value, self.unit)


NEVER_NEGATIVE_UNITS = frozenset({"s", "ms", "us", "ns", "bytes", "B", "KB", "MB", "GB", "KiB", "MiB", "GiB",
                                  "count", "%", "share"})


def never_negative(name: str, registry: MetricRegistry | None = None) -> bool:
    """Whether metric ``name`` (in ``registry``, else the built-in one) is never negative;
    False for a name no registry knows (nothing is assumed)."""
    try:
        return (registry or DEFAULT).get(name).never_negative
    except UserError:
        return False


def format_duration_ms(ms: float | None) -> str:
    """A duration in milliseconds, written in the unit that fits it (3 significant digits):
    GC pauses span nanoseconds (ZGC) to minutes (a full GC of a swapping heap)."""
    if ms is None:
        return "-"
    if ms == 0:
        return "0 ms"
    a = abs(ms)
    if a < 1e-3:
        return f"{_sig3(ms * 1e6)} ns"
    if a < 1.0:
        return f"{_sig3(ms * 1e3)} µs"
    if a < 1000.0:
        return f"{_sig3(ms)} ms"
    if a < 600_000.0:
        return f"{_sig3(ms / 1000.0)} s"
    if a < 7_200_000.0:
        return f"{_sig3(ms / 60_000.0)} min"
    if a < 172_800_000.0:
        return f"{_sig3(ms / 3_600_000.0)} h"
    return f"{_sig3(ms / 86_400_000.0)} d"  # a log's uptimes run to days: 4.8 d, not 6.85e+03 min


def _sig3(value: float) -> str:
    """Three significant digits, never in exponent notation (1234 stays 1234)."""
    text = f"{value:.3g}"
    return f"{value:.0f}" if "e" in text else text


def format_mb(mb: float | None) -> str:
    """Megabytes (the GC logs' unit) as MB, GB from 1024 MB, TB from 1024 GB, 3 significant digits."""
    if mb is None:
        return "-"
    if mb >= 1024 * 1024:
        return f"{_sig3(mb / (1024 * 1024))} TB"
    return f"{_sig3(mb / 1024)} GB" if mb >= 1024 else f"{_sig3(mb)} MB"


def format_compact(value: float, unit: str) -> str:
    """A value in ``unit`` with three significant digits, in the scale that fits it."""
    if unit == "ms":
        return format_duration_ms(value)
    if unit == "s":
        return format_duration_ms(value * 1000.0)
    if unit == "MB":
        return format_mb(value)
    if unit == "MB/s":
        return f"{format_mb(value)}/s"
    if unit == "%":
        return f"{value:.2f}%"
    if unit == "count":
        return str(int(value)) if float(value).is_integer() else f"{value:.3g}"
    return f"{value:,.0f} {unit}" if abs(value) >= 1000 else f"{value:.3g} {unit}"


def scale_for(value: float, unit: str) -> tuple[float, str]:
    """(divisor, suffix) that shows ``value`` readably: seconds as ms below 1 s, bytes in
    KiB/MiB/GiB. Used to print a value and its spread or interval in one unit."""
    if unit == "s":
        return (0.001, "ms") if abs(value) < 1.0 else (1.0, "s")
    if unit == "ms":
        return (1000.0, "s") if abs(value) >= 10_000 else (1.0, "ms")
    if unit == "bytes":
        for scale, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
            if abs(value) >= scale:
                return float(scale), name
        return 1.0, "B"
    return 1.0, unit


def format_value(value: float, unit: str) -> str:
    """Format a number in a unit, picking a readable scale."""
    if unit == "s":
        if abs(value) < 1.0:
            return f"{value * 1000:.1f} ms"
        return f"{value:.3f} s"
    if unit == "ms":
        if abs(value) >= 10_000:
            return f"{value / 1000:.2f} s"
        return f"{value:.2f} ms" if abs(value) < 100 else f"{value:.0f} ms"
    if unit == "bytes":
        divisor, name = scale_for(value, unit)
        return f"{value:.0f} B" if name == "B" else f"{value / divisor:.1f} {name}"
    if unit == "share":
        return f"{value * 100:.1f}%"
    if unit == "%":
        return f"{value:.2f}%"
    if unit == "count":
        return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
    return f"{value:.4g} {unit}".rstrip()


_METRICS: list[Metric] = [
    # Process measures (wait4 rusage of the child alone).
    Metric("wall_s", "s", True, "wall-clock time of the invocation (monotonic clock)"),
    Metric("user_s", "s", True, "user CPU time of the JVM process and its children"),
    Metric("sys_s", "s", True, "system CPU time of the JVM process and its children"),
    Metric("cpu_s", "s", True, "user + system CPU time"),
    Metric("max_rss_bytes", "bytes", True, "peak resident set size"),
    Metric("minor_faults", "count", True, "minor page faults"),
    Metric("major_faults", "count", True, "major page faults (read from disk)"),
    Metric("vol_ctx_switches", "count", True, "voluntary context switches"),
    Metric("invol_ctx_switches", "count", True, "involuntary context switches"),
    Metric("ready_s", "s", True, "time until the workload's `ready` marker appeared"),
    # GC log summary per invocation (collect/gc.py), and the figures `gc analyze` and
    # `gc compare` show for any log (labels are their row names; neutral: no verdict).
    Metric("gc.pause_count", "count", True, "stop-the-world GC pauses", "pauses"),
    Metric("gc.pause_total_ms", "ms", True, "total GC pause time", "pause total"),
    Metric("gc.pause_mean_ms", "ms", True, "mean GC pause", "pause mean"),
    Metric("gc.pause_p50_ms", "ms", True, "median GC pause", "pause p50"),
    Metric("gc.pause_p99_ms", "ms", True, "99th percentile GC pause", "pause p99"),
    Metric("gc.pause_max_ms", "ms", True, "longest GC pause", "pause max"),
    Metric("gc.young_count", "count", True, "young (minor) pauses", "young GCs"),
    Metric("gc.mixed_count", "count", True, "mixed pauses", "mixed GCs"),
    Metric("gc.full_count", "count", True, "full GC pauses", "full GCs"),
    Metric("gc.degenerated_count", "count", True, "degenerated GC pauses (Shenandoah)", "degenerated GCs"),
    Metric("gc.concurrent_cycles", "count", True, "concurrent GC cycles", "concurrent cycles", neutral=True),
    Metric("gc.concurrent_total_ms", "ms", True, "total time of concurrent GC cycles", "concurrent cycle time",
           neutral=True),
    Metric("gc.stall_count", "count", True, "allocation stalls (ZGC)", "allocation stall count"),
    Metric("gc.stall_total_ms", "ms", True, "total allocation stall time (ZGC)", "allocation stalls"),
    Metric("gc.relocation_stall_total_ms", "ms", True, "total relocation stall time (ZGC)", "relocation stalls"),
    Metric("gc.pacing_total_ms", "ms", True, "total pacing delay (Shenandoah)", "pacing delay"),
    Metric("gc.held_total_ms", "ms", True, "pauses + allocation/relocation stalls + pacing: time application "
           "threads were held up", "pauses + stalls + pacing"),
    Metric("gc.paused_pct", "%", True, "percentage of wall time paused", "paused"),
    Metric("gc.throughput_pct", "%", False, "share of the log's span not in pauses", "throughput (pauses only)"),
    Metric("gc.interval_mean_s", "s", False, "mean time between pauses", "pause interval"),
    Metric("gc.span_s", "s", True, "JVM start (a fragment: first event) to the end of the last event",
           "log span", neutral=True),
    Metric("gc.heap_after_gc_max_mb", "MB", True, "largest heap occupancy after a GC", "heap max after GC"),
    Metric("gc.heap_max_used_mb", "MB", True, "largest heap occupancy seen", "heap max used"),
    Metric("gc.heap_max_committed_mb", "MB", True, "largest committed heap", "heap max committed"),
    Metric("gc.heap_soft_max_mb", "MB", False, "soft max heap capacity the GC log states (ZGC)", "heap soft max"),
    Metric("gc.alloc_rate_mb_s", "MB/s", False, "allocation rate", "alloc rate", neutral=True),
    # /proc sampler.
    Metric("mem.peak_rss_bytes", "bytes", True, "peak RSS seen by the /proc sampler"),
    Metric("mem.peak_pss_bytes", "bytes", True, "peak proportional set size (trust with multi-mapped heaps)"),
    Metric("mem.peak_anon_huge_bytes", "bytes", False, "peak AnonHugePages (transparent huge pages in use)"),
    Metric("cpu.jit_share", "share", True, "share of CPU time in JIT compiler threads"),
    Metric("cpu.gc_share", "share", True, "share of CPU time in GC threads"),
    Metric("cpu.app_share", "share", False, "share of CPU time in application threads"),
    Metric("cpu.vm_share", "share", True, "share of CPU time in other VM threads"),
    # Contention per invocation (the /proc sampler; docs/statistics.md "Busy machines"):
    # the machine's state, not the configuration's doing, so no verdict of their own.
    Metric(RUN_DELAY, "s", True, "run-queue delay: time the process's runnable threads waited for a CPU "
           "(schedstat, summed over threads)", "run-queue delay", neutral=True),
    Metric(OTHER_SHARE, "share", True, "other processes' share of the machine's CPUs during the invocation",
           "others' CPU", neutral=True),
    Metric(STEAL_SHARE, "share", True, "the hypervisor's steal, a share of the machine's CPUs, during the "
           "invocation", "steal", neutral=True),
    # Progress collector.
    Metric("progress.steady_rate", "units/s", False, "steady-state throughput after warm-up"),
    Metric("progress.mean_rate", "units/s", False, "mean throughput over the whole run"),
    Metric("progress.warmup_s", "s", True, "time until steady state"),
    Metric("progress.total_units", "count", False, "units of work reported"),
    # CPU / memory limits ([environment] cpus, memory): the cgroup and what the JVM believed.
    Metric("cgroup.oom_kills", "count", True, "processes the kernel OOM-killed at the cgroup memory limit"),
    Metric("cgroup.peak_bytes", "bytes", True, "peak memory charged to the invocation's cgroup"),
    Metric("jvm.active_processors", "count", False, "CPUs the JVM believed it had (container detection)"),
    Metric("jvm.max_heap_bytes", "bytes", False, "MaxHeapSize the JVM chose or was given (PrintFlagsFinal)"),
    Metric("jvm.memory_limit_bytes", "bytes", False, "memory limit the JVM detected (os+container)"),
    Metric("minheap.heap_bytes", "bytes", True, "-Xmx of a minimum-heap probe"),
    # JFR collector (opt-in; see docs/jfr.md).
    Metric("jfr.exec_samples", "count", False, "JFR execution samples recorded"),
    Metric("jfr.recording_start_s", "s", True, "JVM start to JFR recording start (VM init incl. JFR's own startup)"),
    Metric("jfr.alloc_total_bytes", "bytes", True, "bytes allocated (sum of JFR allocation-sample weights)"),
    Metric("jfr.alloc_rate_mb_s", "MB/s", False, "allocation rate over the recording (JFR)"),
    Metric("jfr.gc_count", "count", True, "garbage collections (JFR)"),
    Metric("jfr.gc_pause_total_ms", "ms", True, "total GC pause phase time (JFR)"),
    Metric("jfr.gc_concurrent_total_ms", "ms", True, "total concurrent GC phase time (JFR)"),
    Metric("jfr.alloc_stall_total_ms", "ms", True,
           "ZGC allocation stall time summed over the stalled threads (thread-ms; JFR)"),
    Metric("jfr.alloc_stall_wall_ms", "ms", True,
           "wall-clock time during which at least one thread was in a ZGC allocation stall (JFR)"),
    Metric("jfr.safepoint_count", "count", True, "safepoints (JFR)"),
    Metric("jfr.safepoint_total_ms", "ms", True, "total time in safepoints (JFR)"),
    Metric("jfr.safepoint_ttsp_total_ms", "ms", True, "total time to reach safepoints (JFR)"),
    Metric("jfr.safepoint_ttsp_max_ms", "ms", True, "longest time to reach a safepoint (JFR)"),
    Metric("jfr.jit_compile_count", "count", True, "JIT compilations (JFR)"),
    Metric("jfr.jit_compile_total_ms", "ms", True, "total JIT compile time (JFR)"),
    Metric("jfr.deopt_count", "count", True, "deoptimizations (JFR)"),
    Metric("jfr.classes_loaded", "count", True, "classes loaded (JFR)"),
    Metric("jfr.lock_contention_ms", "ms", True, "contended monitor-enter time above the JFR threshold"),
    Metric("jfr.thread_park_ms", "ms", True, "time parked (lock waits and idle waits alike) above the JFR threshold"),
    Metric("jfr.cpu_jvm_share", "share", True, "mean CPU load of the JVM (user + system, JFR)"),
    Metric("jfr.cpu_machine_share", "share", True, "mean CPU load of the whole machine (JFR)"),
    # Startup collector (opt-in).
    Metric("startup.jvm_init_s", "s", True, "JVM uptime when VM creation ended (-Xlog:startuptime)"),
    Metric("startup.to_main_s", "s", True, "JVM uptime when the first application class loaded"),
    Metric("startup.classes_archive", "count", False, "classes loaded from the CDS/AOT archive"),
    Metric("startup.classes_jdk", "count", True, "classes loaded from the JDK's modules (not archived)"),
    Metric("startup.classes_app", "count", True, "classes loaded from the application's class path"),
    Metric("startup.classes_other", "count", True, "classes generated at run time (lambdas, proxies)"),
    Metric("startup.load_span_archive_s", "s", True, "uptime from first to last class from the archive"),
    Metric("startup.load_span_jdk_s", "s", True, "uptime from first to last class from the JDK's modules"),
    Metric("startup.load_span_app_s", "s", True, "uptime from first to last class from the class path"),
    Metric("startup.load_span_other_s", "s", True, "uptime from first to last generated class"),
    # Servers under load (docs/servers.md): the server's readiness and stop, the clients' view.
    Metric("server.ready_s", "s", True, "time from the server's start until it was ready"),
    Metric("server.first_request_s", "s", True, "time from the server's start to its first successful request"),
    Metric("server.rss_at_ready_bytes", "bytes", True, "server RSS when its first request succeeded"),
    Metric("server.stop_s", "s", True, "time from the stop request to the server's exit"),
    Metric("load.throughput_rps", "req/s", False, "successful requests per second in the measured phases"),
    Metric("load.latency_p50_ms", "ms", True, "median request latency (fixed rate: from intended start)",
           "latency p50"),
    Metric("load.latency_p90_ms", "ms", True, "90th percentile request latency", "latency p90"),
    Metric("load.latency_p99_ms", "ms", True, "99th percentile request latency", "latency p99"),
    Metric("load.latency_p999_ms", "ms", True, "99.9th percentile request latency", "latency p99.9"),
    Metric("load.latency_max_ms", "ms", True, "longest request latency", "latency max"),
    Metric("load.requests", "count", False, "successful requests in the measured phases"),
    Metric("load.errors", "count", True, "failed requests (non-2xx, connection errors)"),
    Metric("load.target_rps", "req/s", False, "the fixed rate asked of the server (open loop; jvmlab's generator)"),
    Metric("load.achieved_share", "share", False,
           "successful requests per second over the fixed rate asked: below 0.95 the server fell behind"),
    Metric("client.cpu_s", "s", True, "CPU time of the load clients (kept apart from the server's)"),
    Metric("client.max_rss_bytes", "bytes", True, "peak RSS of the largest load client"),
]

REGISTRY: dict[str, Metric] = {m.name: m for m in _METRICS}

# Prefix -> default direction for metrics created at run time.
_DYNAMIC_PREFIXES = {"workload.": True, "gc.": True, "jmh.": True, "load.": True}
JMH_PREFIX = "jmh."


def _guess_lower(name: str, unit: str) -> bool:
    """Direction of a metric made at run time: JMH's by its mode's unit (throughput modes score
    ``ops/<time>``, higher is better; average-time, sample-time and single-shot modes score
    ``<time>/op``, lower is better), others by name/unit."""
    if name.startswith(JMH_PREFIX):
        return not unit.startswith("ops/")
    return not is_rate(name, unit)


def get(name: str, unit: str | None = None) -> Metric:
    """Look a metric up by name; dynamic names (``workload.x``) are made on the fly."""
    if name in REGISTRY:
        return REGISTRY[name]
    for prefix, lower in _DYNAMIC_PREFIXES.items():
        if name.startswith(prefix) and len(name) > len(prefix):
            return Metric(name, unit or "", lower and _guess_lower(name, unit or ""),
                          f"{name} (reported at run time)")
    raise UserError(f"unknown metric {name!r}{did_you_mean(name, REGISTRY)}; "
                    f"`jvmlab metrics` lists them")


def is_rate(name: str, unit: str) -> bool:
    """Throughput-like metrics (``chunks_per_s``, unit ``ops/s``): higher is better."""
    return unit.endswith("/s") or name.endswith(("_per_s", "_per_sec", "_rate", "_ops"))


def dynamic_metric(name: str, unit: str, lower_is_better: bool | None = None) -> Metric:
    """A metric discovered at run time (a workload's own, a JMH score, a load client's).
    Its direction is guessed from its name and unit unless given (rates: higher is better)."""
    lower = _guess_lower(name, unit) if lower_is_better is None else lower_is_better
    return Metric(name, unit, lower, f"{name} (reported at run time)")


@dataclass(frozen=True)
class MetricRegistry:
    """A read-only lookup of metrics: the built-in ones, plus (after :meth:`extended`) the
    dynamic ``workload.*`` / ``load.*`` / ``jfr.*`` / ``jmh.*`` metrics one experiment
    stored with their units. Loaded results carry one; nothing global is mutated."""

    by_name: Mapping[str, Metric]

    def get(self, name: str, unit: str | None = None) -> Metric:
        """The metric by name; unknown names fall back to the built-in rules (prefixes)."""
        found = self.by_name.get(name)
        return found if found is not None else get(name, unit)

    def __contains__(self, name: object) -> bool:
        return name in self.by_name

    def names(self) -> tuple[str, ...]:
        return tuple(self.by_name)

    def extended(self, units: Mapping[str, str]) -> MetricRegistry:
        """A new registry that also knows the metrics in ``units`` (name -> unit) it did not
        know; ``self`` is unchanged. Known names keep their registered definition."""
        added = {name: dynamic_metric(name, unit) for name, unit in units.items() if name not in self.by_name}
        if not added:
            return self
        return MetricRegistry(MappingProxyType({**self.by_name, **added}))


DEFAULT = MetricRegistry(MappingProxyType(REGISTRY))  # the built-in metrics (a live, read-only view)
