"""The CI gate over two stored experiments, and its words: one line for a CI log, a Markdown
block for a pull-request comment. The decision itself is :mod:`jvmlab.analyze.gate`."""

from __future__ import annotations

from collections.abc import Sequence

from jvmlab.analyze.gate import (
    DEFAULT_INCONCLUSIVE,
    EXIT_INCONCLUSIVE,
    GateCheck,
    GateCondition,
    GateOutcome,
    GateResult,
    judge,
    metrics_for,
)
from jvmlab.analyze.interference import BETWEEN_RUN_PRIOR
from jvmlab.model.stored import PROCESS_METRICS
from jvmlab.report.compare import compare_experiments
from jvmlab.report.notation import change_pct, sentence_ci
from jvmlab.report.verdicts import between_run_text, machine_changed_text
from jvmlab.results import ExperimentResults


def gate_experiments(baseline: ExperimentResults, new: ExperimentResults,
                     conditions: Sequence[GateCondition], between_run_sd: float = BETWEEN_RUN_PRIOR) -> GateResult:
    """Compare experiment ``new`` with ``baseline`` on every metric the conditions name
    (cells matched by name), correct across all of them, and judge each condition. The
    metrics both stored are read from their registries (nothing global changes);
    ``between_run_sd``: the between-run spread (``--between-run-sd``, default the prior)."""
    shared = [name for name in baseline.units if name in new.units]
    metrics = baseline.metrics.extended(new.units)
    names = metrics_for(conditions, [*PROCESS_METRICS, *shared])
    comparisons = []
    for name in names:
        result = compare_experiments(baseline, new, name, between_run_sd=between_run_sd)
        comparisons += [pair.comparison for pair in result.pairs]
    return judge(conditions, comparisons, {name: metrics.get(name).lower_is_better for name in names})


def _check_text(check: GateCheck) -> str:
    c = check.comparison
    if c.ratio is None:
        return f"{c.cell} {c.metric}: not enough values"
    ci = sentence_ci(change_pct(c.ci95[0]), change_pct(c.ci95[1])) if c.ci95 else "no CI"
    p = f"p={c.p_adjusted:.2g}" if c.p_adjusted is not None else "no p-value"
    return f"{c.cell} {c.metric} {change_pct(c.ratio)} ({ci}, {p}{'' if c.significant else ', not significant'})"


def _decide_text(check: GateCheck) -> str:
    """"about 48 blocks per cell would decide it (now 20)", or why no number can be given."""
    c = check.comparison
    if c.ratio is None or c.ci95 is None:
        return "too few values for an interval"
    if c.machine_changed_s is not None:
        return machine_changed_text(c.machine_changed_s, metric=c.metric)
    if c.between_run_sd is not None:
        return between_run_text(c.between_run_sd)
    blocks = check.decision.blocks_to_decide
    if blocks is None:
        return "the estimate sits on the threshold: more blocks alone will not decide it"
    return f"about {blocks} blocks per cell would decide it (now {min(c.n_cell, c.n_baseline)})"


def _worst(checks: Sequence[GateCheck]) -> GateCheck | None:
    """The check whose change goes furthest in its condition's direction."""
    measured = [c for c in checks if c.comparison.ratio is not None]
    if not measured:
        return None
    return max(measured, key=lambda c: (c.comparison.ratio or 1.0)
               * (1 if c.condition.bad_when_higher(c.lower_is_better) else -1))


def summary_line(result: GateResult, baseline_id: int, new_id: int, inconclusive: str = DEFAULT_INCONCLUSIVE,
                 where: str | None = None) -> str:
    """One line for a CI log: pass / FAIL / INCONCLUSIVE, what failed or could not be told (or
    the closest call), both experiments; ``inconclusive``: what the exit code does with it;
    ``where``: what was compared, when not two experiments (the revisions gate)."""
    where = where or f"[#{baseline_id} -> #{new_id}]"
    if result.failed:
        first = result.failed[0]
        more = f" (+{len(result.failed) - 1} more)" if len(result.failed) > 1 else ""
        return (f"jvmlab gate: FAIL {len(result.failed)} of {len(result.checks)} checks: "
                f"{first.condition.text}: {_check_text(first)}{more} {where}")
    if result.inconclusive:
        first = max(result.inconclusive, key=lambda c: c.decision.blocks_to_decide or 10**9)
        more = f" (+{len(result.inconclusive) - 1} more)" if len(result.inconclusive) > 1 else ""
        exit_word = "exit 0 (--inconclusive pass)" if inconclusive == "pass" else f"exit {EXIT_INCONCLUSIVE}"
        return (f"jvmlab gate: INCONCLUSIVE {len(result.inconclusive)} of {len(result.checks)} checks, "
                f"{exit_word}: {first.condition.text}: {_check_text(first)} reaches past the threshold; "
                f"{_decide_text(first)}{more} {where}")
    worst = _worst(result.checks)
    closest = f"; closest: {_check_text(worst)}" if worst else ""
    conditions = ", ".join(c.text for c in result.conditions)
    return f"jvmlab gate: pass: {len(result.checks)} checks ({conditions}){closest} {where}"


def _md(text: str) -> str:
    """Text safe in a Markdown table cell (no pipes, no HTML)."""
    return (text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
            .replace("*", "\\*").replace("`", "\\`").replace("\n", " "))


def _md_result(check: GateCheck) -> str:
    if check.breached:
        return "**FAIL**"
    if check.inconclusive:
        return f"**INCONCLUSIVE**: {_md(_decide_text(check))}"
    return "pass" if check.comparison.significant else "pass (no clear difference)"


_ORDER = {GateOutcome.FAIL: 0, GateOutcome.INCONCLUSIVE: 1, GateOutcome.PASS: 2}


def summary_markdown(result: GateResult, baseline_id: int, new_id: int,
                     inconclusive: str = DEFAULT_INCONCLUSIVE, what: str | None = None) -> str:
    """A Markdown block for a pull-request comment: the verdict and every check (``what``:
    what was compared, when not two experiments; Markdown)."""
    head = {GateOutcome.FAIL: "❌ **jvmlab gate failed**", GateOutcome.PASS: "✅ **jvmlab gate passed**",
            GateOutcome.INCONCLUSIVE: "⚠️ **jvmlab gate inconclusive**"}[result.outcome]
    policy = (f" (counted as {'a pass' if inconclusive == 'pass' else 'a failure'}: --inconclusive {inconclusive})"
              if result.outcome is GateOutcome.INCONCLUSIVE else "")
    what = what or f"experiment #{new_id} against baseline #{baseline_id}"
    lines = [f"{head}{policy}: {what}", "",
             "Fails only when a change is significant (Holm-corrected across all checks) and its whole "
             "95% CI lies beyond the threshold; passes when the whole CI lies on the good side of it; "
             "otherwise the check is inconclusive.", "",
             "| condition | cell | metric | change | 95% CI | p (Holm) | result |",
             "|---|---|---|---:|---|---:|---|"]
    for check in sorted(result.checks, key=lambda c: (_ORDER[c.outcome], c.comparison.metric, c.comparison.cell)):
        c = check.comparison
        change = change_pct(c.ratio) if c.ratio is not None else "-"
        ci = f"{change_pct(c.ci95[0])} … {change_pct(c.ci95[1])}" if c.ci95 else "-"
        p = f"{c.p_adjusted:.2g}" if c.p_adjusted is not None else "-"
        lines.append(f"| {_md(check.condition.text)} | {_md(c.cell)} | {_md(c.metric)} | {change} | {ci} "
                     f"| {p} | {_md_result(check)} |")
    return "\n".join(lines) + "\n"
