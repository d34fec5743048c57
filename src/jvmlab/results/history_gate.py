"""The gate on a series: ``history SERIES --fail-if "wall_s > +3%"``.

For each cell and metric a condition matches, the newest segment (the labels since the last
change point) is compared with the segment before it: that change's ratio, 95% interval and
p-value become one :class:`~jvmlab.analyze.model.Comparison`, and the compare gate
(:func:`jvmlab.analyze.gate.judge`: Holm across every check, fail only when significant and
the whole interval lies beyond the threshold) decides. One parser, one judge.

- no change point: nothing to fail on; the check passes (a series that never moved);
- the newest label alone differs from the segment before it (:class:`~jvmlab.analyze.changepoint.Tail`):
  one label cannot tell a change from an outlier, so the check is ``inconclusive`` (exit 3,
  the compare gate's code; ``--inconclusive pass`` makes it 0) until the next label says which;
- a newest change whose two sides ran under different contention (the labels' stored
  run-queue delays, :func:`jvmlab.analyze.interference.machine_changed`) is never a call:
  its interval widens by what the delay change could explain, so the check is inconclusive
  (exit 3) unless even that wider interval lies on the good side of the threshold;
- a newest change the compare gate itself cannot decide (its interval reaches past the
  threshold without being surely beyond it) is inconclusive for the same reason.

The p-value of the newest change is re-tested with enough permutations to survive the Holm
correction across the checks (detection's permutations stop at a resolution near alpha).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.changepoint import Tail, retest
from jvmlab.analyze.gate import (
    DEFAULT_INCONCLUSIVE,
    EXIT_FAIL,
    EXIT_INCONCLUSIVE,
    EXIT_PASS,
    INCONCLUSIVE_POLICIES,
    GateCondition,
    GateResult,
    judge,
)
from jvmlab.analyze.model import Comparison
from jvmlab.results.history import CellHistory, History

GATE_ALPHA = 0.05  # analyze.correction.adjust's family-wise level
MAX_PERMUTATIONS = 19_999


@dataclass(frozen=True)
class TooShort:
    """A cell whose newest label stands alone and differs: the gate cannot tell yet."""

    cell: str
    metric: str
    label: str
    tail: Tail  # its ratio to the segment before, interval and p-value


@dataclass(frozen=True)
class HistoryGate:
    series: str
    result: GateResult
    too_short: tuple[TooShort, ...]
    newest_label: str

    @property
    def outcome(self) -> str:
        """fail if a check fails; inconclusive if a newest label stands alone, or if the compare
        gate itself did not pass a check it could not decide; else pass."""
        if self.result.failed:
            return "fail"
        return "inconclusive" if self.too_short or not self.result.passed else "pass"

    @property
    def exit_code(self) -> int:
        return self.exit_code_for(DEFAULT_INCONCLUSIVE)

    def exit_code_for(self, inconclusive: str = DEFAULT_INCONCLUSIVE) -> int:
        """0 pass, 1 fail, 3 inconclusive (0 with ``inconclusive="pass"``), as the compare gate."""
        assert inconclusive in INCONCLUSIVE_POLICIES
        if self.outcome == "fail":
            return EXIT_FAIL
        if self.outcome == "inconclusive" and inconclusive == "fail":
            return EXIT_INCONCLUSIVE
        return EXIT_PASS


def gate_history(history: History, conditions: Sequence[GateCondition]) -> HistoryGate:
    """Judge each condition on each matching cell's newest change (see module doc)."""
    matched = [c for c in history.cells if any(cond.matches(c.metric) for cond in conditions)]
    with_change = [c for c in matched if c.segmentation is not None and c.segmentation.changes]
    permutations = min(MAX_PERMUTATIONS, max(999, math.ceil(20 * max(len(with_change), 1) / GATE_ALPHA)))
    comparisons = [_comparison(history.series, c, permutations) for c in with_change]
    result = judge(conditions, comparisons, {c.metric: c.lower_is_better for c in matched})
    short = tuple(TooShort(c.cell, c.metric, c.points[-1].label, seg.tail)
                  for c in matched for seg in [c.segmentation] if seg is not None and seg.tail is not None)
    return HistoryGate(history.series, result, short, history.labels[-1].label if history.labels else "")


def _comparison(series: str, cell: CellHistory, permutations: int) -> Comparison:
    seg = cell.segmentation
    assert seg is not None and seg.changes
    last = seg.changes[-1]
    p = retest(seg, len(seg.changes) - 1, permutations, rng_for(0, "history-gate", series, cell.cell, cell.metric))
    before = cell.label_at(last.index - 1)
    after = cell.label_at(last.index)
    rel = (last.ratio - 1.0) * 100.0 if last.ratio is not None else None
    ci, changed = last.ci95, cell.machine_change_at(last.index)
    if changed is not None:  # the two sides ran under different contention: never a call (the one model)
        p = 1.0
        ci = (ci[0] / changed.margin, ci[1] * changed.margin) if ci is not None else None
    return Comparison(cell=cell.cell, baseline=f"{before} -> {after}", metric=cell.metric,
                      ratio=last.ratio, ci95=ci, rel_diff_pct=rel, p_value=p, p_adjusted=None,
                      significant=False, n_cell=last.after_labels, n_baseline=last.before_labels, paired=False,
                      ci_kind="change-point",
                      machine_changed_s=(changed.delay_before_s, changed.delay_after_s) if changed else None)
