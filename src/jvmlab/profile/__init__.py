"""Profiles as collapsed stacks: aggregation over invocations, per-frame shares, trees for
flame graphs and the difference of a cell against the baseline. Pure functions over
``{"outer;...;leaf": weight}`` dicts (weights are sample counts or allocated bytes), no I/O."""
