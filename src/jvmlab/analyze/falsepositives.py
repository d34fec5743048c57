"""How often does the decision rule call identical settings different? (A/A checks)

An A/A experiment runs the same configuration under several labels; every "significant"
comparison in it is a false positive. Its family-wise rate (experiments with at least one
significant comparison / experiments) must sit at or below the nominal alpha, since Holm
controls exactly that rate.

Two ways to estimate it, both here:

* **on fresh runs** (``bench/aa_real.py``): count the experiments, and put a
  Clopper-Pearson (1934) exact binomial interval on the rate: 2 of 20 is 10% but its 95%
  interval is 1.2-32%, which cannot tell a 5% rule from a 10% one;
* **by re-randomisation of recorded data**: deal the values of each block to the labels
  again, in a random order, as the randomised-block design did, and run the same decision
  rule. Under "no difference" every such relabelling was as likely as the one that ran, so
  the share of relabelled experiments with a significant comparison is the rule's
  family-wise rate on that very noise (skew, drift, busy blocks and all). Many relabellings
  of a few real runs test the rule's implementation on real-shaped data far more tightly
  than a few more runs would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from jvmlab.analyze.compare import DEFAULT_PERMUTATIONS
from jvmlab.analyze.model import CellData, Interval
from jvmlab.analyze.pipeline import analyze_metric

NOMINAL = 0.05
PASS, UNDECIDED, FAIL = "PASS", "UNDECIDED", "FAIL"

Decide = Callable[[Mapping[str, CellData], int], bool]  # (cells, seed) -> any significant comparison?


@dataclass(frozen=True)
class Rate:
    """``hits`` of ``trials`` (false positives), with the exact 95% binomial interval."""

    hits: int
    trials: int

    @property
    def rate(self) -> float | None:
        return self.hits / self.trials if self.trials else None

    @property
    def ci95(self) -> Interval | None:
        return clopper_pearson(self.hits, self.trials)

    def verdict(self, nominal: float = NOMINAL) -> str:
        """PASS when the point estimate is at or below ``nominal``; FAIL only when the whole
        interval lies above it; UNDECIDED in between (too few trials to say)."""
        if self.rate is None or self.ci95 is None:
            return UNDECIDED
        if self.rate <= nominal:
            return PASS
        return FAIL if self.ci95[0] > nominal else UNDECIDED

    def straddles(self, nominal: float = NOMINAL) -> bool:
        """The 95% interval holds rates on both sides of ``nominal``: the data cannot tell."""
        return self.ci95 is not None and self.ci95[0] <= nominal < self.ci95[1]

    def describe(self, nominal: float = NOMINAL) -> str:
        """``2/40 = 5.0% (95% CI 0.6%-16.9%): PASS by the point estimate; UNDECIDED by the
        interval, which straddles 5%``."""
        if self.rate is None or self.ci95 is None:
            return "no trials"
        low, high = self.ci95
        verdict = self.verdict(nominal)
        text = f"{self.hits}/{self.trials} = {self.rate:.1%} (95% CI {low:.1%}-{high:.1%}): {verdict}"
        if verdict == PASS and self.straddles(nominal):
            text += (f" by the point estimate; {UNDECIDED} by the interval, which straddles {nominal:.0%} "
                     f"(more experiments narrow it)")
        elif verdict == UNDECIDED:
            text += f": the interval straddles {nominal:.0%} (more experiments narrow it)"
        return text


def clopper_pearson(hits: int, trials: int, level: float = 0.95) -> Interval | None:
    """Exact (conservative) binomial interval for ``hits / trials`` (None without trials)."""
    if trials <= 0:
        return None
    if not 0 <= hits <= trials:
        raise ValueError(f"{hits} hits of {trials} trials")
    from scipy.stats import beta  # simulations only: not at import time

    tail = (1.0 - level) / 2.0
    low = 0.0 if hits == 0 else float(beta.ppf(tail, hits, trials - hits + 1))
    high = 1.0 if hits == trials else float(beta.ppf(1.0 - tail, hits + 1, trials - hits))
    return (low, high)


def rerandomized(cells: Mapping[str, CellData], rng: np.random.Generator) -> dict[str, CellData]:
    """The same values and blocks, with the labels dealt again at random within each block.

    Within one block every value present is handed to a random one of the slots present
    (a uniform permutation per block, independent across blocks): what the randomised-block
    schedule did when it chose the run order. Values without a block are permuted across
    all cells (the unpaired design)."""
    names = list(cells)
    values = np.concatenate([np.asarray(cells[n].values, dtype=float) for n in names])
    sizes = [int(np.asarray(cells[n].values).size) for n in names]
    has_blocks = all(cells[n].blocks is not None for n in names)
    blocks = (np.concatenate([np.asarray(cells[n].blocks) for n in names]) if has_blocks
              else np.zeros(values.size, dtype=np.int64))
    dealt = values.copy()
    for b in np.unique(blocks):
        where = np.flatnonzero(blocks == b)
        dealt[where] = values[rng.permutation(where)]
    out: dict[str, CellData] = {}
    start = 0
    for name, size in zip(names, sizes, strict=True):
        part = slice(start, start + size)
        out[name] = CellData(dealt[part], blocks[part] if has_blocks else None)
        start += size
    return out


def any_significant(baseline: str, metric: str = "wall_s", n_boot: int = 200,
                    n_perm: int = DEFAULT_PERMUTATIONS) -> Decide:
    """The pipeline's decision rule: does :func:`analyze_metric` (exact/Monte-Carlo
    within-block permutation p, Holm across the comparisons) call any cell different from
    ``baseline``? The decision reads only the p-values, so a small ``n_boot`` (the CI's
    resamples) changes nothing but the time."""
    def decide(cells: Mapping[str, CellData], seed: int) -> bool:
        analysis = analyze_metric(cells, baseline, metric, seed=seed, n_boot=n_boot, n_perm=n_perm)
        return any(c.significant for c in analysis.comparisons)
    return decide


def rerandomized_rate(experiments: Sequence[Mapping[str, CellData]], rounds: int, seed: int,
                      decide: Decide) -> Rate:
    """Family-wise false-positive rate of ``decide`` over ``rounds`` relabellings of each
    recorded experiment (seeded: the same figures on every run)."""
    hits = trials = 0
    for e, cells in enumerate(experiments):
        rng = np.random.default_rng([seed, e])
        for r in range(rounds):
            hits += bool(decide(rerandomized(cells, rng), seed + 7919 * e + r))
            trials += 1
    return Rate(hits, trials)
