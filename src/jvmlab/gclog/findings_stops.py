"""Findings about where stopped time goes besides the collection itself: safepoints (time to
reach them, non-GC operations) and the CPU the GC threads got (descheduled, starved, slower
than one thread). Each needs lines the log may not have; without them no finding fires.
Thresholds are named here and explained in docs/gclog.md ("Findings")."""

from __future__ import annotations

from jvmlab.gclog import detect
from jvmlab.gclog import findings_fixes as fx
from jvmlab.gclog.findings_context import PARALLEL, Context, evidence
from jvmlab.gclog.findings_model import WARN, Finding
from jvmlab.gclog.findings_scan import CPU_MIN_REAL_S, CPU_STARVED_FACTOR, Tally

LONG_SAFEPOINT_SHARE = 0.2  # time to safepoint, or non-GC operations, above 20% of stopped time
LONG_SAFEPOINT_MIN_STOPPED_MS = 100.0  # below that the application was hardly stopped at all
LONG_SAFEPOINT_MIN_SPAN_PCT = 1.0  # and the slow part must cost 1% of the log's span to matter
LONG_TTSP_MS = 100.0  # one wait this long for threads to stop is a latency problem by itself
CPU_MIN_PAUSES = 3  # one or two slow pauses can be a hiccup; three are a pattern


def safepoint_finding(ctx: Context) -> Finding | None:
    sp = ctx.lines.safepoints
    if sp.count == 0 or sp.total_ms < LONG_SAFEPOINT_MIN_STOPPED_MS:
        return None
    reach_share = sp.reach.total_ms / sp.total_ms if sp.reach_known else 0.0
    non_gc = sp.non_gc
    ops_known = sp.ops_known
    if not ops_known and ctx.s.pauses_logged and ctx.s.pauses.count:
        # JDK 8 "Total time for which application threads were stopped" lines name no operation:
        # what is not GC pause time was stopped for something else (the pauses are safepoints too)
        non_gc = Tally(sp.count, max(0.0, sp.total_ms - ctx.s.pauses.total), None, ctx.s.figures.first_t,
                       ctx.s.figures.last_t, True)
        ops_known = True
    non_gc_share = non_gc.total_ms / sp.total_ms if ops_known else 0.0
    worst = sp.reach.worst_ms or 0.0
    slow_ms = max(sp.reach.total_ms if sp.reach_known else 0.0, non_gc.total_ms if ops_known else 0.0)
    span_ms = 1000.0 * (ctx.s.span_s or 0.0)
    costly = span_ms > 0 and 100.0 * slow_ms / span_ms >= LONG_SAFEPOINT_MIN_SPAN_PCT
    if worst < LONG_TTSP_MS and not (max(reach_share, non_gc_share) > LONG_SAFEPOINT_SHARE and costly):
        return None
    parts = []
    if sp.reach_known:
        parts.append(f"reaching safepoints took {100 * reach_share:.0f}% of the {sp.total_ms:.0f} ms stopped "
                     f"(worst {worst:.1f} ms)")
    if sp.ops_known and sp.non_gc.count:
        ops = ", ".join(f"{n}x {op}" for op, n in sorted(sp.non_gc_ops.items(), key=lambda kv: -kv[1])[:5])
        parts.append(f"non-GC operations took {100 * non_gc_share:.0f}% ({ops})")
    elif ops_known and non_gc.total_ms > 0:
        parts.append(f"{100 * non_gc_share:.0f}% of the {sp.total_ms:.0f} ms stopped was not GC pauses "
                     f"({sp.count} stops; the log names no operation: -Xlog:safepoint or "
                     f"-XX:+PrintSafepointStatistics name them)")
    slow_reach = reach_share > LONG_SAFEPOINT_SHARE or worst >= LONG_TTSP_MS
    # JDK 8 only (a legacy log): JDK 10+ poll in counted loops by default.
    fixes = [fx.COUNTED_LOOP_SAFEPOINTS] if slow_reach and ctx.s.format == detect.LEGACY else []
    if any("Bias" in op for op in sp.non_gc_ops):
        fixes.append(fx.NO_BIASED_LOCKING)
    tally = non_gc if non_gc_share > reach_share else sp.reach
    return Finding("long-safepoint", WARN, "safepoints beyond GC stop the application",
                   "; ".join(parts) + f" (threshold {100 * LONG_SAFEPOINT_SHARE:.0f}%, or one wait of "
                   f"{LONG_TTSP_MS:.0f} ms; the slow part is "
                   f"{100 * slow_ms / span_ms if span_ms else 0:.1f}% of the span).",
                   evidence(tally, (("reach_share", reach_share), ("non_gc_share", non_gc_share),
                                    ("threshold_share", LONG_SAFEPOINT_SHARE)), sp.worst_line),
                   tuple(fixes), "-Xlog:safepoint*=debug and -XX:+SafepointTimeout name the slow thread.")


def cpu_findings(ctx: Context) -> list[Finding]:
    cpu = ctx.lines.cpu
    out = []
    starved, sys_user = cpu.starved, cpu.sys_over_user
    if starved.count >= CPU_MIN_PAUSES or sys_user.count >= CPU_MIN_PAUSES:
        t = starved if starved.count >= sys_user.count else sys_user
        out.append(Finding(
            "cpu-starved", WARN, "GC threads waited for the CPU (or the kernel)",
            f"In {starved.count} pause(s) of {CPU_MIN_REAL_S * 1000:.0f} ms or more the real time was over "
            f"{CPU_STARVED_FACTOR:g}x user+sys, and in {sys_user.count} sys exceeded user: the GC threads "
            f"were descheduled (CPU contention, a CPU quota) or waited on the kernel (swapping, page faults).",
            evidence(t, (("starved_pauses", float(starved.count)), ("sys_over_user_pauses", float(sys_user.count))),
                     cpu.worst_line),
            fx.present(fx.PRETOUCH if sys_user.count else None, fx.fewer_threads(ctx.lines.workers)),
            "Check swap use (vmstat si/so), other busy processes and the container's CPU limit."))
    inv = cpu.inverted
    if ctx.collector in PARALLEL and inv.count - starved.count >= CPU_MIN_PAUSES:
        out.append(Finding(
            "parallelism-inverted", WARN, "parallel GC ran slower than one thread",
            f"{inv.count} parallel pause(s) used less CPU (user+sys) than their real time (worst ratio "
            f"{cpu.worst_ratio or 0:.2f}): the GC threads had less than one CPU between them.",
            evidence(inv, (("worst_cpu_per_real", cpu.worst_ratio or 0.0),), cpu.worst_line),
            fx.present(fx.fewer_threads(ctx.lines.workers)),
            "Fewer GC threads than the CPUs the JVM really gets, or less load beside it."))
    return out
