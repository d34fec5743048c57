"""Power before running: can the planned invocations reach significance at all?

The report compares every cell with the baseline by a permutation test and corrects the
family with Holm (:mod:`jvmlab.analyze`). A permutation test has a floor (the smallest
p-value any data can give) set by the number of blocks, and Holm raises the bar with the
number of comparisons; when the floor times the number of comparisons is not below alpha,
the run can only ever print "no clear difference", whatever the JVMs do. ``check`` and
``run`` say so before any JVM starts, with the figures, how many blocks would do, and that
``--until`` adds blocks until the intervals are narrow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from jvmlab.analyze.reachable import blocks_needed, smallest_adjusted, smallest_p_value

if TYPE_CHECKING:
    from jvmlab.plan.prepare import Plan

ALPHA = 0.05


@dataclass(frozen=True)
class PowerCheck:
    """The floor of the planned design against the corrected threshold."""

    comparisons: int
    blocks: int  # measured invocations per cell, one per block
    alpha: float
    smallest_p: float  # of one comparison, for the most extreme data possible
    smallest_adjusted_p: float  # after the correction, in the most favourable case
    blocks_needed: int | None  # fewest blocks from which on significance is possible
    until: bool  # blocks will be added (--until) beyond ``blocks``
    max_blocks: int | None  # a budget's cap on blocks when ``until`` (None: no cap)

    @property
    def reachable(self) -> bool:
        return self.comparisons == 0 or self.smallest_adjusted_p < self.alpha

    @property
    def warn(self) -> bool:
        """Worth a warning: unreachable as planned, and --until cannot (or may not) rescue it."""
        if self.reachable:
            return False
        if not self.until:
            return True
        return self.blocks_needed is None or (self.max_blocks is not None and self.max_blocks < self.blocks_needed)

    def message(self) -> str:
        """One paragraph with the numbers, for the terminal."""
        m = self.comparisons
        threshold = f"alpha/{m} = {self.alpha / m:.4g}" if m > 1 else f"alpha = {self.alpha:g}"
        head = (f"{self.blocks} block(s) cannot reach significance: the smallest p-value a permutation "
                f"test of {self.blocks} invocation(s) per cell can give is {self.smallest_p:.3g}, above "
                f"the Holm threshold for {m} comparison(s) ({threshold}); every verdict would be "
                f"\"no clear difference\"")
        if self.blocks_needed is None:
            return head + "; no number of blocks fixes this: compare fewer cells at once"
        advice = (f"; {self.blocks_needed} blocks or more would make it possible "
                  f"(run.invocations = {self.blocks_needed})")
        if self.until and self.max_blocks is not None:
            return head + advice + f", but the budget stops --until at {self.max_blocks} blocks: raise it"
        return head + advice + ", or run with --until 2% to add blocks until the intervals are narrow"


def power_check(n_cells: int, blocks: int, *, has_baseline: bool = True, until: bool = False,
                max_invocations: int | None = None) -> PowerCheck:
    """Check a design of ``n_cells`` cells and ``blocks`` invocations per cell (pure; Holm at
    ``ALPHA``, as the report compares)."""
    comparisons = max(0, n_cells - 1) if has_baseline else 0
    floor = smallest_p_value(blocks)
    max_blocks = max_invocations // n_cells if until and max_invocations is not None and n_cells else None
    return PowerCheck(
        comparisons=comparisons, blocks=blocks, alpha=ALPHA,
        smallest_p=floor, smallest_adjusted_p=smallest_adjusted(floor, comparisons, "holm"),
        blocks_needed=blocks_needed(comparisons, ALPHA, "holm") if comparisons else None,
        until=until, max_blocks=max_blocks)


def plan_power(plan: Plan, until: bool = False, max_invocations: int | None = None) -> PowerCheck:
    """The check for a prepared :class:`jvmlab.plan.prepare.Plan` (every cell, one baseline)."""
    return power_check(len(plan.cells), plan.spec.run.invocations, has_baseline=len(plan.cells) > 1,
                       until=until, max_invocations=max_invocations)
