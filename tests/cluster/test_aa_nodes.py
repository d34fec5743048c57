"""A/A across two nodes, one of them 15% slower: compared within node (whole blocks per node,
hierarchical bootstrap) the false-positive rate stays near 5%; pooled naively, with the cells'
invocations landing on the nodes in unequal shares (a free-worker scheduler fed cell after cell,
the second node joining part-way), it does not. Seeded simulation; both rates are printed."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from jvmlab.analyze.compare import ratio_unpaired
from jvmlab.analyze.hierarchical import NodeBlocks, hierarchical_ratio, node_offsets
from jvmlab.execute.fake import FakeExecutor
from jvmlab.model.process import InvocationPlan

NODES = {"node-a": 1.0, "node-b": 1.15}  # node-b has a systematic +15% offset
BLOCKS_PER_NODE = 8
SIMULATIONS = 300
N_BOOT = 1000


class NodeOffsetExecutor:
    """The fake executor with a node's offset applied: same cell, same JVM, slower machine."""

    def __init__(self, seed: int) -> None:
        self.fake = FakeExecutor(seed)

    def run_on(self, node: str) -> float:
        plan = InvocationPlan(argv=("java", "-Dfake.mean_s=1.0", "-Dfake.cv=0.05"), env={}, cwd=Path("/"),
                              timeout_s=None, artifacts_dir=Path("/tmp"))
        return self.fake.run(plan).measures.wall_s * NODES[node]


def blocked(executor: NodeOffsetExecutor) -> list[NodeBlocks]:
    """Whole blocks on one node: both cells of a block run on the same node."""
    return [NodeBlocks(node, np.array([executor.run_on(node) for _ in range(BLOCKS_PER_NODE)]),
                       np.array([executor.run_on(node) for _ in range(BLOCKS_PER_NODE)])) for node in NODES]


def naive(executor: NodeOffsetExecutor, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Cell A's invocations submitted first, then cell B's; node-b joins after a random number of
    them, and from then on the two nodes alternate."""
    n = BLOCKS_PER_NODE * len(NODES)
    queue = ["A"] * n + ["B"] * n
    join = int(rng.integers(0, 2 * n))
    values: dict[str, list[float]] = {"A": [], "B": []}
    for i, cell in enumerate(queue):
        node = "node-a" if i < join or (i - join) % 2 == 0 else "node-b"
        values[cell].append(executor.run_on(node))
    return np.array(values["A"]), np.array(values["B"])


def test_within_node_verdict_keeps_its_false_positive_rate_while_pooled_does_not() -> None:
    rng = np.random.default_rng(20261123)
    within = pooled = 0
    for sim in range(SIMULATIONS):
        executor = NodeOffsetExecutor(seed=sim)
        h = hierarchical_ratio(blocked(executor), rng, n_boot=N_BOOT)
        a, b = naive(executor, rng)
        _, pooled_ci = ratio_unpaired(a, b, rng, n_boot=N_BOOT)  # every invocation independent
        within += h.significant
        pooled += pooled_ci is not None and not pooled_ci[0] <= 1.0 <= pooled_ci[1]
    within_rate, pooled_rate = within / SIMULATIONS, pooled / SIMULATIONS
    print(f"A/A false-positive rate at 95%: within node {within_rate:.3f}, naive pooled {pooled_rate:.3f}")
    # 300 simulations: the binomial SD at 5% is 1.3 points; allow the percentile interval's small excess.
    assert within_rate <= 0.10
    assert pooled_rate >= 0.2


def test_the_node_with_a_systematic_offset_is_named() -> None:
    rng = np.random.default_rng(7)
    executor = NodeOffsetExecutor(seed=1)
    levels = {node: np.array([executor.run_on(node) for _ in range(BLOCKS_PER_NODE)]) for node in NODES}
    levels["node-c"] = np.array([executor.run_on("node-a") for _ in range(BLOCKS_PER_NODE)])
    offsets = {o.node: o for o in node_offsets(levels, rng, n_boot=N_BOOT)}
    assert offsets["node-b"].systematic and offsets["node-b"].ratio_to_others > 1.1
    assert not offsets["node-c"].systematic


def test_one_node_reduces_to_the_block_bootstrap_and_covers_a_real_difference() -> None:
    rng = np.random.default_rng(3)
    cell = np.full(10, 1.2) * rng.lognormal(0, 0.02, 10)
    base = np.ones(10) * rng.lognormal(0, 0.02, 10)
    h = hierarchical_ratio([NodeBlocks("only", cell, base)], rng, n_boot=N_BOOT)
    assert h.n_nodes == 1 and h.significant and h.ci[0] < 1.2 < h.ci[1]
