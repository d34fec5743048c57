"""``run --cluster --until 2%``: after the planned blocks, add rounds of blocks (one per accepted
node, so no node idles) until every within-node comparison's 95% CI is within the target, the
budget (--max-invocations, --budget) is spent, or a hard cap on added blocks is reached.

The rule reads only CI widths (never significance), as on one machine (:mod:`execute.runner`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jvmlab.execute.until import unreachable
from jvmlab.model import hazards
from jvmlab.model.hazards import Hazard
from jvmlab.plan.metric_choice import DEFAULT_METRIC
from jvmlab.plan.schedule import Slot
from jvmlab.results.adaptive import Precision
from jvmlab.store.protocol import Store

PrecisionCheck = Callable[[Store, int, str, float], Precision]
MAX_ADDED_FACTOR = 10  # without a budget, at most 10 x the planned blocks are added (no endless loop)
MIN_ADDED_BLOCKS = 20


def added_block_cap(planned_blocks: int) -> int:
    """How many blocks ``--until`` may add at most when nothing else stops it."""
    return max(MIN_ADDED_BLOCKS, MAX_ADDED_FACTOR * planned_blocks)


def run_until(dispatcher: Any, runner: Any, first_block: int, check: PrecisionCheck) -> int:
    """Add rounds of blocks until the rule holds or something stops it; return blocks added."""
    options, state, plan = runner.options, runner.state, runner.plan
    target = options.until_rel or 0.0
    metric = options.metric or DEFAULT_METRIC
    cap = added_block_cap(plan.shape.invocations)
    block, added = first_block, 0
    while not check(runner.store, state.experiment_id, metric, target):
        why = _stop_reason(runner, added, cap)
        if why is not None:
            runner.observer.extended(0, why)
            runner.warn(Hazard(hazards.PRECISION_NOT_REACHED,
                               f"stopped before every within-node 95% CI was within {target:.1%}: {why}",
                               hint="raise --max-invocations or --budget, or add nodes"))
            return added
        width = min(max(1, len(dispatcher.nodes)), cap - added)
        blocks: list[list[Slot]] = [plan.shape.block(len(plan.cells), b) for b in range(block, block + width)]
        runner.observer.extended(sum(map(len, blocks)), f"blocks {block + 1}-{block + width} across "
                                 f"{len(dispatcher.nodes)} node(s) for a within-node CI within {target:.1%}")
        before = state.measured
        dispatcher.run(blocks)
        block, added = block + width, added + width
        if state.measured == before and not runner.out_of_budget():
            runner.warn(Hazard(hazards.PRECISION_NOT_REACHED, f"stopped before every within-node 95% CI was "
                               f"within {target:.1%}: blocks up to {block} measured nothing"))
            return added
    return added


def _stop_reason(runner: Any, added: int, cap: int) -> str | None:
    if runner.out_of_budget():
        return "the budget was spent"
    why: str | None = unreachable(runner.plan, runner.state.budget)
    if why:
        return why
    if added >= cap:
        return f"{cap} blocks were added, the most --until adds without --max-invocations or --budget"
    return None
