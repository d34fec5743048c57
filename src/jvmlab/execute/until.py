"""``--until 2%``: the one stopping rule, the same on this machine and on a cluster.

After the planned blocks, add rounds of blocks (one per block the runner runs at once: one
locally, one per accepted node on a cluster, so no node idles) until every comparison's 95% CI
is within the target, the budget (--max-invocations, --budget) is spent, the failure budget
makes the target unreachable, or a hard cap on added blocks is reached (no endless loop).

The rule reads only CI widths (never significance), so it cannot chase a p-value. It is a
driver of the session (:class:`Until`, driven by ``Session.drive``) with its rules here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from jvmlab.execute.budget import Budget
from jvmlab.execute.driver import Driver
from jvmlab.execute.experiment import RunState
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import BlockRunner, PrecisionCheck, RunObserver
from jvmlab.model import hazards
from jvmlab.model.hazards import Hazard
from jvmlab.plan.metric_choice import DEFAULT_METRIC
from jvmlab.plan.prepare import Plan
from jvmlab.plan.schedule import Slot
from jvmlab.store.protocol import Store

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


class UntilSession(Protocol):
    """What ``--until`` reads of the session (it sets nothing there)."""

    store: Store
    plan: Plan
    options: RunOptions
    observer: RunObserver

    @property
    def state(self) -> RunState: ...

    def out_of_budget(self, inflight: int = 0) -> bool: ...

    def warn(self, hazard: Hazard) -> None: ...

    def next_block(self) -> int: ...


@dataclass
class Until(Driver):
    """``--until``: rounds of ``runner.width`` blocks until every comparison's CI is within the
    target or a rule above stops it (said as a hazard)."""

    session: UntilSession
    runner: BlockRunner
    check: PrecisionCheck
    block: int = -1  # the next block to add
    added: int = 0
    measured_before: int | None = None  # measured slots before the last round

    def next_blocks(self) -> list[Slot] | None:
        session, runner = self.session, self.runner
        state, plan, target = session.state, session.plan, session.options.until_rel or 0.0
        words, cap = runner.ci_words, added_block_cap(plan.shape.invocations)
        if self.block < 0:
            self.block = session.next_block()
        if self.measured_before == state.measured and not session.out_of_budget():
            # Nothing could run (every slot was skipped): another block would not either.
            session.warn(Hazard(hazards.PRECISION_NOT_REACHED, f"stopped before every {words} was "
                                f"within {target:.1%}: blocks up to {self.block} measured nothing"))
            return None
        precision = self.check(session.store, state.experiment_id, session.options.metric or DEFAULT_METRIC, target)
        if precision:
            return None
        stop = stop_reason(plan, state.budget, session.out_of_budget(), self.added, cap, runner.more_hint)
        if stop is not None:
            why, hint = stop
            session.observer.extended(0, why)
            session.warn(Hazard(hazards.PRECISION_NOT_REACHED,
                                f"stopped before every {words} was within {target:.1%}: {why}", hint=hint))
            return None
        width, block = min(max(1, runner.width), cap - self.added), self.block
        slots = [s for b in range(block, block + width) for s in plan.shape.block(len(plan.cells), b)]
        remaining = getattr(precision, "remaining_per_cell", None)
        estimate = f"; about {remaining} more per cell expected" if remaining else ""
        span = f"block {block + 1}" if width == 1 else f"blocks {block + 1}-{block + width}"
        session.observer.extended(len(slots), f"{span} for a {words} within {target:.1%}{estimate}")
        self.measured_before = state.measured
        self.block, self.added = block + width, self.added + width
        return slots
