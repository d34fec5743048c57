"""The HTML report's content, section by section, built from a Summary (and the results it
was built from: documents and timelines were loaded once, by the results layer). No store.

Values stay plain strings here; escaping is the template's job (autoescape) and the
figures' (:mod:`jvmlab.report.plots`).
"""

from __future__ import annotations

import datetime as dt
import shlex
from dataclasses import replace
from typing import Any

import numpy as np

from jvmlab import metrics as registry
from jvmlab.analyze import Comparison
from jvmlab.analyze.model import clean
from jvmlab.metrics import RUN_DELAY
from jvmlab.model.stored import StoredInvocation
from jvmlab.report import archives_view, notation, plots
from jvmlab.report import nodes as nodes_view
from jvmlab.report.jmh import table_part
from jvmlab.report.latency import latency_figures
from jvmlab.report.page import figure_entries
from jvmlab.report.summary import (
    RSS_RUSAGE,
    Summary,
    called,
    cell_columns,
    effect_label,
    shown,
)
from jvmlab.report.timelines import TimelineSet, build_timelines
from jvmlab.report.verdicts import ci_only_note, effect_verdict, is_improvement
from jvmlab.report.why import why_context
from jvmlab.results import VerdictKind, cell_values, ci_only_comparisons
from jvmlab.results.pairs import judge_made

# Metrics that get a distribution (and forest) plot when measured, after the compared one.
PLOT_METRICS = ("wall_s", "cpu_s", "max_rss_bytes", "gc.pause_p99_ms", "gc.pause_total_ms",
                "mem.peak_pss_bytes", "progress.steady_rate", "progress.warmup_s")
MAX_METRIC_SECTIONS = 6
GC_COLUMNS = ("gc.pause_count", "gc.pause_total_ms", "gc.pause_p50_ms", "gc.pause_p99_ms", "gc.pause_max_ms",
              "gc.full_count", "gc.concurrent_cycles", "gc.stall_total_ms", "gc.paused_pct",
              "gc.alloc_rate_mb_s")
MEMORY_CPU_COLUMNS = ("mem.peak_rss_bytes", "mem.peak_pss_bytes", "mem.peak_anon_huge_bytes", "cpu.jit_share",
                      "cpu.gc_share", "cpu.app_share", "cpu.vm_share", "progress.steady_rate",
                      "progress.warmup_s")
LIMIT_COLUMNS = ("jvm.active_processors", "jvm.max_heap_bytes", "jvm.memory_limit_bytes", "cgroup.oom_kills",
                 "cgroup.peak_bytes")  # [environment] cpus/memory: the limits and what the JVM believed
MAX_FAILURES_SHOWN = 50
MAX_OUTPUT_CHARS = 4000
CPU_SERIES = ("cpu.app_s", "cpu.jit_s", "cpu.gc_s", "cpu.vm_s")


def _when(ts: float | None) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S") if ts else ""


RSS_SAMPLED = "peak RSS (sampled)"  # mem.peak_rss_bytes: the largest /proc sample
RSS_NOTE = (f"{RSS_RUSAGE}: the kernel's high-water mark of the JVM process (getrusage at exit); "
            f"{RSS_SAMPLED}: the largest value the /proc sampler saw, which can miss short peaks.")
COLUMN_LABELS = {"max_rss_bytes": RSS_RUSAGE, "mem.peak_rss_bytes": RSS_SAMPLED}


def verdict_items(summary: Summary) -> list[dict[str, str]]:
    metric = summary.metrics.get(summary.metric)
    out = []
    for comp in summary.analysis.comparisons:
        better = is_improvement(comp, metric) if called(summary, comp.cell) else None  # as the verdict says
        css = "" if better is None else ("better" if better else "worse")
        out.append({"text": summary.verdicts.get(comp.cell, comp.cell), "css": css})
    return out


def cell_rows(summary: Summary) -> tuple[list[str], list[list[str]]]:
    """The cells table: one short line per cell (flags are in their own table, so a long
    flag list does not make every row several lines tall); a row's values share its unit."""
    columns = cell_columns(summary)
    keys = ["n", "failed", "mean ± sd", "95% CI of mean", "vs baseline [95% CI]", "median", "min–max", "user", "sys",
            RSS_RUSAGE]
    header = ["cell", *(f"{summary.metric} {k}" if k == "mean ± sd" else k for k in keys)]
    return header, [[cs.cell.name, *(columns[k][i] for k in keys)] for i, cs in enumerate(summary.cells)]


def flag_rows(summary: Summary) -> list[list[str]]:
    """Each cell's flags as run (and those not in effect)."""
    rows = []
    for cs in summary.cells:
        flags = " ".join(cs.cell.flags) or "(none)"
        if cs.not_in_effect:
            flags += f"  (not in effect: {'; '.join(cs.not_in_effect)})"
        rows.append([cs.cell.name, flags])
    return rows


def measured(summary: Summary, metric: str) -> bool:
    """Some cell has a value of ``metric``."""
    return any(metric in cs.stats and cs.stats[metric].n for cs in summary.cells)


def metric_sections(summary: Summary, by_cell: dict[int, list[StoredInvocation]]) -> list[dict[str, Any]]:
    """Per metric: every cell's distribution and the forest plot of ratios to the baseline."""
    names = [summary.metric] + [m for m in PLOT_METRICS if m != summary.metric and measured(summary, m)]
    sections = []
    for k, metric in enumerate(names[:MAX_METRIC_SECTIONS]):
        cells = []
        for cs in summary.cells:
            given = [(inv.value(metric), inv.id) for inv in by_cell.get(cs.cell.id, [])]
            pairs = [(v, i) for v, i in given if v is not None and np.isfinite(v)]
            cells.append((cs.cell.name, cs.cell.idx, [v for v, _ in pairs], [i for _, i in pairs]))
        comparisons = _called(summary) if metric == summary.metric else _comparisons(summary, by_cell, metric)
        m = summary.metrics.get(metric)
        figures = [plots.distribution(metric, cells, seed=summary.experiment.seed + k, m=m)]
        if comparisons:
            figures.append(plots.forest(metric, comparisons, summary.baseline, m=m))
        note = ("Green: clearly better than the baseline; red: clearly worse; grey: no clear difference, or "
                "one a busy machine or a drift could explain (not called). ")
        if metric != summary.metric:
            note += ci_only_note(summary.metric, metric)
        empty = [name for name, _, values, _ in cells if not values]
        if empty:
            note += f" Not drawn (no measured value of {metric}): {', '.join(empty)}."
        sections.append({"metric": metric, "description": m.description, "note": note.strip(),
                         "figures": figure_entries(figures, f"m{k}")})
    return sections


def _called(summary: Summary) -> tuple[Comparison, ...]:
    """The compared metric's comparisons, coloured as the verdicts call them: one the one
    interference model withholds (disturbed) is drawn as not significant."""
    if summary.comparison is None:
        return summary.analysis.comparisons
    return tuple(replace(c.comparison, significant=False) if c.kind is VerdictKind.DISTURBED else c.comparison
                 for c in summary.comparison.compared)


def _comparisons(summary: Summary, by_cell: dict[int, list[StoredInvocation]], metric: str) -> tuple[Comparison, ...]:
    """Ratios and bootstrap CIs on a secondary metric (no permutation test: "clear" here
    means the CI excludes 1, and the page says these are not corrected together), judged by the
    one interference model as the compared metric is: one it withholds is not "clear"."""
    data = {cs.cell.name: cell_values(by_cell.get(cs.cell.id, []), metric) for cs in summary.cells}
    found = ci_only_comparisons({name: clean(d) for name, d in data.items()}, summary.baseline, metric,
                                summary.experiment.seed)
    results = summary.results
    if not found or summary.baseline is None or results is None:
        return found
    delays = {cs.cell.name: cell_values(by_cell.get(cs.cell.id, []), RUN_DELAY) for cs in summary.cells}
    withheld = judge_made(found, summary.baseline, data, delays, results.busy_blocks, results.measured_blocks())
    return tuple(replace(c, significant=False) if c.significant and c.cell in withheld and withheld[c.cell].vetoes
                 else c for c in found)


def effects_part(summary: Summary) -> tuple[list[list[str]], list[dict[str, str]]]:
    metric = summary.metrics.get(summary.metric)
    effects = summary.analysis.effects
    rows = [[effect_label(e), e.kind, notation.ratio_ci(e.ratio, e.ci95), effect_verdict(e, metric)]
            for e in effects]
    figs = figure_entries([plots.effects(summary.metric, [(effect_label(e), e) for e in effects], m=metric)], "eff") \
        if effects else []
    return rows, figs


def warmup_part(summary: Summary) -> tuple[list[str], list[list[str]]]:
    counts = summary.warmup_classes
    classes = sorted({k for c in counts.values() for k in c})
    rows = [[cs.cell.name, *[str(counts[cs.cell.name].get(k, 0)) for k in classes]]
            for cs in summary.cells if cs.cell.name in counts]
    return ["cell", *classes], rows


def timeline_figures(tl: TimelineSet, rate_unit: str | None = None) -> list[dict[str, str]]:
    pauses = tl.get("gc.pause_ms")
    per_cell: dict[tuple[str, int], list[float]] = {}
    for s in pauses:
        per_cell.setdefault((s.cell, s.cell_idx), []).extend(v for v in s.values if v is not None)
    figs = [
        plots.throughput(tl.get("progress.rate"), tl.progress, rate_unit or notation.GENERIC_RATE),
        plots.lines("Memory over time (RSS solid, PSS dotted)",
                    [("RSS", tl.get("mem.rss_bytes")), ("PSS", tl.get("mem.pss_bytes"))]),
        plots.lines("Transparent huge pages in use", [("", tl.get("mem.anon_huge_bytes"))], skip_all_zero=True),
        plots.lines("CPU by thread group (cumulative; app solid, JIT dotted, GC dashed, VM dash-dot)",
                    [(name.split(".")[1].removesuffix("_s"), tl.get(name)) for name in CPU_SERIES], "CPU seconds"),
        plots.pause_timeline(pauses),
        plots.histogram("GC pause durations", [(c, i, v) for (c, i), v in per_cell.items()], "pause (ms)"),
        plots.lines("Heap after GC", [("", tl.get("gc.heap_after_mb"))], "MB", mode="markers"),
        plots.lines("Requests per second (seconds since the load phase started)",
                    [("", tl.get("load.throughput_rps"))], "req/s"),
    ]
    return figure_entries(figs, "tl")


def metric_tables(summary: Summary) -> list[dict[str, Any]]:
    out = []
    for title, columns in (("GC per cell (mean per invocation)", GC_COLUMNS),
                           ("Memory, threads and throughput (mean per invocation)", MEMORY_CPU_COLUMNS),
                           ("CPU/memory limits and what the JVM believed (mean)", LIMIT_COLUMNS)):
        present = [m for m in columns if measured(summary, m)]
        if present:
            out.append({"title": title, "header": ["cell", *[COLUMN_LABELS.get(m, m) for m in present]],
                        "rows": [[cs.cell.name, *[notation.mean_sd(shown(summary, m), cs.stats.get(m))
                                                  for m in present]] for cs in summary.cells]})
    workload = sorted({m for cs in summary.cells for m in cs.stats if m.startswith("workload.") and cs.stats[m].n})
    if workload:
        out.append({"title": "Workload-reported metrics (mean ± sd)", "header": ["cell", *workload],
                    "rows": [[cs.cell.name, *[notation.mean_sd(summary.metrics.get(m), cs.stats.get(m))
                                              for m in workload]] for cs in summary.cells]})

    return out + table_part(summary)


def _output(inv: StoredInvocation) -> str:
    text = ""
    if inv.stdout_tail:
        text += "--- stdout (tail) ---\n" + inv.stdout_tail[-MAX_OUTPUT_CHARS:]
    if inv.stderr_tail:
        text += ("\n" if text else "") + "--- stderr (tail) ---\n" + inv.stderr_tail[-MAX_OUTPUT_CHARS:]
    return text or "(no output)"


def output_parts(summary: Summary, invocations: list[StoredInvocation]) -> tuple[list[dict[str, Any]], int,
                                                                                  list[dict[str, Any]]]:
    names = {cs.cell.id: cs.cell.name for cs in summary.cells}
    failed = [i for i in invocations if i.status != "ok"]
    failures = [{"cell": names.get(i.cell_id, "?"), "id": i.id, "status": i.status, "reason": i.reason,
                 "output": _output(i)} for i in failed[:MAX_FAILURES_SHOWN]]
    last: dict[int, StoredInvocation] = {}
    for inv in invocations:
        if inv.status == "ok":
            last[inv.cell_id] = inv
    outputs = [{"cell": cs.cell.name, "id": last[cs.cell.id].id, "output": _output(last[cs.cell.id])}
               for cs in summary.cells if cs.cell.id in last]
    return failures, max(0, len(failed) - MAX_FAILURES_SHOWN), outputs


def _fingerprint_rows(fp: dict[str, Any]) -> list[list[str]]:
    rows: list[list[str]] = []
    for key, value in sorted(fp.items()):
        if isinstance(value, dict):
            rows.extend([f"{key}: {k}", str(v)] for k, v in sorted(value.items()))
        else:
            rows.append([key, registry.format_value(value, "bytes") if key.endswith("_bytes") and value else
                         str(value)])
    return rows


def _description(spec_text: str) -> str:
    import tomllib

    try:
        value = tomllib.loads(spec_text).get("description")
    except (tomllib.TOMLDecodeError, AttributeError):
        return ""
    return value if isinstance(value, str) else ""


def report_context(summary: Summary, why: Any = None) -> dict[str, Any]:
    """Everything the report template shows. ``why`` is the report's "why" part
    (:func:`jvmlab.report.why.build_why` from :func:`jvmlab.results.why.load_why`), loaded by
    the caller; None leaves it out."""
    exp = summary.experiment
    invocations = list(summary.invocations)
    ok = [i for i in invocations if i.status == "ok"]
    by_cell: dict[int, list[StoredInvocation]] = {}
    for inv in ok:
        by_cell.setdefault(inv.cell_id, []).append(inv)
    tl = build_timelines(summary.results, [cs.cell for cs in summary.cells], invocations)
    header, rows = cell_rows(summary)
    effects_rows, effects_figs = effects_part(summary)
    warmup_header, warmup_rows = warmup_part(summary)
    failures, hidden, outputs = output_parts(summary, invocations)
    return {**(why_context(why) if why is not None else {"why": None}), **nodes_view.html_context(summary),
        "title": f"jvmlab: experiment {exp.id}: {exp.name}", "exp": exp, "created": _when(exp.created_at),
        "finished": _when(exp.finished_at), "metric": summary.metric, "baseline": summary.baseline,
        "metric_description": summary.metrics.get(summary.metric).description, "metric_reason": summary.metric_reason,
        "n_invocations": len(ok),
        "cells": summary.cells, "description": _description(exp.spec_text),
        "verdicts": verdict_items(summary), "hazards": summary.hazards,
        "archive_header": archives_view.HEADER, "archive_rows": archives_view.rows(summary.archives),
        "archive_details": archives_view.details(summary.archives),
        "cell_header": header, "cell_rows": rows, "flag_rows": flag_rows(summary), "rss_note": RSS_NOTE,
        "metric_sections": metric_sections(summary, by_cell),
        "effects_rows": effects_rows, "effects_figures": effects_figs,
        "warmup_header": warmup_header, "warmup_rows": warmup_rows,
        "timeline_figures": timeline_figures(tl, notation.progress_unit(exp.spec_text)),
        "metric_tables": metric_tables(summary),
        "failures": failures, "failures_hidden": hidden, "outputs": outputs,
        "command_line": exp.command_line, "latency_figures": latency_figures(summary),
        "command_lines": [{"cell": cs.cell.name, "argv": shlex.join(cs.cell.argv) if cs.cell.argv else "-"}
                          for cs in summary.cells],
        "fingerprint_rows": _fingerprint_rows(exp.fingerprint), "spec_text": exp.spec_text,
        "spec_path": exp.spec_path, "notes": [*summary.analysis.notes, *tl.notes],
    }

