"""The finding rules: which facts of a log make which finding, with the thresholds named.

Each threshold is a constant here (those of safepoints and CPU times in findings_stops), and
docs/gclog.md ("Findings") gives its reason. A rule
fires only on what the log shows: a log without safepoint lines gets no ``long-safepoint``
finding, one without CPU times no ``cpu-starved`` (absence of evidence is not reported as
health either: ``gc analyze`` prints what it could not check).
"""

from __future__ import annotations

from dataclasses import replace

from jvmlab.gclog import findings_fixes as fx
from jvmlab.gclog import findings_more as more
from jvmlab.gclog.findings_context import Context, evidence
from jvmlab.gclog.findings_fold import EXPLICIT, GC_LOCKER, HUMONGOUS, METASPACE
from jvmlab.gclog.findings_model import ERROR, INFO, WARN, Evidence, Finding, Fix, severity_rank
from jvmlab.gclog.findings_scan import Tally
from jvmlab.gclog.findings_stops import cpu_findings, safepoint_finding
from jvmlab.gclog.summary import LogSummary

GC_OVERHEAD_PCT = 10.0  # paused share of the log's span above which GC costs a tenth of the run
GC_OVERHEAD_MIN_SPAN_S = 1.0  # shorter logs are mostly start-up: their share says little
HEAP_NEAR_MAX_FRACTION = 0.8  # heap after a full collection at 80%+ of the maximum: <20% headroom
PREMATURE_PROMOTION_FRACTION = 0.3  # promoted / allocated: a healthy young generation promotes a few %
PREMATURE_PROMOTION_MIN_YOUNG = 10
FREQUENT_YOUNG_INTERVAL_S = 0.2  # more than 5 young collections per second on average
FREQUENT_YOUNG_MIN_COUNT = 20
UNIDENTIFIED_WARN_LINES = 1000
METASPACE_WARN_COUNT = 5  # a few Metaspace collections while classes load at start-up are normal

SYSTEM_GC = "System.gc()"
HEAP_FAR_BELOW_FRACTION = 0.5  # gc-overhead: a heap that peaked under half its maximum is not short of room
HEAP_INSPECTION = "Heap Inspection Initiated GC"
HEAP_DUMP = "Heap Dump Initiated GC"
LAST_DITCH = ("Last ditch collection", "Metadata GC Clear Soft References")
EVACUATION_FAILURES = ("to-space exhausted", "to-space overflow", "evacuation failure")

# Which of the lines the fold kept (findings_fold.LogFold.examples) illustrate a finding.
EXAMPLE_KEYS: dict[str, tuple[str, ...]] = {
    "evacuation-failure": ("failure:to-space exhausted", "failure:to-space overflow", "failure:evacuation failure"),
    "promotion-failure": ("failure:promotion failed",),
    "concurrent-mode-failure": ("failure:concurrent mode failure",),
    "heap-near-max": ("full-gc",),
    "frequent-young": ("young",),
    "premature-promotion": ("young",),
    "gc-overhead": ("pause", "any-full"),
    "serial-old": ("any-full",),
    "consecutive-full-gc": ("full-gc",),
    "low-freed-ratio": ("full-gc",),
    "live-set-growth": ("any-full",),
    "pause-goal-missed": ("pause",),
}


def _requested(ctx: Context) -> list[Finding]:
    out = []
    t = ctx.causes(EXPLICIT)
    if t.count:
        system = ctx.causes((SYSTEM_GC,)).count
        served = ctx.served(EXPLICIT)
        full = "Full" in served
        concurrent = ctx.collector in ("G1", "CMS", "Shenandoah")
        fixes: tuple[Fix, ...] = (fx.DISABLE_EXPLICIT,) if system else ()
        if system and full and concurrent:  # already concurrent otherwise
            fixes += (fx.EXPLICIT_CONCURRENT,)
        by = ", ".join(f"{ctx.causes((c,)).count}x {c}" for c in EXPLICIT if ctx.causes((c,)).count)
        what = (f"System.gc() started {t.count} collection(s)" if system == t.count
                else f"{t.count} collection(s) were asked for ({by})")
        out.append(Finding(
            "explicit-gc", ERROR if full and concurrent else WARN,
            "System.gc() calls" if system == t.count else "explicit collections (System.gc(), JVMTI, jcmd)",
            f"{what}, served by the {ctx.collector or 'collector'} as: {served or 'unknown'}. They are "
            f"collections the heap did not ask for.", evidence(t), fixes,
            "Find the caller: System.gc() (jcmd Thread.print; RMI's distributed GC calls it hourly, "
            "sun.rmi.dgc.server.gcInterval); JvmtiEnv ForceGarbageCollection comes from an agent (profiler, "
            "debugger); Diagnostic Command from jcmd GC.run. -XX:+DisableExplicitGC turns off only System.gc()."))
    for key, cause, what in (("heap-inspection-gc", HEAP_INSPECTION, "class histograms (jmap -histo:live, "
                                                                     "jcmd GC.class_histogram)"),
                             ("heap-dump-gc", HEAP_DUMP, "heap dumps (jmap -dump:live, jcmd GC.heap_dump)")):
        t = ctx.causes((cause,))
        if t.count:
            out.append(Finding(key, WARN, f"collections for {what.split(' (')[0]}",
                               f"{t.count} full collection(s) were requested by {what}; each stops the "
                               f"application for a whole-heap collection.", evidence(t), (),
                               "Find the tool or agent that asks for them (monitoring agents, cron jobs); "
                               "no JVM flag turns them off."))
    return out


def _evacuation(ctx: Context) -> Finding | None:
    t = ctx.failures(EVACUATION_FAILURES)
    if not t.count:
        return None
    return Finding("evacuation-failure", ERROR, "evacuation failure (to-space exhausted)",
                   f"{t.count} collection(s) found no free region to copy live objects into; G1 then "
                   f"keeps them in place and the pause grows, often followed by a full collection.",
                   evidence(t), fx.present(fx.heap(ctx.max_mb), fx.G1_RESERVE))


def _full(ctx: Context) -> Finding | None:
    known = ctx.collector in ("Parallel", "Serial", "ZGC", "Epsilon")  # full collections are their way
    if known or ctx.collector.startswith(("J9", "Zing", "Metronome")) or not ctx.e.full.count:
        return None
    causes = ", ".join(f"{n}x {c}" for c, n in sorted(ctx.e.full_causes.items(), key=lambda kv: -kv[1]))
    fixes = [fx.heap(ctx.max_mb)]
    if ctx.collector == "G1":
        fixes.append(fx.G1_RESERVE)
    if ctx.collector == "CMS":
        fixes.append(fx.CMS_OCCUPANCY)
    if not ctx.collector:  # a log without its header, whose events name no collector
        return Finding("full-gc", WARN, "full collections (collector unknown)",
                       f"{ctx.e.full.count} stop-the-world full collection(s) ({causes}); the log does not "
                       f"name its collector: under G1, CMS or Shenandoah these are fallbacks.",
                       evidence(ctx.e.full), fx.present(fixes[0]))
    return Finding("full-gc", ERROR, f"{ctx.collector} fell back to full collections",
                   f"{ctx.e.full.count} stop-the-world full collection(s) ({causes}): the concurrent "
                   f"collector could not keep up and collected the whole heap with the application stopped.",
                   evidence(ctx.e.full), fx.present(*fixes))


def _degenerated(ctx: Context) -> Finding | None:
    t = ctx.e.degenerated
    if not t.count:
        return None
    return Finding("degenerated-gc", WARN, "Shenandoah degenerated cycles",
                   f"{t.count} concurrent cycle(s) ran out of memory and finished stop-the-world.",
                   evidence(t), fx.present(fx.heap(ctx.max_mb)))


def _humongous(ctx: Context) -> Finding | None:
    t = ctx.causes(HUMONGOUS)
    if not t.count:
        return None
    region = f" (regions of {ctx.region_mb:g} MB)" if ctx.region_mb else ""
    return Finding("humongous-allocation", INFO, "humongous allocations start collections",
                   f"{t.count} collection(s) were started by objects of half a region or more{region}; "
                   f"G1 puts each in contiguous regions of its own, outside the young generation.",
                   evidence(t), tuple(fx.region(ctx.region_mb)),
                   "Or allocate fewer large arrays (reuse buffers, chunk them).")


def _metaspace(ctx: Context) -> Finding | None:
    t = ctx.causes(METASPACE)
    if not t.count:
        return None
    last = ctx.causes(LAST_DITCH).count
    served = ctx.served(METASPACE)
    full = "Full" in served
    severity = ERROR if last or full else WARN if t.count >= METASPACE_WARN_COUNT else INFO
    return Finding("metaspace-gc", severity, "collections triggered by Metaspace",
                   f"{t.count} collection(s) were started because class metadata reached its high-water "
                   f"mark (served as: {served or 'unknown'})"
                   + (f"; {last} were last-ditch collections before an OutOfMemoryError" if last else "")
                   + ("; full collections mean Metaspace reached its maximum" if full and not last else "")
                   + ".", evidence(t), tuple(fx.metaspace(bool(last) or full)),
                   "Steady growth means classes are generated and kept (a class-loader leak).")


def _stalls(ctx: Context) -> Finding | None:
    t = ctx.e.stalls
    if not t.count:
        return None
    return Finding("allocation-stall", ERROR, "allocation stalls",
                   f"Application threads waited {t.count} time(s) for the concurrent collector to free "
                   f"memory: the heap is too small for the allocation rate.", evidence(t),
                   fx.present(fx.heap(ctx.max_mb, fx.STALL_HEAP_GROWTH)))


def _gc_locker(ctx: Context) -> Finding | None:
    t = ctx.causes(GC_LOCKER)
    if not t.count:
        return None
    return Finding("gc-locker", WARN, "collections delayed by JNI critical regions",
                   f"{t.count} collection(s) waited for threads inside JNI critical regions "
                   f"(GetPrimitiveArrayCritical) and ran when the last one left.", evidence(t), (),
                   "Shorten the native code's critical sections; no flag removes them.")


def _failure(ctx: Context, key: str, words: str, title: str, text: str) -> Finding | None:
    t = ctx.failures((words,))
    if not t.count:
        return None
    fixes = [fx.heap(ctx.max_mb)]
    if ctx.collector == "CMS":
        fixes += [fx.CMS_OCCUPANCY, fx.USE_G1]
    return Finding(key, ERROR, title, f"{t.count} time(s): {text}", evidence(t), fx.present(*fixes))


def _overhead(ctx: Context) -> Finding | None:
    limit = ctx.lines.time_limit
    thr = ctx.s.throughput_pct()
    span = ctx.s.span_s or 0.0
    paused = None if thr is None or not ctx.s.pauses_logged else 100.0 - thr
    over = paused is not None and paused > GC_OVERHEAD_PCT and span >= GC_OVERHEAD_MIN_SPAN_S
    if not over and not limit.count:
        return None
    p = ctx.s.pauses
    ev = Evidence(p.count, p.total, p.max if p.count else None, ctx.s.first_pause_t, ctx.s.last_pause_t,
                  tuple(x for x in (ctx.lines.time_limit_line,) if x),
                  (("paused_pct", paused or 0.0), ("threshold_pct", GC_OVERHEAD_PCT), ("span_s", span)))
    text = (f"Pauses took {paused:.1f}% of the log's {span:.1f} s (threshold {GC_OVERHEAD_PCT:g}%)."
            if paused is not None else "")
    if limit.count:
        text += " The JVM reported its GC time limit exceeded."
    fixes, why, advice = _overhead_fixes(ctx, p.total)
    return Finding("gc-overhead", ERROR if limit.count else WARN, "GC takes a large share of the time",
                   (text + why).strip(), ev, fixes, advice)


def _overhead_fixes(ctx: Context, paused_ms: float) -> tuple[tuple[Fix, ...], str, str]:
    """A bigger heap only when the heap is the likely cause: not when System.gc() started most
    of the paused time (its fix is to stop the calls), nor when the heap peaked far below its
    maximum (room it never used); (fixes, words for the finding, advice)."""
    explicit = ctx.causes((SYSTEM_GC,))
    if explicit.count and explicit.total_ms >= 0.5 * paused_ms > 0:
        return (fx.present(fx.DISABLE_EXPLICIT),
                f" System.gc() started {explicit.count} of the collections, {explicit.total_ms:.0f} ms of the "
                f"{paused_ms:.0f} ms paused: a bigger heap would not remove them.", "")
    peak = ctx.s.figures.heap_used_max
    if ctx.max_mb and peak is not None and peak < HEAP_FAR_BELOW_FRACTION * ctx.max_mb:
        return ((), f" The heap peaked at {peak:.0f} MB of its {ctx.max_mb:.0f} MB maximum: a bigger heap "
                f"adds room it never used.",
                "Look at what the collections do with the room they have: the allocation rate, the young "
                "generation's size, and the GC threads against the CPUs.")
    return fx.present(fx.heap(ctx.max_mb)), "", ""


def _near_max(ctx: Context) -> Finding | None:
    denominator = ctx.max_mb or ctx.s.figures.heap_committed_max
    if not denominator or not ctx.e.full_after:
        return None
    near = [(t, a) for t, a, _ in ctx.e.full_after if a >= HEAP_NEAR_MAX_FRACTION * denominator]
    if not near:
        return None
    tally = Tally()
    for t, _ in near:
        tally.add(t, None)
    worst = max(a for _, a in near)
    what = "maximum heap" if ctx.max_mb else "largest committed heap (the maximum is not in the log)"
    return Finding("heap-near-max", WARN, "heap nearly full after full collections",
                   f"{len(near)} of {len(ctx.e.full_after)} full collection(s) left {worst:.0f} MB or more "
                   f"of {denominator:.0f} MB ({what}) in use: the live set leaves under "
                   f"{100 - 100 * HEAP_NEAR_MAX_FRACTION:.0f}% headroom.",
                   evidence(tally, (("after_gc_mb", worst), ("max_mb", denominator),
                                     ("threshold_fraction", HEAP_NEAR_MAX_FRACTION))),
                   fx.present(fx.heap(ctx.max_mb)),
                   "If the occupancy after full collections keeps rising, suspect a leak: a bigger heap "
                   "only delays it (take a heap dump).")


def _promotion(ctx: Context) -> Finding | None:
    s = ctx.s
    young = ctx.e.young
    if not s.promotion_known or s.allocated_mb <= 0 or young.count < PREMATURE_PROMOTION_MIN_YOUNG:
        return None
    share = s.promoted_mb / s.allocated_mb
    if share < PREMATURE_PROMOTION_FRACTION:
        return None
    return Finding("premature-promotion", INFO, "much of the young generation is promoted",
                   f"Young collections promoted {100 * share:.0f}% of what was allocated "
                   f"({s.promoted_mb:.0f} of {s.allocated_mb:.0f} MB; threshold "
                   f"{100 * PREMATURE_PROMOTION_FRACTION:.0f}%): objects reach the old generation before "
                   f"they die, which fills it and leads to old collections.",
                   evidence(young, (("promoted_fraction", share),
                                     ("threshold_fraction", PREMATURE_PROMOTION_FRACTION))),
                   fx.present(fx.young(s.figures.young_max), fx.TENURING))


def _frequent_young(ctx: Context) -> Finding | None:
    y = ctx.e.young
    if y.count < FREQUENT_YOUNG_MIN_COUNT or y.first_t_s is None or y.last_t_s is None:
        return None
    interval = (y.last_t_s - y.first_t_s) / (y.count - 1)
    if interval >= FREQUENT_YOUNG_INTERVAL_S:
        return None
    return Finding("frequent-young", INFO, "young collections are very frequent",
                   f"{y.count} young collections, one every {1000 * interval:.0f} ms on average "
                   f"(threshold {1000 * FREQUENT_YOUNG_INTERVAL_S:.0f} ms): the young generation is small "
                   f"for the allocation rate.",
                   evidence(y, (("interval_mean_s", interval), ("threshold_s", FREQUENT_YOUNG_INTERVAL_S))),
                   fx.present(fx.young(ctx.s.figures.young_max)))


def _unidentified(ctx: Context) -> Finding | None:
    n = ctx.s.unparsed_lines
    if not n:
        return None
    return Finding("unidentified-lines", WARN if n >= UNIDENTIFIED_WARN_LINES else INFO,
                   "lines jvmlab could not read",
                   f"{n} line(s) of the log were not understood and are left out of every figure.",
                   Evidence(n, examples=tuple(ctx.s.unparsed_samples[:2])), (),
                   "If they are GC lines, report them with a sample; application output mixed into the "
                   "GC log (stdout) is the usual cause.")


def evaluate(summary: LogSummary) -> list[Finding]:
    """Every finding of an analyzed log, most severe first, with example lines (from the facts
    folded in the summary's own pass: no file is read again)."""
    ctx = Context(summary)
    found: list[Finding] = list(_requested(ctx))
    for rule in (_evacuation, _full, _degenerated, _humongous, _metaspace, _stalls, _gc_locker,
                 _overhead, _near_max, _promotion, _frequent_young, safepoint_finding, _unidentified,
                 *more.RULES):
        f = rule(ctx)
        if f is not None:
            found.append(f)
    for key, words, title, text in (
            ("promotion-failure", "promotion failed", "promotion failures",
             "a young collection could not promote survivors into the old generation (full or fragmented) "
             "and fell back to a slow full collection."),
            ("concurrent-mode-failure", "concurrent mode failure", "CMS concurrent mode failures",
             "the old generation filled before CMS's concurrent cycle finished; the JVM ran a serial "
             "full collection instead.")):
        f = _failure(ctx, key, words, title, text)
        if f is not None:
            found.append(f)
    found.extend(cpu_findings(ctx))
    found = [_with_examples(summary, f) for f in found]
    return sorted(found, key=lambda f: severity_rank(f.severity))


def _with_examples(summary: LogSummary, f: Finding) -> Finding:
    if f.evidence.examples:
        return f
    lines: list[str] = []
    for key in EXAMPLE_KEYS.get(f.id, (f.id,)):
        lines += [x for x in summary.fold.examples.get(key, ()) if x not in lines]
    if not lines:
        return f
    return replace(f, evidence=replace(f.evidence, examples=tuple(lines[:2])))
