"""``--until 2%``: the one stopping rule, the same on this machine and on a cluster.

After the planned blocks, add rounds of blocks (one per block the runner runs at once: one
locally, one per accepted node on a cluster, so no node idles) until every comparison's 95% CI
is within the target, the budget (--max-invocations, --budget) is spent, the failure budget
makes the target unreachable, or a hard cap on added blocks is reached (no endless loop).

The rule reads only CI widths (never significance), so it cannot chase a p-value. The loop
is ``Session.run_until``; this module holds its rules.
"""

from __future__ import annotations

from jvmlab.execute.budget import Budget
from jvmlab.plan.prepare import Plan

MAX_ADDED_FACTOR = 10  # without a budget, at most 10 x the planned blocks are added
MIN_ADDED_BLOCKS = 20


def added_block_cap(planned_blocks: int) -> int:
    """How many blocks ``--until`` may add at most when nothing else stops it."""
    return max(MIN_ADDED_BLOCKS, MAX_ADDED_FACTOR * planned_blocks)


def stop_reason(plan: Plan, budget: Budget, spent: bool, added: int, cap: int,
                more: str) -> tuple[str, str] | None:
    """Why no more blocks are added, and what to do about it; None: add the next round."""
    if spent:
        return "the budget was spent", more
    why = unreachable(plan, budget)
    if why:
        return why, "see the failures with `jvmlab report`; fix the failing cell or drop it, then rerun"
    if added >= cap:
        return f"{cap} blocks were added, the most --until adds without --max-invocations or --budget", more
    return None


def unreachable(plan: Plan, budget: Budget) -> str | None:
    """Why no further block can bring every comparison to the target, or None.

    The width rule needs every cell (each comparison is a cell against the baseline); a cell
    stopped by the failure budget never gets another value, so its comparison, and thus the
    rule, can never be satisfied. Measuring the healthy cells further would only spin."""
    if budget.failures_exhausted:
        return (f"no comparison can reach it: {budget.failures} failures reached the failure "
                f"budget's limit of {budget.max_failures}")
    dead = [pc.cell.name for pc in plan.cells if budget.cell_stopped(pc.cell.index)]
    if not dead:
        return None
    if len(dead) == len(plan.cells):
        return "no comparison can reach it: every cell was stopped by the failure budget"
    baseline = plan.cells[plan.baseline_index].cell.name
    if baseline in dead:
        return (f"no comparison can reach it: the baseline {baseline} was stopped by the failure budget, "
                f"so no cell can be compared with it")
    names = ", ".join(dead)
    verb = "was" if len(dead) == 1 else "were"
    return (f"no comparison can reach it while {names} {verb} stopped by the failure budget "
            f"(its comparison with the baseline can never be made)")
