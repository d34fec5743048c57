"""Matrix expansion: a pure function from a spec to the list of cells (no process started)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from jvmlab.errors import UserError, did_you_mean
from jvmlab.spec.model import Spec, check_cells

JVM_FACTOR = "jvm"
REVISION_FACTOR = "revision"  # the [revisions] factor (plan/revisions.py)


@dataclass(frozen=True)
class Cell:
    """One configuration: a JVM, one level of every factor, and the flags they add up to."""

    index: int
    jvm: str
    levels: tuple[tuple[str, str], ...]  # (factor, level), in the spec's factor order
    flags: tuple[str, ...]
    args: tuple[str, ...] = ()  # program arguments the levels add after the workload's
    env: tuple[tuple[str, str], ...] = ()  # environment variables the levels set
    prepare: tuple[str, ...] = ()  # archive preparations the levels ask for (``prepare = ...``)

    @property
    def name(self) -> str:
        parts = [self.jvm] + [f"{factor}={level}" for factor, level in self.levels]
        return " ".join(parts)

    def level(self, factor: str) -> str | None:
        if factor == JVM_FACTOR:
            return self.jvm
        return dict(self.levels).get(factor)

    def coordinates(self) -> dict[str, str]:
        """Every factor's level, the JVM included, as a mapping."""
        return {JVM_FACTOR: self.jvm, **dict(self.levels)}


def factor_levels(spec: Spec, revisions: Sequence[str] = ()) -> dict[str, list[str]]:
    """Every factor (JVM first, then the revisions that built, flag factors, then environment
    factors) and its levels."""
    factors: dict[str, list[str]] = {JVM_FACTOR: list(spec.jvms)}
    if revisions:
        factors[REVISION_FACTOR] = list(revisions)
    factors.update({name: list(levels) for name, levels in spec.factors.items()})
    env = spec.environment
    if env.jdk_location:
        factors["jdk_location"] = list(dict.fromkeys(env.jdk_location))
    if env.page_cache:
        factors["page_cache"] = list(dict.fromkeys(env.page_cache))
    if env.cpus:
        factors["cpus"] = list(dict.fromkeys(f"{c:g}" for c in env.cpus))
    if env.memory:
        factors["memory"] = list(dict.fromkeys(env.memory))
    return factors


def expand(spec: Spec, revisions: Sequence[str] = ()) -> list[Cell]:
    """JVMs x every factor, minus exclude rules, plus include rules, in a stable order
    (``revisions``: the levels of the ``revision`` factor, plan/revisions.py)."""
    factors = factor_levels(spec, revisions)
    check_cells({name: len(levels) for name, levels in factors.items()})
    for rule in spec.matrix.exclude + spec.matrix.include:
        _check_rule(rule, factors)
    combos: list[dict[str, str]] = []
    for values in itertools.product(*factors.values()):
        coords = dict(zip(factors, values, strict=True))
        if not any(_matches(rule, coords) for rule in spec.matrix.exclude):
            combos.append(coords)
    for rule in spec.matrix.include:
        missing = [f for f in factors if f not in rule]
        if missing:
            raise UserError(f"[matrix] include {rule} must name a level for every factor; "
                            f"missing: {', '.join(missing)}")
        if rule not in combos:
            combos.append(dict(rule))
    if not combos:
        raise UserError("the matrix is empty: the exclude rules remove every cell")
    return [_cell(i, coords, spec) for i, coords in enumerate(combos)]


def find_baseline(spec: Spec, cells: list[Cell], revisions: Sequence[str] = ()) -> Cell:
    """The named baseline cell, or the first cell when none is named."""
    wanted = spec.matrix.baseline
    if wanted is None:
        return cells[0]
    if isinstance(wanted, str):
        for cell in cells:
            if cell.name == wanted:
                return cell
        raise UserError(f"[matrix] baseline {wanted!r} is not a cell{did_you_mean(wanted, [c.name for c in cells])}")
    _check_rule(wanted, factor_levels(spec, revisions))
    found = [c for c in cells if _matches(wanted, c.coordinates())]
    if len(found) != 1:
        raise UserError(f"[matrix] baseline {wanted} matches {len(found)} cells; name levels until it matches one")
    return found[0]


def _cell(index: int, coords: dict[str, str], spec: Spec) -> Cell:
    levels = tuple((f, coords[f]) for f in coords if f != JVM_FACTOR)
    flags: list[str] = list(spec.workload.jvm_args)  # common to every cell: not in its name
    args: list[str] = []
    env: dict[str, str] = {}
    prepare: list[str] = []
    for factor, level in levels:
        spec_level = spec.factors.get(factor, {}).get(level)
        if spec_level is not None:
            flags.extend(spec_level.flags)
            args.extend(spec_level.args)
            env.update(spec_level.env)
            prepare.extend([spec_level.prepare] if spec_level.prepare else [])
    return Cell(index=index, jvm=coords[JVM_FACTOR], levels=levels, flags=tuple(flags), args=tuple(args),
                env=tuple(sorted(env.items())), prepare=tuple(prepare))


def _matches(rule: dict[str, str], coords: dict[str, str]) -> bool:
    return all(coords.get(factor) == level for factor, level in rule.items())


def _check_rule(rule: dict[str, str], factors: dict[str, list[str]]) -> None:
    """A rule naming a factor or level that does not exist is a typo, not a no-op."""
    for factor, level in rule.items():
        if factor not in factors:
            raise UserError(f"[matrix] rule {rule} names unknown factor {factor!r}{did_you_mean(factor, factors)}")
        if level not in factors[factor]:
            raise UserError(f"[matrix] rule {rule} names unknown level {level!r} of {factor!r}"
                            f"{did_you_mean(level, factors[factor])}")
