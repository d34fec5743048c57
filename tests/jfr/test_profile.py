"""The profile package: merging, shares, flame trees and diffs (pure, seeded simulation)."""

from __future__ import annotations

import random

import pytest

from jvmlab.collect.jfr_parse import bounded, class_name, collapsed, iso_duration_s
from jvmlab.profile.diff import diff_profiles, diff_tree
from jvmlab.profile.stacks import flame_tree, frame_shares, merge_stacks


def _simulate(seed: int, n: int, weights: dict[str, float]) -> dict[str, float]:
    """n samples drawn from stacks with the given probabilities (a seeded sampler)."""
    rng = random.Random(seed)
    stacks, probs = list(weights), list(weights.values())
    out: dict[str, float] = {}
    for stack in rng.choices(stacks, probs, k=n):
        out[stack] = out.get(stack, 0.0) + 1
    return out


BASE = {"main;run;hot": 0.7, "main;run;warm": 0.2, "main;gc": 0.1}
EXTRA = {"main;run;hot": 0.45, "main;run;warm": 0.15, "main;run;extra;helper": 0.3, "main;gc": 0.1}


def test_merge_adds_equal_stacks_and_drops_empty_weights() -> None:
    assert merge_stacks([{"a;b": 2, "a": 1}, {"a;b": 3, "c": 0}]) == {"a;b": 5.0, "a": 1.0}


def test_shares_count_a_recursive_frame_once_per_stack() -> None:
    shares = frame_shares({"a;b;a": 1, "a;c": 3})
    assert shares["a"] == (0.25, 1.0)
    assert shares["c"] == (0.75, 0.75)


@pytest.mark.parametrize("seed", range(5))
def test_the_hot_method_is_on_top_of_a_simulated_profile(seed: int) -> None:
    profile = merge_stacks([_simulate(seed * 10 + i, 300, BASE) for i in range(3)])
    self_shares = {frame: shares[0] for frame, shares in frame_shares(profile).items()}
    assert max(self_shares, key=self_shares.__getitem__) == "hot"


@pytest.mark.parametrize("seed", range(5))
def test_the_extra_method_is_the_largest_growth(seed: int) -> None:
    base, cell = _simulate(seed, 2000, BASE), _simulate(seed + 100, 2000, EXTRA)
    diff = diff_profiles(base, cell, cell_name="x", baseline_name="b")
    assert diff.grew[0].frame in ("extra", "helper")  # both carry the whole new share
    assert {c.frame for c in diff.grew[:2]} == {"extra", "helper"}
    assert diff.grew[0].delta == pytest.approx(0.3, abs=0.05)
    assert diff.shrank[0].frame == "hot"
    assert "main" not in {c.frame for c in (*diff.grew, *diff.shrank)}  # on every stack: no change


def test_equal_profiles_have_no_changes() -> None:
    profile = {"a;b": 10.0, "a;c": 5.0}
    diff = diff_profiles(profile, dict(profile), cell_name="x", baseline_name="b")
    assert diff.grew == () and diff.shrank == ()
    assert all(v == 0 for v in diff_tree(profile, profile).values())


def test_flame_tree_keeps_parents_before_children_and_prunes_small_frames() -> None:
    nodes = flame_tree({"a;b": 990.0, "a;c": 9.0, "a;b;d": 1.0}, min_share=0.005)
    paths = [n.path for n in nodes]
    assert paths == ["a", "a;b", "a;c"]
    assert nodes[0].share == 1.0 and nodes[1].parent == "a"
    capped = flame_tree({f"r;f{i}": 1.0 for i in range(100)}, min_share=0, max_nodes=10)
    assert len(capped) == 10 and capped[0].path == "r"


def test_jfr_text_helpers() -> None:
    assert iso_duration_s("PT0.0029S") == pytest.approx(0.0029)
    assert iso_duration_s("PT1H2M3.5S") == pytest.approx(3723.5)
    assert iso_duration_s("garbage") is None
    assert class_name("a/B$$Lambda$42+0x00007f7dc806e598.1267032364") == "a.B$$Lambda"
    assert class_name("a/B$$Lambda/0x000071c4c8001234") == "a.B$$Lambda"
    frames = [{"method": {"type": {"name": "p/Leaf"}, "name": "m"}}, {"method": {"type": {"name": "p/Root"},
                                                                                   "name": "main"}}]
    assert collapsed({"frames": frames, "truncated": False}) == "p.Root.main;p.Leaf.m"
    assert collapsed({"frames": frames, "truncated": True}).startswith("[truncated];")
    assert collapsed(None) is None


def test_stored_stacks_are_bounded_and_keep_the_total() -> None:
    stacks = {f"main;f{i}": float(i + 1) for i in range(50)}
    kept = bounded(stacks, keep=10)
    assert len(kept) == 11 and kept["main;f49"] == 50.0 and "main;f0" not in kept
    assert sum(kept.values()) == sum(stacks.values())


def test_share_change_interval_covers_the_true_change_in_seeded_simulations() -> None:
    import numpy as np

    from jvmlab.profile.interval import share_change_interval

    covered = 0
    reps = 60
    for rep in range(reps):
        base = [_simulate(rep * 1000 + i, 200, BASE) for i in range(8)]
        cell = [_simulate(rep * 1000 + 500 + i, 200, EXTRA) for i in range(8)]
        interval = share_change_interval(base, cell, "extra", np.random.default_rng(rep), n_boot=500)
        assert interval is not None and interval[0] <= interval[1]
        covered += interval[0] <= 0.3 <= interval[1]
    assert covered / reps >= 0.88  # nominal 95% (expanded for n = 8); 60 seeded repetitions


def test_share_change_interval_needs_two_invocations_per_cell() -> None:
    import numpy as np

    from jvmlab.profile.interval import share_change_interval

    assert share_change_interval([{"a;b": 1.0}], [{"a;b": 1.0}, {"a": 1.0}], "b", np.random.default_rng(1)) is None
