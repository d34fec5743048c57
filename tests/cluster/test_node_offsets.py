"""Calibration at few blocks per node (seeded simulations; rates printed beside the old method's).

* Node offsets: with 3 blocks per node and 1-3% noise a node with no offset must be marked
  "systematic offset" in at most about 5% of runs (any node of the run), while a node 15% off
  is still found. The old interval (blocks bootstrapped within each node) marked one in 17-50%.
* The within-node verdict (hierarchical ratio) keeps its A/A false-positive rate near 5% at
  3 blocks per node, where the percentile form gave 14-24% at one or two nodes.
"""

from __future__ import annotations

import numpy as np
import pytest

from jvmlab.analyze.bootstrap import percentile_interval
from jvmlab.analyze.hierarchical import NodeBlocks, hierarchical_ratio, node_offsets

BLOCKS = 3
RUNS = 400
N_BOOT = 1000


def _quiet_levels(rng: np.random.Generator, nodes: int, cv: float) -> dict[str, np.ndarray]:
    return {f"node-{i}": rng.lognormal(0.0, cv, BLOCKS) for i in range(nodes)}


def _block_bootstrap_marks(levels: dict[str, np.ndarray], rng: np.random.Generator) -> bool:
    """The interval this replaced: blocks resampled within each node, percentile 95%, median node."""
    names = list(levels)
    boot = np.stack([levels[n][rng.integers(0, BLOCKS, size=(N_BOOT, BLOCKS))].mean(axis=1) for n in names], axis=1)
    ref, boot_ref = np.median([levels[n].mean() for n in names]), np.median(boot, axis=1)
    for i, n in enumerate(names):
        ci = percentile_interval(boot[:, i] / boot_ref)
        if ci is not None and not ci[0] <= 1.0 <= ci[1] and abs(levels[n].mean() / ref - 1) >= 0.01:
            return True
    return False


@pytest.mark.parametrize("nodes", [2, 3, 4, 6])
def test_a_quiet_node_is_rarely_marked_at_three_blocks(nodes: int) -> None:
    rng = np.random.default_rng(1000 + nodes)
    marked = old = 0
    for run in range(RUNS):
        levels = _quiet_levels(rng, nodes, cv=(0.01, 0.02, 0.03)[run % 3])
        marked += any(o.systematic for o in node_offsets(levels, rng, n_boot=N_BOOT))
        old += _block_bootstrap_marks(levels, rng)
    rate, old_rate = marked / RUNS, old / RUNS
    print(f"{nodes} nodes x {BLOCKS} blocks, 1-3% noise: a quiet node marked in {rate:.3f} of runs "
          f"(block bootstrap before: {old_rate:.3f})")
    assert rate <= 0.06, "binomial SD at 5% over 400 runs is 1.1 points"
    assert old_rate >= 0.09, "the simulation does show the old interval's excess"


def test_a_node_15_percent_off_is_still_found_at_three_blocks() -> None:
    rng = np.random.default_rng(77)
    found = others = 0
    for _ in range(200):
        levels = _quiet_levels(rng, 4, cv=0.02)
        levels["node-0"] = levels["node-0"] * 1.15
        marks = {o.node: o.systematic for o in node_offsets(levels, rng, n_boot=N_BOOT)}
        found += marks["node-0"]
        others += any(marks[n] for n in levels if n != "node-0")
    print(f"4 nodes x 3 blocks, 2% noise, one node +15%: found {found / 200:.3f}, "
          f"a normal node marked {others / 200:.3f}")
    assert found / 200 >= 0.9 and others / 200 <= 0.08


def test_offsets_are_not_judged_without_two_blocks_on_two_nodes() -> None:
    rng = np.random.default_rng(1)
    one_block = node_offsets({"a": np.array([1.0]), "b": np.array([1.2])}, rng)
    assert all(o.ci is None and not o.systematic for o in one_block)


@pytest.mark.parametrize("nodes", [1, 2, 3, 4])
def test_the_within_node_verdict_keeps_its_rate_at_three_blocks_per_node(nodes: int) -> None:
    """A/A: cell and baseline the same, every node with its own level (+15% steps), 3% noise."""
    rng = np.random.default_rng(2000 + nodes)
    false = 0
    for _ in range(RUNS):
        groups = [NodeBlocks(f"n{i}", (1 + 0.15 * i) * rng.lognormal(0, 0.03, BLOCKS),
                             (1 + 0.15 * i) * rng.lognormal(0, 0.03, BLOCKS)) for i in range(nodes)]
        h = hierarchical_ratio(groups, rng, n_boot=N_BOOT)
        assert h is not None and h.p_value is not None and (h.p_value < 0.05) == h.significant
        false += h.significant
    print(f"A/A within node, {nodes} node(s) x {BLOCKS} blocks: false-positive rate {false / RUNS:.3f}")
    assert false / RUNS <= 0.075
