"""`jvmlab gc advise`'s answer per fix: did the finding go away, and what did it cost or gain.

Built from a stored experiment (``build_advice``) and rendered for the terminal or as JSON.
The metric and pause p99 verdicts are the ones `jvmlab report` gives the same experiment
(``report.summary.summarize``): this module only puts them beside the finding counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.text import Text

from jvmlab import metrics
from jvmlab.errors import UserError
from jvmlab.gclog.findings_model import Finding
from jvmlab.model.documents import GcAdviseDocument, GcFixLevelRecord
from jvmlab.plan.advise import CURRENT, FACTOR, FixLevel
from jvmlab.report import notation
from jvmlab.report.summary import Summary, called, comparison_of, summarize
from jvmlab.report.verdicts import change_phrase
from jvmlab.results.advise import GONE, NOT_REPRODUCED, FindingCount, count_finding, level_documents, went_away
from jvmlab.store.protocol import Store

PAUSE_P99 = "gc.pause_p99_ms"
# What a GC fix may cost besides its finding (DisableExplicitGC raised peak RSS 78 -> 196 MiB).
SIDE_METRICS = ("max_rss_bytes", "cpu_s")
SIDE_LABELS = {"max_rss_bytes": "peak RSS", "cpu_s": "CPU time"}


@dataclass(frozen=True)
class MetricEffect:
    """A fix's cell against ``current`` on one metric: ratio, interval, verdict sentence."""

    metric: str
    ratio: float | None
    ci: tuple[float, float] | None
    verdict: str
    worse: bool = False  # significantly worse than current (the registry's direction)

    def text(self) -> str:
        if self.ratio is None:
            return f"- ({self.verdict})" if self.verdict else "-"
        return f"{notation.ratio_ci(self.ratio, self.ci)}: {self.verdict}"

    def to_json(self) -> dict[str, Any]:
        return {"metric": self.metric, "ratio": self.ratio, "ci": None if self.ci is None else list(self.ci),
                "verdict": self.verdict, "worse": self.worse}


@dataclass(frozen=True)
class SideEffect:
    """A fix's cell against ``current`` on a metric it was not chosen for (peak RSS, CPU time):
    both cells' means and the verdict (``change``: "" when no clear difference)."""

    metric: str
    current_mean: float
    fix_mean: float
    change: str

    def text(self) -> str:
        unit = metrics.get(self.metric).unit
        if unit == "bytes":
            values = f"{self.current_mean / (1 << 20):.0f} -> {self.fix_mean / (1 << 20):.0f} MiB"
        else:
            values = f"{self.current_mean:.3g} -> {self.fix_mean:.3g} {unit}"
        label = SIDE_LABELS.get(self.metric, self.metric)
        return f"{label} {values}: {self.change or 'no clear difference'}"

    def to_json(self) -> dict[str, Any]:
        return {"metric": self.metric, "current_mean": self.current_mean, "fix_mean": self.fix_mean,
                "change": self.change or None}


@dataclass(frozen=True)
class FixAdvice:
    level: FixLevel
    counts: tuple[tuple[FindingCount, FindingCount, str, str], ...]  # (current, fix, verdict, reason) per finding
    metric: MetricEffect
    pause_p99: MetricEffect
    side_effects: tuple[SideEffect, ...] = ()

    def removed(self) -> bool:
        """Every finding the current flags showed is gone (one they did not show cannot be judged)."""
        verdicts = [v for _, _, v, _ in self.counts]
        return GONE in verdicts and all(v in (GONE, NOT_REPRODUCED) for v in verdicts)

    def to_json(self) -> dict[str, Any]:
        return {"level": self.level.to_json(),
                "findings": [{"current": c.to_json(), "fix": f.to_json(), "verdict": v, "reason": r}
                             for c, f, v, r in self.counts],
                "metric": self.metric.to_json(), "pause_p99": self.pause_p99.to_json(),
                "side_effects": [s.to_json() for s in self.side_effects]}


@dataclass(frozen=True)
class Advice:
    experiment_id: int
    metric: str
    fixes: tuple[FixAdvice, ...]
    lower_is_better: bool = True

    def winner(self) -> FixAdvice | None:
        """The fix that removed every finding the current flags showed and is not significantly worse on
        the metric or on pause p99; of several, the best metric ratio (None: no such fix)."""
        ok = [f for f in self.fixes if f.removed() and not f.metric.worse and not f.pause_p99.worse]
        if not ok:
            return None
        return min(ok, key=lambda f: (f.metric.ratio if f.metric.ratio is not None else float("inf"))
                   * (1 if self.lower_is_better else -1))

    def to_json(self) -> dict[str, Any]:
        win = self.winner()
        return {"experiment": self.experiment_id, "metric": self.metric, "fixes": [f.to_json() for f in self.fixes],
                "winner": None if win is None else win.level.to_json()}


def _cell_of(summary: Summary, level: str) -> str | None:
    return next((c.name for c in summary.cells if f"{FACTOR}={level}" in c.name.split(" ")), None)


def _effect(summary: Summary | None, metric: str, level: str) -> MetricEffect:
    if summary is None:
        return MetricEffect(metric, None, None, "not measured")
    cell = _cell_of(summary, level)
    comp = None if cell is None else comparison_of(summary, cell)
    if cell is None or comp is None:
        return MetricEffect(metric, None, None, "no comparison")
    lower = summary.metrics.get(metric).lower_is_better
    worse = bool(called(summary, cell) and comp.ratio is not None and (comp.ratio > 1.0) == lower)
    return MetricEffect(metric, comp.ratio, comp.ci95, summary.verdicts.get(cell, ""), worse)


def _side_effects(sides: Sequence[Summary], level: str) -> tuple[SideEffect, ...]:
    """The fix's cell against the current flags' on each side metric measured in both."""
    out = []
    for summary in sides:
        cell, current = _cell_of(summary, level), _cell_of(summary, CURRENT)
        stats = {c.name: c.stats.get(summary.metric) for c in summary.cells}
        comp = None if cell is None else comparison_of(summary, cell)
        mine, theirs = stats.get(cell or ""), stats.get(current or "")
        if comp is None or mine is None or theirs is None or mine.mean is None or theirs.mean is None:
            continue
        change = (change_phrase(comp.ratio, comp.ci95, True, summary.metrics.get(summary.metric))
                  if cell is not None and called(summary, cell) and comp.ratio is not None
                  and comp.ci95 is not None else "")
        out.append(SideEffect(summary.metric, float(theirs.mean), float(mine.mean), change))
    return tuple(out)


def build_advice(store: Store, experiment_id: int, levels: Sequence[FixLevel], finding_ids: Sequence[str],
                 metric: str | None = None) -> Advice:
    """Per fix: the findings' counts before (``current``) and after, and the two effects."""
    main = summarize(store, experiment_id, metric, timelines=None)
    try:
        p99: Summary | None = summarize(store, experiment_id, PAUSE_P99, timelines=None)
    except UserError:  # no pause percentiles stored (e.g. a ZGC log without pauses): not measured
        p99 = None
    sides = []
    for side in (m for m in SIDE_METRICS if m != main.metric):
        try:
            sides.append(summarize(store, experiment_id, side, timelines=None))
        except UserError:  # not measured here (no psutil/launch helper): no side effect to say
            continue
    docs = level_documents(store, experiment_id, FACTOR)
    out = []
    for lv in levels:
        if lv.name == CURRENT:
            continue
        rows = []
        for fid in finding_ids:
            before = count_finding(fid, CURRENT, docs.get(CURRENT, []))
            after = count_finding(fid, lv.name, docs.get(lv.name, []))
            verdict, reason = went_away(before, after)
            rows.append((before, after, verdict, reason))
        out.append(FixAdvice(lv, tuple(rows), _effect(main, main.metric, lv.name), _effect(p99, PAUSE_P99, lv.name),
                             _side_effects(sides, lv.name)))
    return Advice(experiment_id, main.metric, tuple(out), main.metrics.get(main.metric).lower_is_better)


def advice_document(advice: Advice, source: str, findings: Sequence[Finding],
                    levels: Sequence[FixLevel]) -> GcAdviseDocument:
    """The `gc_advise` document of a run: what it read, the fixes, the advice and its winner."""
    win = advice.winner()
    return GcAdviseDocument(
        source=source, findings=tuple(f.to_json() for f in findings),
        levels=tuple(GcFixLevelRecord.decode(lv.to_json()) for lv in levels), advice=advice.to_json(),
        winner=None if win is None else GcFixLevelRecord.decode(win.level.to_json()))


def _runs(c: FindingCount) -> str:
    if not c.runs:
        return "-"
    mean = "-" if c.mean_count is None else f"{c.mean_count:.3g}"
    ci = f" [{c.mean_ci[0]:.3g}, {c.mean_ci[1]:.3g}]" if c.mean_ci else ""
    return f"{c.runs_with}/{c.runs} ({mean}{ci})"


def lines(advice: Advice) -> list[tuple[str, str]]:
    """(text, style) lines: per fix its flags, each finding before -> after with the verdict,
    then the metric and pause p99 against the current flags."""
    out = [(f"gc advise (experiment {advice.experiment_id}): each fix against the current flags", "bold")]
    for fix in advice.fixes:
        out.append((f"{fix.level.name}: {' '.join(fix.level.flags)}", "bold"))
        for before, after, verdict, reason in fix.counts:
            severity = (f"; severity {before.severity} -> {after.severity}"
                        if before.severity and after.severity and before.severity != after.severity else "")
            out.append((f"  {before.finding}: runs with it, current {_runs(before)} -> fix {_runs(after)}: "
                        f"{verdict} ({reason}){severity}", "green" if verdict == GONE else ""))
        out.append((f"  {advice.metric}: {fix.metric.text()}", ""))
        out.append((f"  pause p99: {fix.pause_p99.text()}", ""))
        for side in fix.side_effects:
            out.append((f"  side effect: {side.text()}", "yellow" if side.change else ""))
    removed = [f.level.name for f in advice.fixes if f.removed()]
    out.append((f"removed every finding the current flags showed: {', '.join(removed)}" if removed else
                "no fix removed its findings in every run", "bold"))
    win = advice.winner()
    if win is not None:
        out.append((f"advised: {' '.join(win.level.flags)} (`jvmlab apply {advice.experiment_id}`)", "bold green"))
    out.append((f"the experiment is stored: `jvmlab report {advice.experiment_id}`", "dim"))
    return out


def render(advice: Advice, console: Console) -> None:
    for text, style in lines(advice):
        console.print(Text(text, style=style))
