"""The experiment summary: one typed document that every output (terminal, JSON, HTML,
exports) renders. Built as load -> compare -> render: :func:`jvmlab.results.load_experiment`
reads the store once, :func:`jvmlab.results.analyze_experiment` runs the statistics (numbers
stay numbers), and this module adds the words (verdict sentences) and the JSON shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jvmlab.analyze import CellStats, Comparison, Effect, MetricAnalysis
from jvmlab.analyze.smallsample import NOT_ESTIMABLE, T_SMALL_N
from jvmlab.analyze.tails import BCA_HEAVY_TAIL
from jvmlab.metrics import DEFAULT, Metric, MetricRegistry
from jvmlab.model import hazards as hz
from jvmlab.model.documents import ArchiveRecord
from jvmlab.model.stored import StoredExperiment, StoredInvocation
from jvmlab.report import notation
from jvmlab.report.jmh import jmh_json, jmh_table  # JMH experiments: the benchmark x cell table
from jvmlab.report.timelines import SELECTION
from jvmlab.report.trust import heavy_tail_hazards, small_sample_hazards
from jvmlab.report.verdicts import beside_called, beside_text, disturbance_note, disturbance_text, verdict
from jvmlab.results import (
    CellResult,
    CellsComparison,
    ComparedCell,
    ExperimentAnalysis,
    ExperimentResults,
    TimelineSelection,
    VerdictKind,
    analyze_experiment,
    load_experiment,
)
from jvmlab.store.protocol import Store

SCHEMA = "jvmlab.summary/1"
CORE_METRICS = ("wall_s", "user_s", "sys_s", "max_rss_bytes")
SMALL_N_MARK = " (t, small n)"
HEAVY_TAIL_MARK = " (heavy tail)"
REPORT_TIMELINES = SELECTION  # what the HTML report draws over time
RSS_RUSAGE = "peak RSS (rusage)"  # max_rss_bytes: the kernel's high-water mark at exit


@dataclass(frozen=True)
class Summary:
    experiment: StoredExperiment
    metric: str
    baseline: str | None
    cells: tuple[CellResult, ...]
    analysis: MetricAnalysis
    verdicts: dict[str, str]  # cell name -> sentence
    hazards: tuple[hz.Hazard, ...]
    units: dict[str, str] = field(default_factory=dict)
    warmup_classes: dict[str, dict[str, int]] = field(default_factory=dict)  # cell -> class -> count
    invocations: tuple[StoredInvocation, ...] = ()  # every measured invocation, failures included
    archives: tuple[ArchiveRecord, ...] = ()  # CDS/AOT archives made for cells
    metric_reason: str = ""  # why this metric: "--metric given", "as the run was made: scenario gc: ..."
    metrics: MetricRegistry = DEFAULT  # the experiment's registry (its dynamic metrics included)
    results: ExperimentResults | None = None  # what was loaded (documents, timelines) for the renderers
    comparison: CellsComparison | None = None  # the typed comparisons behind ``verdicts``

    def to_json(self) -> dict[str, Any]:
        return summary_json(self)


def summarize(store: Store, experiment_id: int, metric: str | None = None, seed: int | None = None,
              timelines: TimelineSelection | None = REPORT_TIMELINES) -> Summary:
    """Load, compare, render: statistics of every cell and every stored metric, comparisons
    on ``metric`` (default: the metric the run recorded, else ``wall_s``;
    ``Summary.metric_reason`` says which and why)."""
    return summary_of(analyze_experiment(load_experiment(store, experiment_id, timelines=timelines), metric, seed))


def summary_of(done: ExperimentAnalysis) -> Summary:
    """The words for an analysed experiment: a verdict sentence per comparison."""
    results, analysis = done.results, done.analysis
    metric = results.metrics.get(done.metric)
    verdicts = {c.cell: verdict(c.comparison, metric, interference=disturbance_text(c.disturbance),
                                note=disturbance_note(c.disturbance, c.comparison.significant))
                + _beside(done, c) for c in done.comparison.compared}
    return Summary(experiment=results.experiment, metric=done.metric, baseline=results.baseline, cells=done.cells,
                   analysis=analysis, verdicts=verdicts, hazards=done.hazards + small_sample_hazards(analysis)
                   + heavy_tail_hazards(analysis),
                   units=dict(results.units), warmup_classes=done.warmup_classes,
                   invocations=results.invocations, archives=results.archives, metric_reason=done.metric_reason,
                   metrics=results.metrics, results=results, comparison=done.comparison)


def _beside(done: ExperimentAnalysis, compared: ComparedCell) -> str:
    """"; wall_s: disturbed; cpu_s +42.9% (...): called; hint ..." when contention left the
    compared metric undecided (withheld, or not significant while CPU time is) and CPU time
    was compared beside it."""
    beside = done.comparison.beside
    other = beside.of(compared.cell) if beside is not None else None
    if beside is None or other is None:
        return ""
    if compared.kind in (VerdictKind.BETTER, VerdictKind.WORSE):
        return ""  # called (at equal run-queue delay, or by a CI that clears the margin): nothing to add
    if compared.kind is not VerdictKind.DISTURBED and not beside_called(other.comparison):
        return ""
    metrics = done.results.metrics
    return "; " + beside_text(metrics.get(done.metric), other.comparison, metrics.get(beside.analysis.metric))


def _moments(stats: CellStats) -> dict[str, float | None]:
    return {"mean": stats.mean, "sd": stats.sd, "median": stats.median, "min": stats.min, "max": stats.max}


def summary_json(s: Summary) -> dict[str, Any]:
    """The documented machine-readable summary (README: JSON summary)."""
    cells = []
    for cs in s.cells:
        c = cs.cell
        entry: dict[str, Any] = {
            "name": c.name, "jvm": c.jvm, "jdk": {k: c.jdk.get(k) for k in ("home", "version", "feature", "vendor")},
            "levels": c.levels, "flags": c.flags, "requested_flags": c.requested_flags,
            "n": cs.n, "failures": cs.failures, "failure_reasons": cs.failure_reasons,
        }
        for m in CORE_METRICS:
            entry[m] = _moments(cs.stats[m]) if m in cs.stats else None
        entry["metrics"] = {m: _moments(st) for m, st in cs.stats.items() if st.n}
        entry["ci95"] = {m: list(st.mean_ci95) if st.mean_ci95 else None for m, st in cs.stats.items() if st.n}
        entry["ci95_kind"] = {m: st.mean_ci_kind for m, st in cs.stats.items() if st.n}
        entry["flags_not_in_effect"] = list(cs.not_in_effect)
        entry["outlier_invocations"] = list(cs.outliers)
        cells.append(entry)
    comparisons = []
    for comp in s.analysis.comparisons:
        doc = comp.to_json()
        doc["verdict"] = s.verdicts.get(comp.cell, "")
        compared = s.comparison.of(comp.cell) if s.comparison is not None else None
        if compared is not None:
            doc["verdict_kind"] = str(compared.kind)
            d = compared.disturbance
            doc["disturbance"] = None if d is None else {
                "margin": d.margin, "called": d.called, "method": d.method, "busy_blocks": d.busy_blocks,
                "n_blocks": d.n_blocks, "quiet_blocks": d.quiet_blocks, "worst_share_pct": d.worst_share_pct,
                "drift_cell": d.drift.cell if d.drift else None, "run_delay_s": d.delay_s,
                "at_equal_delay": None if d.adjusted is None else {
                    "ratio": d.adjusted.ratio, "ci95": list(d.adjusted.ci95), "n_blocks": d.adjusted.n_blocks}}
        comparisons.append(doc)
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "experiment_id": s.experiment.id,
        "name": s.experiment.name,
        "status": s.experiment.status,
        "created_at": s.experiment.created_at,
        "metric": s.metric,
        "metric_reason": s.metric_reason,
        "unit": s.metrics.get(s.metric).unit,
        "lower_is_better": s.metrics.get(s.metric).lower_is_better,
        "baseline": s.baseline,
        "cells": cells,
        "comparisons": comparisons,
        "effects": [e.to_json() for e in s.analysis.effects],
        "drift": {k: v.to_json() for k, v in s.analysis.drift.items()},
        "warnings": [h.to_json() for h in s.hazards],
        "warmup_classes": s.warmup_classes,
        "archives": [a.to_json() for a in s.archives],
        "notes": list(s.analysis.notes),
        "fingerprint": s.experiment.fingerprint,
    }
    if (jmh := jmh_table(s)) is not None:
        out["jmh"] = jmh_json(jmh)
    return out


def effect_label(e: Effect) -> str:
    if e.kind == "main":
        return f"{e.factor}: {e.level} vs {e.reference}"
    return f"{e.factor}={e.level} x {e.factor2}={e.level2}"


def vs_baseline(s: Summary, cell: str) -> str:
    """The "vs baseline" text every table shows: "baseline", "4.04x [3.82, 4.27]" (the one
    ratio notation, :func:`jvmlab.report.notation.ratio_ci`), or "-"."""
    if cell == s.baseline:
        return "baseline"
    comp = comparison_of(s, cell)
    if comp is None or comp.ratio is None:
        return "-"
    return notation.ratio_ci(comp.ratio, comp.ci95)


def ci_mark(stats: CellStats | None) -> str:
    """" (t, small n)" after an interval that is a small-sample t interval, " (heavy tail)"
    after a BCa interval of a heavy-tailed cell, for the renderers."""
    kind = None if stats is None else stats.mean_ci_kind
    return SMALL_N_MARK if kind == T_SMALL_N else HEAVY_TAIL_MARK if kind == BCA_HEAVY_TAIL else ""


def mean_ci_text(metric: Metric, stats: CellStats | None) -> str:
    """The mean's 95% interval with its mark, "not estimable at n=2" when a never-negative
    metric has two values (no interval is honest there), else "-": every renderer's one rule."""
    if stats is None:
        return "-"
    if stats.mean_ci95 is not None:
        return notation.interval(metric, *stats.mean_ci95, like=stats.mean) + ci_mark(stats)
    if stats.mean_ci_kind == NOT_ESTIMABLE:
        return f"not estimable at n={stats.n}"
    return "-"


def shown(s: Summary, metric: str) -> Metric:
    """The metric as every table shows it: the experiment's registry, in the workload's rate unit."""
    return notation.shown_metric(metric, notation.progress_unit(s.experiment.spec_text), s.metrics)


def cell_columns(s: Summary) -> dict[str, list[str]]:
    """The cells table's columns by header, a value per cell (a row's values share the unit of
    its mean): the one place the terminal, HTML and Markdown tables get them from, each picking
    and ordering what it shows."""
    m = shown(s, s.metric)
    stats = [cs.stats.get(s.metric) for cs in s.cells]
    means = [st.mean if st else None for st in stats]

    def mean_sd(name: str) -> list[str]:
        return [notation.mean_sd(s.metrics.get(name), cs.stats.get(name)) for cs in s.cells]

    return {"n": [str(cs.n) for cs in s.cells], "failed": [str(cs.failures or "") for cs in s.cells],
            "mean ± sd": [notation.mean_sd(m, st) for st in stats],
            "95% CI of mean": [mean_ci_text(m, st) for st in stats],
            "vs baseline [95% CI]": [vs_baseline(s, cs.cell.name) for cs in s.cells],
            "median": [notation.value(m, st.median if st else None, like=mean)
                       for st, mean in zip(stats, means, strict=True)],
            "min–max": [notation.span(m, st.min if st else None, st.max if st else None, like=mean)
                        for st, mean in zip(stats, means, strict=True)],
            "user": mean_sd("user_s"), "sys": mean_sd("sys_s"), RSS_RUSAGE: mean_sd("max_rss_bytes")}


def comparison_of(s: Summary, cell: str) -> Comparison | None:
    return next((c for c in s.analysis.comparisons if c.cell == cell), None)


def called(s: Summary, cell: str) -> bool:
    """The cell's comparison is a call (better or worse), as its verdict says: significant and
    not withheld by the one interference model (a summary without typed comparisons: significant)."""
    compared = s.comparison.of(cell) if s.comparison is not None else None
    if compared is not None:
        return compared.kind in (VerdictKind.BETTER, VerdictKind.WORSE)
    comp = comparison_of(s, cell)
    return comp is not None and comp.significant
