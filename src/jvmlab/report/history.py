"""A series over time in words: one line per cell, the change points, JSON, and the gate's
line and Markdown for a pull-request comment. The numbers come from
:mod:`jvmlab.results.history`; intervals are written by :mod:`jvmlab.report.notation`.
"""

from __future__ import annotations

from typing import Any

from jvmlab import metrics as registry
from jvmlab.analyze.changepoint import OWN_SPREAD_LABELS, Change
from jvmlab.analyze.interference import BETWEEN_RUN_SD_OPTION
from jvmlab.report.notation import change_pct, interval, pct_change_ci
from jvmlab.report.notation import value as metric_value
from jvmlab.report.verdicts import machine_changed_text
from jvmlab.results.history import CellHistory, History
from jvmlab.results.history_gate import HistoryGate

RECENT_LABELS = 8  # labels shown per cell in the terminal (JSON and HTML have all)


def change_text(change: Change, label: str) -> str:
    """``+18.2% (95% CI +14.9% ... +21.6%) from c7a1e3f``."""
    if change.ratio is None:
        return f"a change from {label} (a mean is not positive: no ratio)"
    ci = f" ({pct_change_ci(change.ci95)})" if change.ci95 is not None else ""
    return f"{change_pct(change.ratio)}{ci} from {label}"


def summary_line(cell: CellHistory) -> str:
    """One line per cell and metric: the newest change and what followed, or that none was seen."""
    head = f"{cell.metric}"
    seg = cell.segmentation
    if seg is None:
        return f"{head}: cannot tell: {cell.reason}"
    n = len(cell.points)
    tail = ""
    if seg.tail is not None:
        ratio = f"{change_pct(seg.tail.ratio)} " if seg.tail.ratio is not None else ""
        ci = f"({pct_change_ci(seg.tail.ci95)}) " if seg.tail.ci95 is not None else ""
        tail = (f"; newest label {cell.points[-1].label} differs {ratio}{ci}but stands alone: "
                f"inconclusive until the next label")
    if not seg.changes:
        p = f", p={seg.p_no_change:.2g}" if seg.p_no_change is not None else ""
        return f"{head}: no change across {n} labels{p}{tail}"
    last = seg.changes[-1]
    changed = cell.machine_change_at(last.index)
    if changed is not None:
        at = cell.label_at(last.index)
        delays = (changed.delay_before_s, changed.delay_after_s)
        seen = change_text(last, at).split(" from ")[0]
        return f"{head}: {machine_changed_text(delays, at, cell.metric)} (seen: {seen})"
    earlier = f" ({len(seg.changes)} changes in {n} labels)" if len(seg.changes) > 1 else ""
    since = "no change since" if not tail else tail.removeprefix("; ")
    return f"{head}: {change_text(last, cell.label_at(last.index))}{earlier}; {since}"


def prior_text(sd: float) -> str:
    """The stated between-run spread, when it (not the series' own) set the between-label spread."""
    return (f"between-label spread: the stated {sd:.1%} per run (fewer than {OWN_SPREAD_LABELS} labels for the "
            f"series' own; set it with {BETWEEN_RUN_SD_OPTION})")


def render_text(history: History, echo: Any) -> None:
    """The terminal view: per cell its summary, its change points, its newest labels."""
    echo(f"series {history.series}: {len(history.labels)} labels "
         f"({history.labels[0].label} ... {history.labels[-1].label})")
    for cell in history.cells:
        info = registry.get(cell.metric, cell.unit)
        echo(f"\n{cell.cell}")
        echo(f"  {summary_line(cell)}")
        seg = cell.segmentation
        if seg is not None and seg.tau_prior is not None:
            echo(f"    {prior_text(seg.tau_prior)}")
        for change in seg.changes if seg else ():
            before = metric_value(info, change.before_mean)
            after = metric_value(info, change.after_mean)
            echo(f"    change at {cell.label_at(change.index)}: {before} -> {after}, "
                 f"{change_text(change, cell.label_at(change.index)).split(' from ')[0]}, p={change.p_value:.2g}")
        if len(cell.points) > RECENT_LABELS:
            echo(f"    ({len(cell.points) - RECENT_LABELS} older label(s) left out; --json or --html has all)")
        for point in cell.points[-RECENT_LABELS:]:
            ci = interval(info, point.ci95[0], point.ci95[1], like=point.mean) if point.ci95 else "(one run)"
            echo(f"    {point.label:>16}  {metric_value(info, point.mean):>10}  {ci}  n={point.n_runs}")


def _change_json(cell: CellHistory, change: Change) -> dict[str, Any]:
    return {"label": cell.label_at(change.index), "index": change.index,
            "before_label": cell.label_at(change.index - 1), "before_mean": change.before_mean,
            "after_mean": change.after_mean, "ratio": change.ratio,
            "ci95": list(change.ci95) if change.ci95 else None, "p_value": change.p_value,
            "labels_before": change.before_labels, "labels_after": change.after_labels}


def history_json(history: History, gate: HistoryGate | None = None) -> dict[str, Any]:
    cells = []
    for cell in history.cells:
        seg = cell.segmentation
        cells.append({
            "cell": cell.cell, "metric": cell.metric, "unit": cell.unit, "summary": summary_line(cell),
            "points": [{"label": p.label, "n": p.n_runs, "mean": p.mean, "ci95": list(p.ci95) if p.ci95 else None}
                       for p in cell.points],
            "changes": [_change_json(cell, c) for c in seg.changes] if seg else [],
            "between_label_sd": seg.tau if seg else None,
            "between_label_sd_prior": seg.tau_prior if seg else None,
            "p_no_change": seg.p_no_change if seg else None,
            "newest_alone": ({"ratio": seg.tail.ratio, "ci95": list(seg.tail.ci95) if seg.tail.ci95 else None,
                              "p_value": seg.tail.p_value} if seg and seg.tail else None),
            "reason": cell.reason})
    out: dict[str, Any] = {
        "series": history.series, "metrics": list(history.metrics),
        "labels": [{"label": lab.label, "order": lab.order, "experiments": list(lab.experiment_ids)}
                   for lab in history.labels],
        "cells": cells}
    if gate is not None:
        out["gate"] = gate_json(gate)
    return out


def gate_json(gate: HistoryGate) -> dict[str, Any]:
    return {"outcome": gate.outcome, "exit_code": gate.exit_code,
            "conditions": [c.text for c in gate.result.conditions],
            "checks": [{"condition": ch.condition.text, "cell": ch.comparison.cell, "metric": ch.comparison.metric,
                        "labels": ch.comparison.baseline, "ratio": ch.comparison.ratio,
                        "ci95": list(ch.comparison.ci95) if ch.comparison.ci95 else None,
                        "p_value": ch.comparison.p_value, "p_adjusted": ch.comparison.p_adjusted,
                        "outcome": str(ch.outcome), "failed": ch.breached} for ch in gate.result.checks],
            "inconclusive": [{"cell": s.cell, "metric": s.metric, "label": s.label, "ratio": s.tail.ratio,
                              "ci95": list(s.tail.ci95) if s.tail.ci95 else None, "p_value": s.tail.p_value}
                             for s in gate.too_short]}


def _check_words(gate: HistoryGate) -> list[str]:
    out = []
    for check in gate.result.checks:
        c = check.comparison
        ci = f" ({pct_change_ci(c.ci95)})" if c.ci95 else ""
        p = f", p={c.p_adjusted:.2g} (Holm)" if c.p_adjusted is not None else ""
        verdict = "FAIL" if check.breached else str(check.outcome)
        ratio = change_pct(c.ratio) if c.ratio is not None else "no ratio"
        out.append(f"{verdict}: {check.condition.text}: {c.cell} {c.metric} {ratio}{ci}{p}, labels {c.baseline}")
    return out


def gate_line(gate: HistoryGate) -> str:
    """One line for a CI log."""
    conditions = ", ".join(c.text for c in gate.result.conditions)
    where = f"[series {gate.series}, newest {gate.newest_label}]"
    if gate.outcome == "fail":
        first = _check_words(gate)[[c.breached for c in gate.result.checks].index(True)].removeprefix("FAIL: ")
        return f"jvmlab history gate: FAIL {len(gate.result.failed)} of {len(gate.result.checks)}: {first} {where}"
    if gate.outcome == "inconclusive" and gate.too_short:
        s = gate.too_short[0]
        ratio = f" {change_pct(s.tail.ratio)}" if s.tail.ratio is not None else ""
        return (f"jvmlab history gate: inconclusive: {s.cell} {s.metric}: the newest label {s.label} "
                f"differs{ratio} but stands alone; measure the next label ({conditions}) {where}")
    if gate.outcome == "inconclusive":
        first = next(w for w, c in zip(_check_words(gate), gate.result.checks, strict=True) if c.inconclusive)
        return (f"jvmlab history gate: inconclusive: {first.removeprefix('inconclusive: ')}: the newest "
                f"segment's interval reaches past the threshold; more runs per label or more labels decide {where}")
    changed = len(gate.result.checks)
    return (f"jvmlab history gate: pass ({conditions}): {changed} cell(s) with a change point, none beyond "
            f"the threshold in the newest segment {where}")


def _md(text: str) -> str:
    """Text safe in a Markdown table cell (no pipes, no HTML)."""
    return (text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
            .replace("*", "\\*").replace("`", "\\`").replace("_", "\\_").replace("\n", " "))


def gate_markdown(gate: HistoryGate, history: History) -> str:
    """A Markdown block for a pull-request comment: the verdict, each cell's line, each check."""
    head = {"fail": "❌ **jvmlab history gate failed**", "inconclusive": "⚠️ **jvmlab history gate: inconclusive**",
            "pass": "✅ **jvmlab history gate passed**"}[gate.outcome]
    lines = [f"{head}: series {_md(gate.series)}, newest label {_md(gate.newest_label)}", "",
             "Fails only when the newest segment (labels since the last change point) differs from the one "
             "before significantly (Holm-corrected across all checks) and its whole 95% CI lies beyond the "
             "threshold; a newest label that differs on its own is inconclusive.", "",
             "| cell | summary |", "|---|---|"]
    lines += [f"| {_md(c.cell)} | {_md(summary_line(c))} |" for c in history.cells]
    if gate.result.checks or gate.too_short:
        lines += ["", "| check | result |", "|---|---|"]
        lines += [f"| {_md(w.split(': ', 1)[1])} | {'**FAIL**' if c.breached else str(c.outcome)} |"
                  for w, c in zip(_check_words(gate), gate.result.checks, strict=True)]
        lines += [f"| {_md(s.cell)} {_md(s.metric)}: newest label {_md(s.label)} alone | inconclusive |"
                  for s in gate.too_short]
    return "\n".join(lines) + "\n"
