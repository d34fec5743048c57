"""Pairs of cells for the scenario verdicts, judged by the one interference model.

Comparisons in a Summary are against one baseline cell; a scenario verdict needs other
pairs (pre-touch on vs off at each heap). Each pair goes through the results layer
(:func:`jvmlab.results.judge_pair`): the same bootstrap as the report's comparisons, paired
by block when the cells share blocks, and the same rule as ``run``/``report`` on a busy
machine (a wall-time difference the run-queue delay could explain is not called; CPU time
and peak RSS by their own intervals). :class:`Machine` carries what the machine did.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jvmlab.analyze.model import clean
from jvmlab.metrics import RUN_DELAY
from jvmlab.report.notation import sentence_ci
from jvmlab.report.verdicts import disturbance_text, withheld_short
from jvmlab.results import BusyBlock, JudgedPair, cell_values, judge_pair
from jvmlab.results.pairs import Interval3, excludes_zero

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary

__all__ = ["Interval3", "Judged", "Machine", "cell_n", "diff_ci", "fmt_interval", "index_cells",
           "key_with", "mean_ci", "not_estimable", "pair_n", "ratio_pct"]
CellKey = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Machine:
    """What the machine did while the cells ran: the experiment's busy blocks and how many
    blocks were measured (the default: nothing recorded, so only a drift can disturb a pair)."""

    busy: tuple[BusyBlock, ...] = ()
    n_blocks: int = 0

    @classmethod
    def of(cls, summary: Summary | Any) -> Machine:
        results = getattr(summary, "results", None)
        return cls(tuple(results.busy_blocks), results.measured_blocks()) if results is not None else cls()


@dataclass(frozen=True)
class Judged:
    """A pair's estimate with its 95% CI (``value``) and, when the one model withholds it,
    ``withheld`` (the answer column's words) and ``why`` (the whole sentence, with the delay)."""

    value: Interval3
    withheld: str | None = None
    why: str | None = None

    @property
    def clear(self) -> bool:
        return excludes_zero(self.value) and self.withheld is None


def index_cells(summary: Summary) -> dict[CellKey, Any]:
    """Cells by their sorted (factor, level) pairs, the JVM included."""
    return {tuple(sorted({"jvm": cs.cell.jvm, **cs.cell.levels}.items())): cs for cs in summary.cells}


def key_with(key: CellKey, **changes: str) -> CellKey:
    return tuple(sorted({**dict(key), **changes}.items()))


def mean_ci(cell: Any, metric: str) -> Interval3 | None:
    st = cell.stats.get(metric)
    if st is None or st.mean is None:
        return None
    lo, hi = st.mean_ci95 if st.mean_ci95 else (math.nan, math.nan)
    return st.mean, lo, hi


def cell_n(cell: Any, metric: str) -> int:
    """Invocations behind a cell's mean of ``metric`` (0 when it has none)."""
    st = cell.stats.get(metric)
    return int(st.n) if st is not None else 0


def _judged(pair: JudgedPair | None) -> Judged | None:
    if pair is None:
        return None
    d = pair.disturbance
    if not pair.withheld or d is None:
        return Judged(pair.value)
    return Judged(pair.value, withheld_short(d), disturbance_text(d))


def _pair(machine: Machine, a: Any, b: Any, metric: str, scale: float | None) -> Judged | None:
    a_values, b_values = (cell_values(x.ok_invocations, metric) for x in (a, b))
    delays = (cell_values(a.ok_invocations, RUN_DELAY), cell_values(b.ok_invocations, RUN_DELAY))
    return _judged(judge_pair(a.cell.name, a_values, b.cell.name, b_values, metric, scale=scale, busy=machine.busy,
                              n_blocks=machine.n_blocks, delays=delays))


def diff_ci(machine: Machine, a: Any, b: Any, metric: str, scale: float = 1.0) -> Judged | None:
    """mean(a) - mean(b), times ``scale``, with its 95% bootstrap CI, judged on ``machine``."""
    return _pair(machine, a, b, metric, scale)


def ratio_pct(machine: Machine, a: Any, b: Any, metric: str) -> Judged | None:
    """(mean(a) / mean(b) - 1) in percent, with its 95% bootstrap CI, judged on ``machine``."""
    return _pair(machine, a, b, metric, None)


def not_estimable(n: int) -> str:
    """Why an estimate has no interval: "not estimable at n=2" (0: the count is not known)."""
    return f"not estimable at n={n}" if n > 0 else "not estimable: too few invocations"


def fmt_interval(value: Interval3, fmt: str, n: int = 0) -> str:
    """"+0.123 s (95% CI +0.100 s ... +0.150 s)"; without a CI, "+0.123 s (not estimable at n=2)"."""
    est, lo, hi = value
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{fmt.format(est)} ({not_estimable(n)})"
    return f"{fmt.format(est)} ({sentence_ci(fmt.format(lo), fmt.format(hi))})"


def pair_n(a: Any, b: Any, metric: str) -> int:
    """Invocations behind a pair's interval: the smaller cell's count of values."""
    return min(clean(cell_values(x.ok_invocations, metric)).values.size for x in (a, b))
