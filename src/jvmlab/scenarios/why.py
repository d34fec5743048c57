"""`why`: G1 against ZGC on the chunk generator with JFR on, then the verdict and the
largest differences that explain it: the frames whose share of execution samples grew most
in the ZGC cell, and the JFR metrics (stalls, GC phases, safepoints, CPU) that moved most.

It runs on the newest JDK here that has ZGC (one JDK: the question is "why", not "which JDK").
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from jvmlab.errors import UserError
from jvmlab.model.jdk import JdkInfo
from jvmlab.report.why import build_why
from jvmlab.results.compare import VerdictKind
from jvmlab.results.why import load_why
from jvmlab.scenarios import gc
from jvmlab.scenarios.jdks import (
    GC_FLAGS,
    factor_table,
    jvm_name,
    jvms_table,
    run_table,
)
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import mean_ci
from jvmlab.scenarios.table import CLEAR, ScenarioVerdict

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary
    from jvmlab.store.protocol import Store

# JFR metrics that can explain a throughput gap between collectors, with how to print them.
# Allocation stalls are named by their wall-clock union (jfr.alloc_stall_wall_ms), with the sum over
# threads beside it: 27581 ms "per run" in a 10-s, 2-thread run was a sum over threads.
EXPLAINING = (("jfr.alloc_stall_wall_ms", "threads stalled in allocation during", "{:.0f} ms of wall time"),
              ("jfr.gc_pause_total_ms", "GC pauses", "{:.0f} ms"),
              ("jfr.gc_concurrent_total_ms", "concurrent GC phases", "{:.0f} ms"),
              ("jfr.safepoint_total_ms", "time in safepoints", "{:.0f} ms"),
              ("jfr.cpu_jvm_share", "JVM CPU load", "{:.0%}"),
              ("jfr.jit_compile_total_ms", "JIT compile time", "{:.0f} ms"),
              ("jfr.alloc_rate_mb_s", "allocation rate", "{:.0f} MB/s"))
MIN_RELATIVE = 0.10  # a metric must move by 10% (or from zero) to be named
# One comparison (ZGC against G1): 4 blocks are the fewest at which a permutation test can
# reach p < 0.05 (3 blocks: at best p = 0.1), so quick runs 4 (8 runs of 10 s, about 2
# minutes); full runs 6, from which the intervals are bootstrap ones (analyze.smallsample).
QUICK_INVOCATIONS = 4
FULL_INVOCATIONS = 6


def runs(jdks: list[JdkInfo], quick: bool) -> list[ScenarioRun]:
    with_z = [j for j in jdks if not j.gcs or "ZGC" in j.gcs]
    if not with_z:
        raise UserError("demo why needs a JDK with ZGC (15+); `jvmlab jdks` lists the JDKs found")
    jdk = max(with_z, key=lambda j: j.feature)
    seconds = 10  # the steady-state detector needs at least 6 one-second windows
    text = f'''name = "demo why: G1 vs ZGC on chunk generation, with JFR"
description = "Which collector generates more chunks per second, and why (JFR profiles and events)?"

[workload]
builtin = "chunkgen"
args = ["--threads", "2", "--seconds", "{seconds}", "--retain-mb", "64", "--chunk-kb", "64"]

[jvms]
{jvms_table([jdk])}

{factor_table("heap", {"h256m": ["-Xms256m", "-Xmx256m"]})}
{factor_table("gc", {"G1": [GC_FLAGS["G1"]], "ZGC": [GC_FLAGS["ZGC"]]})}
[matrix]
baseline = {{ jvm = "{jvm_name(jdk)}", gc = "G1" }}

[collect]
jfr = true
jfr_settings = "default"

{run_table(QUICK_INVOCATIONS if quick else FULL_INVOCATIONS, 0, f"{seconds * 4 + 60}s")}'''
    # One metric for the run's verdicts and the scenario's: the mean rate (always there).
    return [ScenarioRun("why", "G1 vs ZGC with JFR", text, gc.FALLBACK, "mean throughput")]


def metric_changes(summary: Summary, top: int = 2) -> list[str]:
    """The JFR metrics whose cell mean moved most against the baseline's, as phrases.
    ZGC allocation stalls have no G1 counterpart: a cell with stalls is named first."""
    base = next((cs for cs in summary.cells if cs.cell.name == summary.baseline), None)
    if base is None:
        return []
    found: list[tuple[float, str]] = []
    for cs in summary.cells:
        if cs is base:
            continue
        who = cs.cell.levels.get("gc", cs.cell.name)
        for metric, label, fmt in EXPLAINING:
            b, c = mean_ci(base, metric), mean_ci(cs, metric)
            if c is None:
                continue
            if b is None:
                if metric == "jfr.alloc_stall_wall_ms" and c[0] > 0:
                    summed = mean_ci(cs, "jfr.alloc_stall_total_ms")
                    threads = f" ({summed[0]:.0f} thread-ms summed over threads)" if summed else ""
                    found.append((float("inf"), f"{who}: {label} {fmt.format(c[0])} per run{threads}"))
                continue
            rel = abs(c[0] - b[0]) / abs(b[0]) if b[0] else (1e9 if c[0] else 0.0)
            if rel >= MIN_RELATIVE:
                found.append((rel, f"{who}: {label} {fmt.format(b[0])} → {fmt.format(c[0])}"))
    found.sort(key=lambda x: -x[0])
    return [text for _, text in found[:top]]


def frame_changes(summary: Summary, store: Store, top: int = 1) -> list[str]:
    """The frames whose share of execution samples grew most in each non-baseline cell, among
    those whose 95% interval lies above zero (a growth that resampling the invocations can undo
    explains nothing); with one invocation per cell there is no interval and the largest growth
    is named as it is."""
    out: list[str] = []
    for diff in build_why(summary, load_why(store, summary.experiment.id, summary.invocations)).diffs:
        if diff.kind != "cpu":
            continue
        cell = next((cs for cs in summary.cells if cs.cell.name == diff.cell), None)
        label = cell.cell.levels.get("gc", diff.cell) if cell else diff.cell
        sure = [c for c in diff.grew if c.ci95 is None or c.ci95[0] > 0]
        out.extend(f"{label}: {c.delta * 100:+.1f} pp{_interval_pp(c.ci95)} of samples in {c.frame}"
                   for c in sure[:top])
    return out


def _interval_pp(ci95: tuple[float, float] | None) -> str:
    return "" if ci95 is None else f" [{ci95[0] * 100:+.1f} … {ci95[1] * 100:+.1f}]"


def verdict(summary: Summary, store: Store | None = None) -> ScenarioVerdict:
    """The ranking on the run's own metric, the run's own verdict sentence (one metric and one
    rule: the demo printed "inconclusive" above and "clear" below for the same pair), then the
    two or three largest differences that explain it."""
    ranked = _answers_of_the_run(gc.verdict(summary, metric=summary.metric), summary)
    said = " ".join(text.rstrip(".") + "." for text in summary.verdicts.values())
    reasons = [*(frame_changes(summary, store) if store is not None else []), *metric_changes(summary)]
    if not reasons:
        why = " JFR found no difference large enough to name (was the jfr collector on?)."
    else:
        why = " Largest differences (JFR): " + "; ".join(reasons) + "."
    return replace(ranked, conclusion=(said or ranked.conclusion) + why)


# The table's answer column in the run's own words: a loaded `demo why --quick` printed "clear"
# in the table and "not called a difference: other processes were busy" below for the same pair.
RUN_ANSWERS = {VerdictKind.BETTER: CLEAR, VerdictKind.WORSE: CLEAR,
               VerdictKind.DISTURBED: "not called (see the verdict below)",
               VerdictKind.INCONCLUSIVE: "inconclusive", VerdictKind.NO_CLEAR_DIFFERENCE: "no clear difference",
               VerdictKind.NOT_ENOUGH_DATA: "not enough data"}


def _answers_of_the_run(ranked: ScenarioVerdict, summary: Summary) -> ScenarioVerdict:
    """Each row against the leader answered as the run's comparison of the same two cells
    (either way round: the test is symmetric) was decided; rows whose pair the run did not
    compare keep the table's own answer."""
    compared = getattr(getattr(summary, "comparison", None), "compared", ())
    if not compared:
        return ranked
    names = {(cs.cell.jvm, str(cs.cell.levels.get("gc"))): cs.cell.name for cs in summary.cells}
    kinds = {frozenset((c.cell, c.comparison.baseline)): c.kind for c in compared}
    leaders = {row[0]: row[1] for row in ranked.rows if row[3] == "leader"}
    rows = []
    for row in ranked.rows:
        pair = frozenset((names.get((row[0], row[1])), names.get((row[0], leaders.get(row[0], "")))))
        kind = kinds.get(pair) if row[-1] else None
        rows.append((*row[:-1], RUN_ANSWERS[kind]) if kind is not None else row)
    return replace(ranked, rows=tuple(rows))
