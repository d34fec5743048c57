"""The findings of the second pass (issue 41): the classic problems garbagecat, GCeasy and
JMC's rules name, from the facts folded in the summary's one pass.

``serial-old``, ``live-set-growth``, ``pause-goal-missed``, ``consecutive-full-gc``,
``heap-exceeds-memory``, ``out-of-memory``, ``large-pages-failed``, ``low-freed-ratio`` and
``compressed-oops-off``. Each threshold is a named constant here; docs/gclog.md ("Findings")
gives its reason and source.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from jvmlab.gclog import detect
from jvmlab.gclog import findings_fixes as fx
from jvmlab.gclog.findings_context import Context, evidence
from jvmlab.gclog.findings_fold import CONSECUTIVE_FULL_MIN, LOW_FREED_FRACTION
from jvmlab.gclog.findings_model import ERROR, INFO, WARN, Evidence, Finding, Fix

LIVE_SET_MIN_POINTS = 8  # old/full collections after warm-up needed for a slope with a usable interval
LIVE_SET_WARMUP_FRACTION = 0.25  # the first quarter of them (at least 2) is start-up: left out of the fit
LIVE_SET_MIN_GROWTH_FRACTION = 0.25  # the fitted growth over the window: a quarter of the live set at least
LIVE_SET_MIN_GROWTH_MB = 8.0  # and 8 MB at least (small heaps wobble by a few MB)
PAUSE_GOAL_MISSED_SHARE = 0.1  # G1 aims to meet its goal for ~90% of pauses: more than 10% over is a miss
PAUSE_GOAL_MIN_PAUSES = 10
LOW_FREED_MIN_COUNT = 2  # two full collections that freed under LOW_FREED_FRACTION of the heap
LOW_FREED_MIN_SHARE = 0.5  # and at least half of the full collections with heap figures
HEAP_OF_MEMORY_FRACTION = 0.75  # a heap that leaves a quarter of the machine for the JVM and the OS
COMPRESSED_OOPS_LIMIT_MB = 32 * 1024  # HotSpot drops compressed oops for a heap of 32 GB or more
COMPRESSED_OOPS_WORTH_MB = 48 * 1024  # up to ~48 GB, a 31 GB heap with compressed oops holds as much

# Two-sided 95% Student t quantiles by degrees of freedom (the largest df listed <= df is used:
# conservative between rows).
_T975 = ((1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (5, 2.571), (6, 2.447), (7, 2.365), (8, 2.306),
         (9, 2.262), (10, 2.228), (12, 2.179), (15, 2.131), (20, 2.086), (30, 2.042), (60, 2.000), (120, 1.980))


def _t975(df: int) -> float:
    out = _T975[0][1]
    for d, q in _T975:
        if d <= df:
            out = q
    return out


_PARALLEL_OLD = Fix(("-XX:+UseParallelOldGC",), "the old generation is collected by all GC threads instead of one "
                    "(JDK 8-14; the default since JDK 7u4 unless turned off)", "serial-old")

_USE_ZGC = Fix(("-XX:+UseZGC",), "ZGC's pauses stay under a millisecond whatever the heap size "
               "(JDK 15+; on JDK 21-22 add -XX:+ZGenerational)", "collector")


def _heap_within(physical_mb: float, metaspace_mb: float) -> Fix | None:
    size = math.floor(physical_mb * HEAP_OF_MEMORY_FRACTION - metaspace_mb)
    if size <= 0:
        return None
    return Fix((f"-Xmx{size}m",), f"a heap of {HEAP_OF_MEMORY_FRACTION:.0%} of the machine's {physical_mb:.0f} MB "
               f"(less Metaspace): no swapping, no OOM killer", "heap")


_COMPRESSED_OOPS = Fix(("-Xmx31g",), "a heap under 32 GB keeps compressed (32-bit) references: a 31 GB heap holds "
                       "about as much as a 40-48 GB one without them, and caches better", "heap")

_THP = Fix(("-XX:+UseTransparentHugePages",), "large pages from the kernel's transparent huge pages, "
           "which need no pages reserved in advance", "large-pages")


def serial_old(ctx: Context) -> Finding | None:
    legacy = ctx.s.format == detect.LEGACY
    if ctx.collector == "Parallel" and ctx.lines.serial_old.count:
        t = ctx.lines.serial_old
        return Finding("serial-old", ERROR, "old generation collected by one thread (PSOldGen)",
                       f"{t.count} full collection(s) ran the serial old collector (PSOldGen) under the parallel "
                       f"collector: one GC thread compacts the whole old generation.",
                       evidence(t, line=ctx.lines.serial_old_line),
                       (_PARALLEL_OLD,))
    if not legacy or ctx.collector not in ("CMS", "G1") or not ctx.e.all_full.count:
        return None
    t = ctx.e.all_full
    if ctx.collector == "CMS":
        text = (f"{t.count} full collection(s) fell back to CMS's serial mark-sweep-compact (after a concurrent "
                f"mode or promotion failure, or on request): one thread collects the whole heap.")
        fixes = fx.present(fx.CMS_OCCUPANCY, fx.heap(ctx.max_mb))
    else:
        text = (f"{t.count} G1 full collection(s) on JDK 8: G1's full collection is single-threaded before "
                f"JDK 10.")
        fixes = fx.present(fx.heap(ctx.max_mb), fx.G1_RESERVE)
    return Finding("serial-old", ERROR, "old generation collected by one thread", text, evidence(t), fixes,
                   "JDK 10+ runs G1's full collection in parallel; avoiding the full collection helps on any JDK.")


def _fit(ts: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope of ys over ts and its standard error."""
    n = len(ts)
    mt, my = sum(ts) / n, sum(ys) / n
    sxx = sum((t - mt) ** 2 for t in ts)
    if sxx <= 0:
        return 0.0, math.inf
    slope = sum((t - mt) * (y - my) for t, y in zip(ts, ys, strict=True)) / sxx
    resid = sum((y - my - slope * (t - mt)) ** 2 for t, y in zip(ts, ys, strict=True))
    return slope, math.sqrt(resid / (n - 2) / sxx)


def live_set_growth(ctx: Context) -> Finding | None:
    e = ctx.e
    ts, ys = list(e.live_t), list(e.live_mb)
    skip = max(2, math.ceil(len(ts) * LIVE_SET_WARMUP_FRACTION))
    ts, ys = ts[skip:], ys[skip:]
    if len(ts) < LIVE_SET_MIN_POINTS:
        return None
    slope, se = _fit(ts, ys)
    q = _t975(len(ts) - 2)
    lo, hi = slope - q * se, slope + q * se
    window = ts[-1] - ts[0]
    grown = slope * window
    first = sum(ys[: max(1, len(ys) // 4)]) / max(1, len(ys) // 4)
    if lo <= 0 or grown < max(LIVE_SET_MIN_GROWTH_MB, LIVE_SET_MIN_GROWTH_FRACTION * first):
        return None
    per_min = 60.0 * slope
    return Finding("live-set-growth", WARN, "the live set keeps growing (a leak?)",
                   f"The heap left after old/full collections grew by {per_min:.3g} MB/min "
                   f"(95% interval {60 * lo:.3g}..{60 * hi:.3g}) over {len(ts)} collections after warm-up, "
                   f"about {grown:.0f} MB from {first:.0f} MB: if it goes on, the heap fills and full "
                   f"collections follow.",
                   Evidence(len(ts), None, None, ts[0], ts[-1], (),
                            (("slope_mb_per_min", per_min), ("slope_lo_mb_per_min", 60 * lo),
                             ("slope_hi_mb_per_min", 60 * hi), ("growth_mb", grown), ("first_mb", first))),
                   (), "A bigger heap only delays it: compare two heap histograms (jcmd GC.class_histogram) "
                   "taken minutes apart, or take a heap dump.")


def pause_goal_missed(ctx: Context) -> Finding | None:
    goal = ctx.s.pause_goal_ms or ctx.lines.pause_goal_ms
    p = ctx.s.pauses
    if not goal or p.count < PAUSE_GOAL_MIN_PAUSES or not ctx.s.pauses_logged:
        return None
    over = p.count_above(goal)
    share = over / p.count
    if share <= PAUSE_GOAL_MISSED_SHARE:
        return None
    fixes = (_USE_ZGC,) if ctx.collector in ("G1", "Parallel", "CMS") else ()
    return Finding("pause-goal-missed", WARN, "pauses miss the pause-time goal",
                   f"{over} of {p.count} pauses ({100 * share:.0f}%) took longer than the goal of {goal:g} ms "
                   f"(-XX:MaxGCPauseMillis; threshold {100 * PAUSE_GOAL_MISSED_SHARE:.0f}% of pauses); the "
                   f"longest took {p.max:.1f} ms.",
                   Evidence(over, None, p.max, ctx.s.first_pause_t, ctx.s.last_pause_t, (),
                            (("over_goal_share", share), ("goal_ms", goal),
                             ("threshold_share", PAUSE_GOAL_MISSED_SHARE))),
                   fixes, "A goal the collector cannot meet only shrinks the young generation (more, not "
                   "shorter, pauses): set one it can meet, or a low-pause collector.")


def consecutive_full(ctx: Context) -> Finding | None:
    e = ctx.e
    if not e.full_runs:
        return None
    return Finding("consecutive-full-gc", ERROR, "full collections back to back",
                   f"{e.full_runs} run(s) of {CONSECUTIVE_FULL_MIN} or more full collections with no other "
                   f"collection between (longest {e.longest_full_run}): each frees too little for the "
                   f"application to run on; the heap is full.",
                   evidence(e.consecutive, (("runs", float(e.full_runs)), ("longest_run", float(e.longest_full_run)))),
                   fx.present(fx.heap(ctx.max_mb)), "If the heap is full of live objects, suspect a leak.")


def heap_exceeds_memory(ctx: Context) -> Finding | None:
    physical = ctx.lines.physical_mb
    if not physical or not ctx.max_mb:
        return None
    meta = ctx.lines.metaspace_max_mb or 0.0
    if ctx.max_mb + meta <= physical:
        return None
    return Finding("heap-exceeds-memory", ERROR, "the heap is larger than the machine's memory",
                   f"The maximum heap ({ctx.max_mb:.0f} MB)"
                   + (f" plus Metaspace ({meta:.0f} MB)" if meta else "")
                   + f" is more than the {physical:.0f} MB of memory the log's header states: a full heap "
                   f"swaps or the kernel kills the JVM.",
                   Evidence(1, figures=(("heap_max_mb", ctx.max_mb), ("metaspace_max_mb", meta),
                                        ("physical_mb", physical))),
                   fx.present(_heap_within(physical, meta)))


def out_of_memory(ctx: Context) -> Finding | None:
    t = ctx.lines.oom
    if not t.count:
        return None
    return Finding("out-of-memory", ERROR, "OutOfMemoryError",
                   f"The log reports running out of memory {t.count} time(s).",
                   evidence(t, line=ctx.lines.oom_line),
                   fx.present(fx.heap(ctx.max_mb)),
                   "If the heap after full collections keeps rising, it is a leak: -XX:+HeapDumpOnOutOfMemoryError.")


def large_pages_failed(ctx: Context) -> Finding | None:
    t = ctx.lines.large_pages
    if not t.count:
        return None
    return Finding("large-pages-failed", WARN, "large pages were asked for but not given",
                   f"The JVM could not get large pages ({t.count} message(s)) and runs on small pages: "
                   f"more TLB misses than the flag was set for.",
                   evidence(t, line=ctx.lines.large_pages_line),
                   (_THP,), "Reserve huge pages (vm.nr_hugepages) and give the JVM's user access, or drop "
                   "-XX:+UseLargePages.")


def low_freed(ctx: Context) -> Finding | None:
    e = ctx.e
    t = e.low_freed
    if t.count < LOW_FREED_MIN_COUNT or t.count < LOW_FREED_MIN_SHARE * e.full_with_heap:
        return None
    return Finding("low-freed-ratio", WARN, "full collections free little",
                   f"{t.count} of {e.full_with_heap} full collection(s) freed under "
                   f"{100 * LOW_FREED_FRACTION:.0f}% of the heap they started with: the heap is mostly live.",
                   evidence(t, (("threshold_fraction", LOW_FREED_FRACTION),)),
                   fx.present(fx.heap(ctx.max_mb)), "Suspect a leak if the live set also grows.")


def compressed_oops_off(ctx: Context) -> Finding | None:
    line = ctx.lines.oops_off_line
    big = (ctx.max_mb is not None and ctx.max_mb >= COMPRESSED_OOPS_LIMIT_MB
           and not ctx.collector.startswith("ZGC"))  # ZGC has no compressed oops at any size
    if line is None and not big:
        return None
    fixes: tuple[Fix, ...] = ()
    if big and ctx.max_mb is not None and ctx.max_mb <= COMPRESSED_OOPS_WORTH_MB:
        fixes = (_COMPRESSED_OOPS,)
    elif line is not None and ctx.max_mb is not None and ctx.max_mb < COMPRESSED_OOPS_LIMIT_MB:
        fixes = (Fix(("-XX:+UseCompressedOops",), "32-bit references: smaller objects, better caching", "oops"),)
    why = (f"the maximum heap ({ctx.max_mb / 1024:.1f} GB) is 32 GB or more" if big and ctx.max_mb
           else "the log says so")
    return Finding("compressed-oops-off", INFO, "compressed references are off",
                   f"Object references take 64 bits ({why}): objects are larger and fewer fit in the caches.",
                   Evidence(1, examples=tuple(x for x in (line,) if x),
                            figures=(("heap_max_mb", ctx.max_mb or 0.0),
                                     ("limit_mb", float(COMPRESSED_OOPS_LIMIT_MB)))), fixes)


RULES: tuple[Callable[[Context], Finding | None], ...] = (
    serial_old, live_set_growth, pause_goal_missed, consecutive_full, heap_exceeds_memory, out_of_memory,
    large_pages_failed, low_freed, compressed_oops_off)
