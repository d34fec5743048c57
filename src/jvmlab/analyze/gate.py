"""The CI gate: ``--fail-if "wall_s > +3%"`` over comparisons of a new experiment against a
baseline one.

A condition fails the build only when the difference is real *and* large: the comparison is
significant after the Holm correction across every comparison the gate looks at (all cells
and all metrics its conditions match), and the whole 95% CI of the ratio lies beyond the
threshold. A point estimate past the threshold with a CI that straddles it passes: the data
cannot tell a 3.5% regression from a 2% one, and a flaky gate gets switched off.

Pure: parses conditions and judges :class:`~jvmlab.analyze.model.Comparison` records; the
wording lives in :mod:`jvmlab.report.gate`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from jvmlab.analyze.correction import adjust
from jvmlab.analyze.model import Comparison
from jvmlab.errors import UserError

_CONDITION = re.compile(r"^\s*(?P<metric>[A-Za-z_][^\s<>=]*)\s*(?P<op>[<>]|\s+worse\s+)\s*"
                        r"(?P<num>[+-]?\d+(?:\.\d+)?)\s*%\s*$")


@dataclass(frozen=True)
class GateCondition:
    """``metric > +3%``: fail when B/A - 1 is surely above +3%; ``<`` when surely below;
    ``worse 5%``: surely 5% worse in the metric's own direction (for globs mixing throughput
    and time metrics, such as ``jmh.*``)."""

    metric: str  # a metric name or a glob over names ("jmh.*")
    op: Literal["<", ">", "worse"]
    threshold_pct: float
    text: str

    @property
    def limit_ratio(self) -> float:
        return 1.0 + self.threshold_pct / 100.0

    def matches(self, metric: str) -> bool:
        return fnmatch.fnmatchcase(metric, self.metric)

    def breached(self, comparison: Comparison, lower_is_better: bool = True) -> bool:
        """Significant (after correction) and the whole CI beyond the limit."""
        if not comparison.significant or comparison.ci95 is None:
            return False
        low, high = comparison.ci95
        if self.op == "worse":
            return low > self.limit_ratio if lower_is_better else high < 1.0 - self.threshold_pct / 100.0
        return low > self.limit_ratio if self.op == ">" else high < self.limit_ratio


def parse_condition(text: str) -> GateCondition:
    """Parse ``METRIC > +N%`` or ``METRIC < -N%``; a UserError (exit 2) names the syntax."""
    m = _CONDITION.match(text)
    if m is None:
        raise UserError(f"--fail-if {text!r}: write METRIC > +N%, METRIC < -N% or METRIC worse N%, e.g. "
                        f"\"wall_s > +3%\" or \"jmh.* worse 5%\"")
    op, number = m["op"].strip(), float(m["num"])
    if (op == ">" and number < 0) or (op == "<" and number > 0) or (op == "worse" and number < 0):
        raise UserError(f"--fail-if {text!r}: '>' takes a rise (+N%), '<' a drop (-N%), 'worse' a size (N%)")
    return GateCondition(m["metric"], "<" if op == "<" else ">" if op == ">" else "worse", number, text.strip())


@dataclass(frozen=True)
class GateCheck:
    """One condition on one cell's comparison."""

    condition: GateCondition
    comparison: Comparison  # ratio = new / baseline, p_adjusted across the gate's family
    breached: bool
    lower_is_better: bool = True

    @property
    def worse_when_higher(self) -> bool:
        """Whether a higher ratio goes towards failing this condition."""
        if self.condition.op == "worse":
            return self.lower_is_better
        return self.condition.op == ">"


@dataclass(frozen=True)
class GateResult:
    conditions: tuple[GateCondition, ...]
    checks: tuple[GateCheck, ...]

    @property
    def failed(self) -> tuple[GateCheck, ...]:
        return tuple(c for c in self.checks if c.breached)

    @property
    def passed(self) -> bool:
        return not self.failed

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1


def metrics_for(conditions: Sequence[GateCondition], available: Iterable[str]) -> list[str]:
    """The metric names the conditions look at; UserError when a condition matches none."""
    names = sorted(set(available))
    out: list[str] = []
    for cond in conditions:
        hits = [n for n in names if cond.matches(n)]
        if not hits:
            raise UserError(f"--fail-if {cond.text!r}: no metric {cond.metric!r} in both experiments "
                            f"(they have: {', '.join(names[:12])}{' ...' if len(names) > 12 else ''})")
        out += [h for h in hits if h not in out]
    return out


def judge(conditions: Sequence[GateCondition], comparisons: Sequence[Comparison],
          lower_is_better: Mapping[str, bool] | None = None) -> GateResult:
    """Correct the p-values across all the comparisons (Holm), then check each condition on
    each comparison of a metric it matches (``lower_is_better``: metric -> direction, for
    ``worse``; lower is better when not given)."""
    family = adjust(list(comparisons))
    directions = lower_is_better or {}
    checks = tuple(GateCheck(cond, comp, cond.breached(comp, lower), lower)
                   for cond in conditions for comp in family if cond.matches(comp.metric)
                   for lower in [directions.get(comp.metric, True)])
    return GateResult(tuple(conditions), checks)
