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

Combining (issue 45): good single changes often add up, so the tuner puts them together, but
only changes measured against the same incumbent (a one-factor move's ratio is paired with it):
a level's mean over trials raced under different incumbents, at different blocks, mixes their
conditions. When two or more moves from the incumbent each improve on it (on a real web app an
AOT cache alone 0.63x, C1 alone 0.45x), their combination is raced before the weaker moves
(``promising``); a promotion keeps the moves measured against the incumbent it replaced for
the parameters it did not change. A combination the budget left unraced is named in the summary.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jvmlab.tune.model import Config, Trial
from jvmlab.tune.space import Param, TuneConfig, value_text

RANGE_POINTS = 3  # a range's moves: its low, middle (geometric on a log scale) and high points
# A move "improves" when its paired ratio to the incumbent is at least this much better (2%: the
# noise of a short race is larger than 1%; the moves worth combining are far beyond it).
IMPROVES = 0.98


@dataclass(frozen=True)
class Effect:
    """One parameter changed from an incumbent, raced against it: the paired ratio (first
    objective, candidate / incumbent) and the values the move ran with."""

    param: str
    values: dict[str, Any]
    ratio: float
    trial: int  # the trial's number (0-based)

    def words(self) -> str:
        return f"{self.param}={value_text(self.values[self.param])} {self.ratio:.2f}x"


def one_factor_effects(config: TuneConfig, center: dict[str, Any], against: str,
                       trials: Sequence[Trial]) -> list[Effect]:
    """The trials raced against the incumbent ``against`` (its identity) that changed one
    parameter of ``center`` (a parameter a move makes active does not count as a change)."""
    out = []
    for t in trials:
        if t.against != against or t.ratio is None or t.state == "infeasible":
            continue
        changed = [p.name for p in config.params if p.name in center
                   and value_text(t.config.values.get(p.name)) != value_text(center[p.name])]
        if len(changed) == 1:
            out.append(Effect(changed[0], dict(t.config.values), t.ratio, t.number))
    return out


def promising(config: TuneConfig, center: dict[str, Any], effects: Sequence[Effect],
              minimize: bool) -> tuple[dict[str, Any], tuple[Effect, ...]] | None:
    """The combination of the best improving move of each parameter (two or more parameters),
    with the moves it puts together; None when fewer than two parameters improve."""
    best: dict[str, Effect] = {}
    for e in effects:
        gain = e.ratio if minimize else 1.0 / e.ratio if e.ratio > 0 else float("inf")
        if gain > IMPROVES:
            continue
        if e.param not in best or (e.ratio < best[e.param].ratio if minimize else e.ratio > best[e.param].ratio):
            best[e.param] = e
    if len(best) < 2:
        return None
    # a parameter made active by a move: the value that move ran with
    values = _with(config, center, {name: e.values[name] for name, e in best.items()},
                   ChainMap(*(e.values for e in best.values())))
    return values, tuple(sorted(best.values(), key=lambda e: e.trial))


def _improving(effects: Sequence[Effect], minimize: bool) -> list[Effect]:
    """The moves at least 2% better than their incumbent, best first."""
    gains = [(e.ratio if minimize else 1.0 / e.ratio if e.ratio > 0 else float("inf"), e) for e in effects]
    return [e for gain, e in sorted(gains, key=lambda ge: ge[0]) if gain <= IMPROVES]


def carried_effects(config: TuneConfig, center: dict[str, Any], against: str, trials: Sequence[Trial],
                    carried: Sequence[Effect], promoted: dict[str, Any]) -> list[Effect]:
    """A promotion from ``center`` to ``promoted``: the moves measured against the incumbent it
    replaces (and those carried before) of the parameters the promotion did not change."""
    changed = {name for name in center if value_text(promoted.get(name)) != value_text(center[name])}
    effects = [*one_factor_effects(config, center, against, trials), *carried]
    return [e for e in effects if e.param not in changed
            and value_text(e.values[e.param]) != value_text(promoted.get(e.param))]


def _candidates(config: TuneConfig, center: dict[str, Any], against: str, trials: Sequence[Trial],
                carried: Sequence[Effect], minimize: bool) -> Iterator[tuple[dict[str, Any], str, str]]:
    """(values, origin, words) of what should be raced before the plain moves, best first: the
    improving moves from the incumbent put together, then each move that improved on an
    earlier incumbent, made from this one."""
    found = promising(config, center, one_factor_effects(config, center, against, trials), minimize)
    if found is not None:
        yield found[0], "combined", combination_words(config, found[0], found[1])
    for e in _improving(carried, minimize):
        values = _with(config, center, {e.param: e.values[e.param]})
        yield values, "coordinate", (f"{' '.join(config.flags(values)) or '(JDK defaults)'} (the incumbent with "
                                     f"{e.param}={value_text(e.values[e.param])}, {e.ratio:.2f}x an earlier "
                                     f"incumbent alone)")


def first_move(config: TuneConfig, center: dict[str, Any], against: str, trials: Sequence[Trial],
               carried: Sequence[Effect], tried: Collection[str], key: Callable[[dict[str, Any]], str],
               minimize: bool) -> tuple[dict[str, Any], str] | None:
    """What the coordinate search races before its next plain move: the improving moves from the
    incumbent put together ("combined"), else a move that improved on an earlier incumbent
    ("coordinate": one parameter changed from this one); None when neither is left untried."""
    return next(((values, origin) for values, origin, _ in
                 _candidates(config, center, against, trials, carried, minimize) if key(values) not in tried), None)


def untried_combinations(config: TuneConfig, center: dict[str, Any], against: str, trials: Sequence[Trial],
                         carried: Sequence[Effect], tried: Collection[str], key: Callable[[dict[str, Any]], str],
                         minimize: bool) -> list[str]:
    """The promising combinations the search ended before racing, in words (the summary's)."""
    return [words for values, _, words in _candidates(config, center, against, trials, carried, minimize)
            if key(values) not in tried]


def combination_words(config: TuneConfig, values: dict[str, Any], moves: Sequence[Effect]) -> str:
    """``-XX:TieredStopAtLevel=1 ... (each alone against the incumbent: jit=c1 0.45x, aot=on 0.63x)``."""
    flags = " ".join(config.flags(values)) or "(JDK defaults)"
    return f"{flags} (each alone against the incumbent: {', '.join(e.words() for e in moves)})"


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
            values = _with(config, center, {p.name: v})
            if key(values) not in tried:
                return values
    return None


def _with(config: TuneConfig, center: dict[str, Any], changed: dict[str, Any],
          made_active: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``center`` with the ``changed`` values; a parameter they make active takes its value in
    ``made_active``, else its middle level."""
    values: dict[str, Any] = {}
    for q in config.params:
        if not q.active(values):
            continue
        if q.name in changed:
            values[q.name] = changed[q.name]
        elif q.name in center:
            values[q.name] = center[q.name]
        elif made_active is not None and q.name in made_active:
            values[q.name] = made_active[q.name]
        else:
            options = levels(q)
            values[q.name] = options[len(options) // 2]
    return values
