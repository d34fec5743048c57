"""Profiles as collapsed stacks: aggregation over invocations, per-frame shares, trees for
flame graphs and the difference of a cell against the baseline. Pure functions over
``{"outer;...;leaf": weight}`` dicts (weights are sample counts or allocated bytes), no I/O."""

from jvmlab.profile.diff import FrameChange, ProfileDiff, diff_profiles, diff_tree
from jvmlab.profile.stacks import FlameNode, flame_tree, frame_shares, merge_stacks, top_frames

__all__ = ["FlameNode", "FrameChange", "ProfileDiff", "diff_profiles", "diff_tree", "flame_tree", "frame_shares",
           "merge_stacks", "top_frames"]
