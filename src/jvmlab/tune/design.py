"""The search's first moves: one parameter changed at a time from the incumbent (coordinate search).

A tuner with a small budget affords a handful of races. Random proposals (TPE's start-up
trials) spend them on configurations that change everything at once, most of them far from
both the baseline and the optimum: on the real bench (hold under ``-Xmx48m``, 18 cells, 36
invocations for the search) the first picks were "Serial, 512m, pre-touched" and "Parallel,
48m, pre-touched", and only 1 of 5 seeds ended within 2% of the grid's best. One-factor moves
from the incumbent (every other level of each parameter, in the order the spec declares them;
a range's low, middle and high points) walk downhill on a surface where each parameter's
effect mostly adds up, and when a move is promoted the next moves start from it: the seeded
simulation of that bench (``tune/sim.py``: ``hold_*``) goes from 3 of 10 seeds within 2% of the
optimum to the figures in ``tests/tune/test_design.py``. When every move from the incumbent has
been tried, the sampler (TPE) proposes the rest, and its start-up trials include these moves.

The starting point is the baseline when its flags are a point of the space: each parameter's
level that adds nothing to the baseline's JVM (same identity, tune/identity.py: ``-XX:+UseG1GC``
is the default, ``-Xmx48m`` is already there, pre-touch off is nothing; a parameter none of
whose levels is the baseline's value is left out, and moves give it its middle level).
Otherwise the coordinate search waits for the first promoted candidate (whose values are known).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from jvmlab.tune.model import Config
from jvmlab.tune.space import Param, TuneConfig, value_text

RANGE_POINTS = 3  # a range's moves: its low, middle (geometric on a log scale) and high points


def levels(p: Param) -> list[Any]:
    """The values a one-factor move may give ``p``."""
    return p.grid(RANGE_POINTS) if p.kind in ("int", "size") else p.grid()


def baseline_values(config: TuneConfig, jvm: str, same: Callable[[Config], str]) -> dict[str, Any] | None:
    """The point of the space that makes the baseline's JVM (a parameter whose levels all change
    it left out), or None when the baseline is not one."""
    base = Config({}, jvm, config.baseline_flags)
    target = same(base)
    values: dict[str, Any] = {}
    for p in config.params:
        if not p.active(values):
            continue
        if p.kind == "jdk":
            if jvm not in p.choices:
                return None
            values[p.name] = jvm
            continue
        found = [v for v in levels(p) if same(Config(values, jvm, (*config.baseline_flags, *p.flags(v)))) == target]
        if found:  # else the baseline's value is none of the levels (G1's pause goal 200 ms, levels 20,
            values[p.name] = found[0]  # 100, 500): left out here, a move gives it its middle level
    point = Config(values, jvm, config.flags(values))
    return values if same(point) == target else None


def next_move(config: TuneConfig, center: dict[str, Any], tried: Collection[str],
              key: Callable[[dict[str, Any]], str]) -> dict[str, Any] | None:
    """The first one-factor move from ``center`` whose configuration (``key``: its identity) is
    not in ``tried``; None when every move has been tried. A parameter a move makes active takes
    its middle level."""
    for p in config.params:
        if p.name not in center:
            continue
        for v in levels(p):
            if value_text(v) == value_text(center[p.name]):
                continue
            values = _with(config, center, p.name, v)
            if key(values) not in tried:
                return values
    return None


def _with(config: TuneConfig, center: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for q in config.params:
        if not q.active(values):
            continue
        if q.name == name:
            values[q.name] = value
        elif q.name in center:
            values[q.name] = center[q.name]
        else:
            options = levels(q)
            values[q.name] = options[len(options) // 2]
    return values
