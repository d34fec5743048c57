"""Factorial effects on the log scale: main effects and two-way interactions.

Model: ``log mean(cell)`` is additive in the factors when they act independently
(multiplicative effects are how JVM settings combine: "G1 is 3% slower" holds whatever
the heap size, if there is no interaction). So, on log means (the analysis of a factorial
experiment, Box, Hunter & Hunter 2005, *Statistics for Experimenters*, ch. 5, on the log
scale):

* main effect of ``level`` of factor F against its ``reference``: the mean over the
  combinations of the other factors of ``log m(level, rest) - log m(reference, rest)``,
  reported as a ratio (a geometric mean of the per-combination ratios);
* interaction of F (L vs R) with G (L2 vs R2): the ratio of ratios
  ``[m(L, L2)/m(R, L2)] / [m(L, R2)/m(R, R2)]``, averaged likewise over the remaining
  factors. 1.0 means "no interaction"; 1.10 means L costs 10% more when G is at L2.

Only combinations where all needed cells were measured (positive mean) take part, so
incomplete matrices still give effects over the part that is complete.

Intervals: percentile bootstrap of the whole computation, widened for small samples by
Hesterberg's expanded level (see :func:`jvmlab.analyze.bootstrap.expanded_level`). The
cells are resampled independently, or by whole blocks when all of them were run in the
same blocks (keeping each block's values together, as in :mod:`jvmlab.analyze.compare`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations

import numpy as np

from jvmlab.analyze.bootstrap import (
    DEFAULT_RESAMPLES,
    FloatArray,
    expanded_level,
    percentile_interval,
    resample_means,
)
from jvmlab.analyze.compare import MIN_PAIRED_BLOCKS
from jvmlab.analyze.model import Clean, Effect
from jvmlab.analyze.smallsample import MEAN_BCA_FROM_N, PERCENTILE, PERCENTILE_SMALL_N

Levels = tuple[str, ...]


def _design(cells: Mapping[str, Clean], factors: Mapping[str, Mapping[str, str]],
            baseline: str | None) -> tuple[list[str], dict[str, list[str]], dict[Levels, str]]:
    """Factor names, their levels (reference first) and the cell of each level tuple."""
    names = sorted({f for levels in factors.values() for f in levels})
    levels: dict[str, list[str]] = {f: [] for f in names}
    grid: dict[Levels, str] = {}
    for cell, assignment in factors.items():
        data = cells.get(cell)
        if data is None or data.values.size == 0 or set(assignment) != set(names):
            continue
        key = tuple(str(assignment[f]) for f in names)
        grid.setdefault(key, cell)
        for f, lv in zip(names, key, strict=True):
            if lv not in levels[f]:
                levels[f].append(lv)
    if baseline in grid.values():
        base_key = next(k for k, c in grid.items() if c == baseline)
        for f, lv in zip(names, base_key, strict=True):
            levels[f].remove(lv)
            levels[f].insert(0, lv)
    return names, levels, grid


def _log_means(cells: Sequence[Clean], rng: np.random.Generator,
               n_boot: int) -> tuple[FloatArray, FloatArray, int]:
    """Point log means (C,), bootstrap log means (B, C) and the effective sample size."""
    common = _common_blocks(cells)
    with np.errstate(divide="ignore", invalid="ignore"):
        if common is None:
            point = np.log([c.values.mean() for c in cells])
            boot = np.log(np.column_stack([resample_means(c.values, rng, n_boot) for c in cells]))
            return point, boot, min(c.values.size for c in cells)
        idx = rng.integers(0, common.size, size=(n_boot, common.size))
        point_cols, boot_cols = [], []
        for c in cells:
            assert c.blocks is not None
            keep = np.isin(c.blocks, common)
            pos = np.searchsorted(common, c.blocks[keep])
            sums = np.bincount(pos, weights=c.values[keep], minlength=common.size)
            counts = np.bincount(pos, minlength=common.size).astype(float)
            point_cols.append(np.log(sums.sum() / counts.sum()))
            boot_cols.append(np.log(sums[idx].sum(axis=1) / counts[idx].sum(axis=1)))
        return np.array(point_cols), np.column_stack(boot_cols), int(common.size)


def _common_blocks(cells: Sequence[Clean]) -> np.ndarray | None:
    """Blocks shared by all cells, when pairing by block is possible and keeps the data."""
    blocks = [c.blocks for c in cells if c.blocks is not None]
    if len(blocks) < len(cells):
        return None
    common = np.unique(blocks[0])
    for b in blocks[1:]:
        common = np.intersect1d(common, b)
    if common.size < MIN_PAIRED_BLOCKS:
        return None
    for c, b in zip(cells, blocks, strict=True):
        if np.isin(b, common).sum() * 2 < c.values.size:
            return None
    return common


def _estimate(point: FloatArray, boot: FloatArray, terms: list[list[tuple[int, float]]],
              level: float) -> tuple[float | None, tuple[float, float] | None]:
    """exp(mean over combinations of sum(sign * log mean)) and its percentile interval."""
    good = [t for t in terms if all(np.isfinite(point[i]) for i, _ in t)]
    if not good:
        return None, None
    pt = np.mean([sum(float(s * point[i]) for i, s in t) for t in good])
    bt = np.mean([np.sum([s * boot[:, i] for i, s in t], axis=0) for t in good], axis=0)
    ci = percentile_interval(np.exp(bt), level)
    return float(np.exp(pt)), ci


def factorial_effects(cells: Mapping[str, Clean], factors: Mapping[str, Mapping[str, str]],
                      baseline: str | None, rng: np.random.Generator,
                      n_boot: int = DEFAULT_RESAMPLES) -> tuple[Effect, ...]:
    """Main effects of every non-reference level and all two-way interactions.

    ``factors`` maps cell name -> {factor: level}. Needs two or more factors with two or
    more levels each (else returns nothing). The reference level of a factor is the
    baseline cell's level, or the first level met.
    """
    all_names, levels, grid = _design(cells, factors, baseline)
    names = [f for f in all_names if len(levels[f]) >= 2]
    if len(names) < 2 or len(grid) < 3:
        return ()
    order = sorted(set(grid.values()))
    col = {cell: i for i, cell in enumerate(order)}
    point, boot, n_eff = _log_means([cells[c] for c in order], rng, n_boot)
    level = expanded_level(n_eff)
    kind = PERCENTILE if n_eff >= MEAN_BCA_FROM_N else PERCENTILE_SMALL_N
    pos = {f: all_names.index(f) for f in names}

    def cell_at(fixed: dict[str, str], rest: Levels) -> int | None:
        key = tuple(fixed.get(f, lv) for f, lv in zip(all_names, rest, strict=True))
        return col[grid[key]] if key in grid else None

    effects: list[Effect] = []
    for f in names:
        ref = levels[f][0]
        for lv in levels[f][1:]:
            terms = _terms(grid, cell_at, [(f, lv, ref)], pos)
            ratio, ci = _estimate(point, boot, terms, level)
            effects.append(Effect(f, lv, ref, ratio, ci, "main", n_combinations=len(terms),
                                  ci_kind=kind if ci else None))
    for f, g in combinations(names, 2):
        for lv in levels[f][1:]:
            for lv2 in levels[g][1:]:
                terms = _terms(grid, cell_at, [(f, lv, levels[f][0]), (g, lv2, levels[g][0])], pos)
                ratio, ci = _estimate(point, boot, terms, level)
                effects.append(Effect(f, lv, levels[f][0], ratio, ci, "interaction",
                                      g, lv2, levels[g][0], len(terms), ci_kind=kind if ci else None))
    return tuple(effects)


def _terms(grid: Mapping[Levels, str], cell_at: Callable[[dict[str, str], Levels], int | None],
           contrasts: list[tuple[str, str, str]],
           pos: Mapping[str, int]) -> list[list[tuple[int, float]]]:
    """Signed cell columns of the contrast for every combination of the other factors.

    One contrast (main effect): +L -R. Two (interaction): +LL2 -RL2 -LR2 +RR2.
    """
    seen: set[Levels] = set()
    terms: list[list[tuple[int, float]]] = []
    for key in grid:
        rest = tuple("*" if any(pos[f] == i for f, _, _ in contrasts) else lv
                     for i, lv in enumerate(key))
        if rest in seen:
            continue
        seen.add(rest)
        signed: list[tuple[int, float]] = []
        for choice in range(2 ** len(contrasts)):
            fixed: dict[str, str] = {}
            sign = 1.0
            for j, (f, lv, ref) in enumerate(contrasts):
                use_ref = (choice >> j) & 1
                fixed[f] = ref if use_ref else lv
                sign *= -1.0 if use_ref else 1.0
            i = cell_at(fixed, key)
            if i is None:
                break
            signed.append((i, sign))
        else:
            terms.append(signed)
    return terms
