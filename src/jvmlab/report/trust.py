"""When a number must not be read at face value: small samples, heavy tails and a disturbed machine.

* **Small samples.** Below the n at which the bootstrap interval is trustworthy (found
  by the seeded coverage simulation, :mod:`jvmlab.analyze.smallsample`) the statistics
  show a wider t-based interval marked ``t-small-n``; this module turns those marks into
  one warning per experiment, with the figures, so every output (terminal, JSON, HTML)
  says it.
* **Heavy tails.** A cell with a value far out (:mod:`jvmlab.analyze.tails`) keeps its BCa
  interval of the mean, marked ``bca-heavy-tail``; one warning names those cells.
* **Interference.** A significant difference measured while the cell or its baseline
  drifted across blocks (Spearman p < 0.01), or while other processes were busy in at
  least a quarter of the blocks, is not called a difference: the verdict says what
  disturbed the run instead (:func:`jvmlab.report.verdicts.verdict`). Randomised blocks
  keep a comparison fair against slow, even drift, but a real A/A run on a busy machine
  showed that the occasional false call comes exactly from such runs.
"""

from __future__ import annotations

from jvmlab.analyze.model import MetricAnalysis
from jvmlab.analyze.smallsample import MEAN_BCA_FROM_N, PERCENTILE_SMALL_N, RATIO_BCA_FROM_N, T_SMALL_N
from jvmlab.analyze.tails import BCA_HEAVY_TAIL, HEAVY_TAIL_ROBUST_SDS
from jvmlab.model import hazards as hz

SMALL_SAMPLE = "small-sample"
HEAVY_TAIL = "heavy-tail"


def small_sample_hazards(analysis: MetricAnalysis) -> tuple[hz.Hazard, ...]:
    """One warning naming the cells (and comparisons) whose intervals are small-sample t ones."""
    cells = sorted(name for name, st in analysis.stats.items() if st.mean_ci_kind == T_SMALL_N)
    comps = sorted(c.cell for c in analysis.comparisons if c.ci_kind == T_SMALL_N)
    effects = any(e.ci_kind == PERCENTILE_SMALL_N for e in analysis.effects)
    if not cells and not comps and not effects:
        return ()
    n = min([analysis.stats[c].n for c in cells] or [min(c.n_cell, c.n_baseline) for c in analysis.comparisons]
            or [st.n for st in analysis.stats.values()])
    return (hz.Hazard(
        SMALL_SAMPLE,
        f"only {n} invocation(s) in {len(cells) or len(comps)} cell(s): below {MEAN_BCA_FROM_N} per cell a "
        f"bootstrap interval of the mean covers the truth only 50-90% of the time (about 75% at n=3; "
        f"{RATIO_BCA_FROM_N} for a ratio), so these 95% CIs are wider Student-t intervals, marked "
        f"t-small-n; they are approximate" + ("; factorial effect intervals are marked too" if effects else ""),
        f"run at least {MEAN_BCA_FROM_N} invocations per cell (30 for skewed timings) or use --until"),)


def heavy_tail_hazards(analysis: MetricAnalysis) -> tuple[hz.Hazard, ...]:
    """One warning naming the cells whose mean interval is a BCa of heavy-tailed values."""
    cells = sorted(name for name, st in analysis.stats.items() if st.mean_ci_kind == BCA_HEAVY_TAIL)
    if not cells:
        return ()
    return (hz.Hazard(
        HEAVY_TAIL,
        f"{analysis.metric}: heavy tails in {', '.join(cells)} (a value more than {HEAVY_TAIL_ROBUST_SDS:g} "
        f"robust SDs from the median): the bootstrap interval of the mean, marked bca-heavy-tail, covered the "
        f"true mean only 50-90% of the time on such data in simulation; comparisons with a baseline use the "
        f"sign-flip test and its inverted interval, which hold their level",
        "look at the slow invocations (outliers, GC log) before trusting a mean; more invocations narrow it"),)
