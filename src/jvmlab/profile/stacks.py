"""Collapsed stacks: merging, per-frame shares and a pruned tree for a flame graph.

A frame's *total* share is the weight of the stacks it appears in (once per stack, so
recursion is not counted twice) over all weight; its *self* share is the weight of the
stacks it is the leaf of. Shares, not counts, make cells with different run lengths or
sample counts comparable.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SEP = ";"


@dataclass(frozen=True)
class FlameNode:
    """One node of a flame graph: ``path`` is the frames from the root, joined by ";"."""

    path: str
    frame: str
    parent: str  # "" for a root
    weight: float
    share: float  # of the whole profile


def merge_stacks(profiles: Iterable[dict[str, float]]) -> dict[str, float]:
    """One profile from several (a cell's invocations): weights of equal stacks add up."""
    out: dict[str, float] = {}
    for profile in profiles:
        for stack, weight in profile.items():
            if weight > 0:
                out[stack] = out.get(stack, 0.0) + float(weight)
    return out


def frame_shares(stacks: dict[str, float]) -> dict[str, tuple[float, float]]:
    """frame -> (self share, total share)."""
    total = sum(stacks.values())
    if total <= 0:
        return {}
    self_w: dict[str, float] = {}
    total_w: dict[str, float] = {}
    for stack, weight in stacks.items():
        frames = stack.split(SEP)
        self_w[frames[-1]] = self_w.get(frames[-1], 0.0) + weight
        for frame in set(frames):
            total_w[frame] = total_w.get(frame, 0.0) + weight
    return {f: (self_w.get(f, 0.0) / total, w / total) for f, w in total_w.items()}


def path_weights(stacks: dict[str, float]) -> dict[str, float]:
    """Inclusive weight of every path prefix ("a", "a;b", "a;b;c" ...)."""
    out: dict[str, float] = {}
    for stack, weight in stacks.items():
        frames = stack.split(SEP)
        for i in range(1, len(frames) + 1):
            key = SEP.join(frames[:i])
            out[key] = out.get(key, 0.0) + weight
    return out


def flame_tree(stacks: dict[str, float], min_share: float = 0.002, max_nodes: int = 3000) -> list[FlameNode]:
    """Nodes of at least ``min_share`` of the profile, at most ``max_nodes`` (heaviest
    kept; a node is kept only with its parent), parents before children."""
    total = sum(stacks.values())
    if total <= 0:
        return []
    weights = path_weights(stacks)
    keep = sorted((p for p, w in weights.items() if w / total >= min_share), key=lambda p: (-weights[p], p))
    chosen: set[str] = set()
    for path in keep:
        parent = path.rpartition(SEP)[0]
        if (not parent or parent in chosen) and len(chosen) < max_nodes:
            chosen.add(path)
    ordered = sorted(chosen, key=lambda p: (p.count(SEP), -weights[p], p))
    return [FlameNode(p, p.rpartition(SEP)[2], p.rpartition(SEP)[0], weights[p], weights[p] / total)
            for p in ordered]
