"""Why ``--until`` cannot reach its target any more: the failure budget stopped a cell it needs."""

from __future__ import annotations

from jvmlab.execute.budget import FailureBudget
from jvmlab.plan.prepare import Plan


def unreachable(plan: Plan, budget: FailureBudget) -> str | None:
    """Why no further block can bring every comparison to the target, or None.

    The width rule needs every cell (each comparison is a cell against the baseline); a cell
    stopped by the failure budget never gets another value, so its comparison, and thus the
    rule, can never be satisfied. Measuring the healthy cells further would only spin."""
    if budget.exhausted:
        return (f"no comparison can reach it: {budget.total} failures reached the failure "
                f"budget's limit of {budget.max_total}")
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
