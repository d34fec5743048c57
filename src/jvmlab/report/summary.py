"""The experiment summary: one typed document that every output (terminal, JSON, HTML,
exports) renders. Built from the store, so a resumed or finished experiment reads the same.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from jvmlab import metrics as registry
from jvmlab.analyze import CellStats, Comparison, Effect, MetricAnalysis, analyze_metric
from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.describe import describe
from jvmlab.analyze.model import clean
from jvmlab.analyze.smallsample import T_SMALL_N
from jvmlab.analyze.stored import load_values
from jvmlab.errors import UserError
from jvmlab.model import hazards as hz
from jvmlab.model.stored import (
    PROCESS_METRICS,
    StoredCell,
    StoredExperiment,
    StoredInvocation,
)
from jvmlab.plan.metric_choice import DEFAULT_METRIC, MetricChoice, choose_metric
from jvmlab.report.trust import ALL_CELLS, interference, small_sample_hazards
from jvmlab.report.verdicts import verdict
from jvmlab.store.protocol import Store

SCHEMA = "jvmlab.summary/1"
CORE_METRICS = ("wall_s", "user_s", "sys_s", "max_rss_bytes")
DRIFT_P = 0.01
DESCRIBE_RESAMPLES = 1000
SMALL_N_MARK = " (t, small n)"


@dataclass(frozen=True)
class CellSummary:
    cell: StoredCell
    n: int
    failures: int
    failure_reasons: dict[str, int]
    stats: dict[str, CellStats]  # metric -> stats over ok, measured invocations
    outliers: tuple[int, ...]  # invocation ids flagged on the compared metric
    not_in_effect: tuple[str, ...]  # details of flag-not-in-effect hazards
    ok_invocations: tuple[StoredInvocation, ...] = ()  # the values behind ``stats``


@dataclass(frozen=True)
class Summary:
    experiment: StoredExperiment
    metric: str
    baseline: str | None
    cells: tuple[CellSummary, ...]
    analysis: MetricAnalysis
    verdicts: dict[str, str]  # cell name -> sentence
    hazards: tuple[hz.Hazard, ...]
    units: dict[str, str] = field(default_factory=dict)
    warmup_classes: dict[str, dict[str, int]] = field(default_factory=dict)  # cell -> class -> count
    invocations: tuple[StoredInvocation, ...] = ()  # every measured invocation, failures included
    archives: tuple[dict[str, Any], ...] = ()  # CDS/AOT archives made for cells (ArchiveRecord JSON)
    metric_reason: str = ""  # why this metric: "--metric given", "as the run was made: scenario gc: ..."

    def to_json(self) -> dict[str, Any]:
        return summary_json(self)


def summarize(store: Store, experiment_id: int, metric: str | None = None, seed: int | None = None) -> Summary:
    """Statistics of every cell and every stored metric, comparisons on ``metric``.

    Without ``metric``, the metric the run recorded (``run --metric``, a scenario's own
    metric) is compared, else ``wall_s``; ``Summary.metric_reason`` says which and why.
    """
    experiment = store.experiment(experiment_id)
    units = store.metric_units(experiment_id)
    choice = _choose(experiment, metric, units)
    metric = choice.metric
    registry.get(metric)  # unknown metric: one clear error before any work
    cells = store.cells(experiment_id)
    invocations = store.invocations(experiment_id)
    if metric not in PROCESS_METRICS and metric not in units:
        stored = ", ".join(sorted(units)) or "none besides the process measures"
        raise UserError(f"experiment {experiment_id} has no values of {metric!r}; its stored metrics are: "
                        f"{stored} (and wall_s, user_s, sys_s, cpu_s, max_rss_bytes, ...)")
    for name, unit in units.items():
        if name not in registry.REGISTRY:
            registry.register_dynamic(name, unit)
    seed = experiment.seed if seed is None else seed
    by_cell = {c.id: [i for i in invocations if i.cell_id == c.id] for c in cells}
    ok = {c.id: [i for i in by_cell[c.id] if i.status == "ok"] for c in cells}
    baseline = next((c.name for c in cells if c.idx == experiment.baseline_cell), None)
    factors = {c.name: {"jvm": c.jvm, **c.levels} for c in cells}
    varying = [f for f in _factor_names(cells) if len({lv.get(f) for lv in factors.values()}) > 1]
    analysis = analyze_metric(
        {c.name: load_values(ok[c.id], metric) for c in cells}, baseline, metric,
        {name: {f: lv[f] for f in varying} for name, lv in factors.items()} if len(varying) >= 2 else None,
        seed=seed)
    metric_names = _metric_names(ok)
    stored_hazards = store.hazards(experiment_id)
    cell_summaries = []
    for c in cells:
        stats = {m: describe(c.name, clean(load_values(ok[c.id], m)),
                             rng_for(seed, m, c.name, "summary"), DESCRIBE_RESAMPLES, quick=True)
                 for m in metric_names if m != metric}
        stats[metric] = analysis.stats[c.name]
        reasons = Counter(i.reason or i.status for i in by_cell[c.id] if i.status != "ok")
        flagged = tuple(ok[c.id][k].id for k in analysis.outliers.get(c.name, ()) if k < len(ok[c.id]))
        cell_summaries.append(CellSummary(
            cell=c, n=len(ok[c.id]), failures=sum(reasons.values()), failure_reasons=dict(reasons),
            stats=stats, outliers=flagged,
            not_in_effect=tuple(sorted({h.detail for h in stored_hazards
                                        if h.kind == hz.FLAG_NOT_IN_EFFECT and h.cell == c.name})),
            ok_invocations=tuple(ok[c.id])))
    hazards = _hazards(stored_hazards, cell_summaries, analysis) + small_sample_hazards(analysis)
    blocks = {inv.block for inv in invocations if inv.status == "ok" and inv.block >= 0}
    disturbed = interference(analysis, stored_hazards, len(blocks))
    return Summary(experiment=experiment, metric=metric, baseline=baseline, cells=tuple(cell_summaries),
                   analysis=analysis, verdicts=_verdicts(analysis, cells, disturbed), hazards=hazards, units=units,
                   warmup_classes=_warmup_classes(store, cells, ok), invocations=tuple(invocations),
                   metric_reason=choice.reason,
                   archives=tuple((store.experiment_document(experiment_id, "archives") or {}).get("archives", [])))


def _choose(experiment: StoredExperiment, given: str | None, units: dict[str, str]) -> MetricChoice:
    """The metric to compare; a recorded metric without values (a scenario's throughput
    when no run printed progress) falls back to wall_s, saying so."""
    choice = choose_metric(experiment.run_options, given)
    if given is None and choice.metric not in PROCESS_METRICS and choice.metric not in units:
        return MetricChoice(DEFAULT_METRIC, f"{choice.reason}, but no invocation has a value of "
                                            f"{choice.metric}, so {DEFAULT_METRIC} instead")
    return choice


def _warmup_classes(store: Store, cells: list[StoredCell],
                    ok: dict[int, list[StoredInvocation]]) -> dict[str, dict[str, int]]:
    """How many invocations of each cell fell in each warm-up class (flat, warm-up, ...)."""
    names = {inv.id: c.name for c in cells for inv in ok[c.id]}
    docs = store.documents(list(names), "progress")
    out: dict[str, Counter[str]] = {}
    for inv_id, doc in docs.items():
        if isinstance(doc, dict) and doc.get("class"):
            out.setdefault(names[inv_id], Counter())[str(doc["class"])] += 1
    return {cell: dict(counts) for cell, counts in out.items()}


def _factor_names(cells: list[StoredCell]) -> list[str]:
    names = ["jvm"]
    for c in cells:
        for f in c.levels:
            if f not in names:
                names.append(f)
    return names


def _metric_names(ok: dict[int, list[StoredInvocation]]) -> list[str]:
    names = list(PROCESS_METRICS)
    extra = sorted({m for invs in ok.values() for inv in invs for m in inv.metrics})
    return names + [m for m in extra if m not in names]


def _verdicts(analysis: MetricAnalysis, cells: list[StoredCell],
              disturbed: dict[str, str] | None = None) -> dict[str, str]:
    metric = registry.get(analysis.metric)
    disturbed = disturbed or {}
    return {c.cell: verdict(c, metric, interference=disturbed.get(c.cell) or disturbed.get(ALL_CELLS))
            for c in analysis.comparisons}


def _hazards(stored: list[Any], cells: list[CellSummary], analysis: MetricAnalysis) -> tuple[hz.Hazard, ...]:
    """Stored hazards (deduplicated) plus those the statistics reveal."""
    seen: dict[tuple[str, str | None, str], hz.Hazard] = {}
    counts: Counter[tuple[str, str | None, str]] = Counter()
    for h in stored:
        key = (h.kind, h.cell, h.detail)
        counts[key] += 1
        seen.setdefault(key, hz.Hazard(h.kind, h.detail, h.hint or "", h.cell))
    busy = [h for h in seen.values() if h.kind == hz.BUSY_MACHINE]
    out = [h if counts[k] == 1 else hz.Hazard(h.kind, f"{h.detail} (x{counts[k]})", h.hint, h.cell)
           for k, h in seen.items() if h.kind != hz.BUSY_MACHINE]
    if busy:
        shares = [int(m.group(1)) for h in busy if (m := re.search(r"used (\d+)%", h.detail))]
        worst = f", up to {max(shares)}% of the CPU" if shares else ""
        out.insert(0, hz.Hazard(hz.BUSY_MACHINE, f"other processes were busy during {len(busy)} block(s)"
                                f"{worst}: {busy[0].detail}" if len(busy) == 1 else
                                f"other processes were busy during {len(busy)} block(s){worst}",
                                busy[0].hint))
    for cs in cells:
        if cs.failures:
            top = max(cs.failure_reasons.items(), key=lambda kv: kv[1])
            out.append(hz.Hazard(hz.FAILURES, f"{cs.cell.name}: {cs.failures} failed invocation(s); "
                                 f"most common: {top[0]} (x{top[1]})",
                                 "failures are stored with their reason and left out of statistics",
                                 cs.cell.name))
        if cs.outliers:
            out.append(hz.Hazard(hz.OUTLIERS, f"{cs.cell.name}: {len(cs.outliers)} outlier(s) on "
                                 f"{analysis.metric} (invocations {', '.join(map(str, cs.outliers))})",
                                 "outliers are shown, never dropped; look at their output", cs.cell.name))
    for name, d in analysis.drift.items():
        if d.p_value is not None and d.p_value < DRIFT_P and d.slope_rel_per_block is not None:
            out.append(hz.Hazard(hz.DRIFT, f"{name}: {analysis.metric} trends across blocks "
                                 f"(Spearman rho {d.rho:+.2f}, p={d.p_value:.3g}, "
                                 f"{d.slope_rel_per_block:+.2%} per block)",
                                 "the machine drifted during the run; random-blocks order keeps "
                                 "comparisons fair, but check for thermal or background effects", name))
    return tuple(out)


def _moments(stats: CellStats) -> dict[str, float | None]:
    return {"mean": stats.mean, "sd": stats.sd, "median": stats.median, "min": stats.min, "max": stats.max}


def summary_json(s: Summary) -> dict[str, Any]:
    """The documented machine-readable summary (README: JSON summary)."""
    from jvmlab.report.jmh import (  # JMH experiments: the benchmark x cell table
        jmh_json,
        jmh_table,
    )

    jmh = jmh_table(s)
    return {**_summary_json(s), **({"jmh": jmh_json(jmh)} if jmh is not None else {})}


def _summary_json(s: Summary) -> dict[str, Any]:
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
        comparisons.append(doc)
    return {
        "schema": SCHEMA,
        "experiment_id": s.experiment.id,
        "name": s.experiment.name,
        "status": s.experiment.status,
        "created_at": s.experiment.created_at,
        "metric": s.metric,
        "metric_reason": s.metric_reason,
        "unit": registry.get(s.metric).unit,
        "lower_is_better": registry.get(s.metric).lower_is_better,
        "baseline": s.baseline,
        "cells": cells,
        "comparisons": comparisons,
        "effects": [e.to_json() for e in s.analysis.effects],
        "drift": {k: v.to_json() for k, v in s.analysis.drift.items()},
        "warnings": [h.to_json() for h in s.hazards],
        "warmup_classes": s.warmup_classes,
        "archives": list(s.archives),
        "notes": list(s.analysis.notes),
        "fingerprint": s.experiment.fingerprint,
    }


def effect_label(e: Effect) -> str:
    if e.kind == "main":
        return f"{e.factor}: {e.level} vs {e.reference}"
    return f"{e.factor}={e.level} x {e.factor2}={e.level2}"


def vs_baseline(s: Summary, cell: str, digits: str = ".3f", brackets: str = "[]", sep: str = "–") -> str:
    """The "vs baseline" text every table shows: "baseline", "4.04x [3.82–4.27]", or "-"."""
    if cell == s.baseline:
        return "baseline"
    comp = comparison_of(s, cell)
    if comp is None or comp.ratio is None:
        return "-"
    ci = f" {brackets[0]}{comp.ci95[0]:{digits}}{sep}{comp.ci95[1]:{digits}}{brackets[1]}" if comp.ci95 else ""
    return f"{comp.ratio:{digits}}x{ci}"


def ci_mark(stats: CellStats | None) -> str:
    """" (t, small n)" after an interval that is a small-sample t interval, for the renderers."""
    return SMALL_N_MARK if stats is not None and stats.mean_ci_kind == T_SMALL_N else ""


def comparison_of(s: Summary, cell: str) -> Comparison | None:
    return next((c for c in s.analysis.comparisons if c.cell == cell), None)
