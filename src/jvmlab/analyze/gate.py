"""The CI gate: ``--fail-if "wall_s > +3%"`` over comparisons of a new experiment against a
baseline one.

Each check has one of three outcomes (:func:`decide`, a pure function of a ratio, its 95% CI,
its significance and its sample size, reused by any gate over any comparison):

* ``fail``: the difference is real *and* large: the comparison is significant after the Holm
  correction across every comparison the gate looks at (all cells and all metrics its
  conditions match), and the whole 95% CI of the ratio lies beyond the threshold;
* ``pass``: the whole 95% CI lies on the good side of the threshold: the data rule out a
  change as bad as the threshold;
* ``inconclusive``: neither: the CI reaches past the threshold without the change being
  surely beyond it (not significant, or significant with a CI that straddles the threshold,
  or no interval at all). The gate then cannot tell a 3.5% regression from a 2% one, and says
  so instead of passing ("closest: +27.1% (95% CI -22.1% ... +84.7%, not significant)" used
  to pass). With it comes about how many blocks (invocations per cell, both runs) would
  decide it (:func:`blocks_to_decide`).

Exit codes (:meth:`GateResult.exit_code_for`): 0 pass, 1 fail, 3 inconclusive; with
``--inconclusive pass`` an inconclusive gate exits 0 (the line still says inconclusive).
The default is ``fail``: "cannot tell" is never a pass unless the user asks for it.

Pure: parses conditions and judges :class:`~jvmlab.analyze.model.Comparison` records; the
wording lives in :mod:`jvmlab.report.gate`.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from jvmlab.analyze.correction import adjust
from jvmlab.analyze.model import Comparison, Interval
from jvmlab.errors import UserError

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_INCONCLUSIVE = 3  # 2 is a usage error (jvmlab.errors.EXIT_USAGE)
INCONCLUSIVE_POLICIES = ("fail", "pass")
DEFAULT_INCONCLUSIVE = "fail"
MAX_BLOCKS_SAID = 100_000  # beyond this the estimate sits on the threshold: no run decides it


class GateOutcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class GateDecision:
    """One check's outcome and, when inconclusive, about how many blocks per cell would
    decide it (None: no interval, or the estimate sits on the threshold)."""

    outcome: GateOutcome
    blocks_to_decide: int | None = None

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

    def matches(self, metric: str) -> bool:
        return fnmatch.fnmatchcase(metric, self.metric)

    def bad_when_higher(self, lower_is_better: bool = True) -> bool:
        """Whether a higher ratio goes towards failing this condition."""
        return lower_is_better if self.op == "worse" else self.op == ">"

    def limit_for(self, lower_is_better: bool = True) -> float:
        """The threshold as a ratio (new / baseline) in the direction that fails."""
        if self.op == "worse" and not lower_is_better:
            return 1.0 - self.threshold_pct / 100.0
        return 1.0 + self.threshold_pct / 100.0

    def decide(self, comparison: Comparison, lower_is_better: bool = True) -> GateDecision:
        """This condition on one comparison (:func:`decide`)."""
        return decide(self.limit_for(lower_is_better), self.bad_when_higher(lower_is_better), comparison.ratio,
                      comparison.ci95, comparison.significant, min(comparison.n_cell, comparison.n_baseline))


def decide(limit: float, bad_when_higher: bool, ratio: float | None, ci95: Interval | None, significant: bool,
           n: int) -> GateDecision:
    """Pass, fail or inconclusive for a ratio (new / baseline) against a threshold ``limit``
    (a ratio; ``bad_when_higher``: crossing it upwards fails). ``significant``: the test of
    "no difference" after the family's correction; ``n``: the blocks (invocations per cell)
    behind the interval. Fail: significant and the whole CI beyond the limit; pass: the whole
    CI on the good side of it (touching allowed); else inconclusive."""
    if ratio is None or ci95 is None:
        return GateDecision(GateOutcome.INCONCLUSIVE, None)
    low, high = ci95  # a comparison whose two runs' contention differed is not significant: it cannot fail
    beyond = low > limit if bad_when_higher else high < limit
    if significant and beyond:
        return GateDecision(GateOutcome.FAIL)
    if (high <= limit) if bad_when_higher else (low >= limit):
        return GateDecision(GateOutcome.PASS)
    return GateDecision(GateOutcome.INCONCLUSIVE, blocks_to_decide(limit, ratio, ci95, n))


def blocks_to_decide(limit: float, ratio: float, ci95: Interval, n: int) -> int | None:
    """About how many blocks per cell would put the whole CI on one side of ``limit``,
    if the estimate stayed where it is: the interval's half-width facing the limit (on the
    log scale) shrinks as 1/sqrt(n), so ``n x (half-width / distance to the limit)^2``.
    On the failing side this also makes the interval leave out 1 (the limit lies between 1
    and the estimate), i.e. significance up to the correction. None when the estimate sits on
    the limit or a bound is not positive."""
    low, high = ci95
    if n < 1 or min(low, high, ratio, limit) <= 0:
        return None
    distance = abs(math.log(ratio) - math.log(limit))
    half = math.log(high) - math.log(ratio) if ratio < limit else math.log(ratio) - math.log(low)
    if distance <= 0 or half <= 0:
        return None
    needed = math.ceil(n * (half / distance) ** 2)
    return max(needed, n + 1) if needed <= MAX_BLOCKS_SAID else None


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
    decision: GateDecision
    lower_is_better: bool = True

    @property
    def outcome(self) -> GateOutcome:
        return self.decision.outcome

    @property
    def breached(self) -> bool:
        return self.decision.outcome is GateOutcome.FAIL

    @property
    def inconclusive(self) -> bool:
        return self.decision.outcome is GateOutcome.INCONCLUSIVE


@dataclass(frozen=True)
class GateResult:
    conditions: tuple[GateCondition, ...]
    checks: tuple[GateCheck, ...]

    @property
    def failed(self) -> tuple[GateCheck, ...]:
        return tuple(c for c in self.checks if c.breached)

    @property
    def inconclusive(self) -> tuple[GateCheck, ...]:
        return tuple(c for c in self.checks if c.inconclusive)

    @property
    def outcome(self) -> GateOutcome:
        """fail if any check fails, else inconclusive if any is, else pass."""
        if self.failed:
            return GateOutcome.FAIL
        return GateOutcome.INCONCLUSIVE if self.inconclusive else GateOutcome.PASS

    @property
    def passed(self) -> bool:
        return self.outcome is GateOutcome.PASS

    def exit_code_for(self, inconclusive: str = DEFAULT_INCONCLUSIVE) -> int:
        """0 pass, 1 fail, 3 inconclusive (0 with ``inconclusive="pass"``)."""
        if inconclusive not in INCONCLUSIVE_POLICIES:
            raise UserError(f"--inconclusive {inconclusive!r}: choose {' or '.join(INCONCLUSIVE_POLICIES)}")
        outcome = self.outcome
        if outcome is GateOutcome.FAIL:
            return EXIT_FAIL
        if outcome is GateOutcome.INCONCLUSIVE and inconclusive == "fail":
            return EXIT_INCONCLUSIVE
        return EXIT_PASS

    @property
    def exit_code(self) -> int:
        return self.exit_code_for(DEFAULT_INCONCLUSIVE)


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
    checks = tuple(GateCheck(cond, comp, cond.decide(comp, lower), lower)
                   for cond in conditions for comp in family if cond.matches(comp.metric)
                   for lower in [directions.get(comp.metric, True)])
    return GateResult(tuple(conditions), checks)
