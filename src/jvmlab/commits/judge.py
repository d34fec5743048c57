"""One revision against another inside one experiment: the comparison :func:`compare_cells` makes
(paired by block), read into a small record the drivers decide on.

The drivers decide as the CI gate does (:mod:`jvmlab.analyze.gate` judges the comparison: its
significance and its 95% CI): the revisions are interleaved block by block, so a busy machine
slows both alike. What the one interference model says ``report`` would do (the run-queue delay
could explain the difference, ``delay_s``; or a busy block or a drift could have produced a
difference up to ``margin``) is kept with the verdict and said beside it."""

from __future__ import annotations

from dataclasses import dataclass, replace

from jvmlab.analyze.model import Comparison
from jvmlab.errors import UserError
from jvmlab.metrics import RUN_DELAY, never_negative
from jvmlab.plan.matrix import REVISION_FACTOR
from jvmlab.plan.prepare import Plan
from jvmlab.results import ExperimentResults, compare_cells
from jvmlab.results.compare import RUN_DELAY_COVARIATE, VerdictKind, verdict_kind


@dataclass(frozen=True)
class PairVerdict:
    """``cell`` against ``baseline`` on one metric (None fields: too few values)."""

    kind: VerdictKind | None
    comparison: Comparison | None
    margin: float | None = None  # the interference margin the comparison does not clear (None: clears it)
    # the run-queue delay per run when, at equal delay (the one model), the comparison is not called
    delay_s: float | None = None

    @property
    def ratio(self) -> float | None:
        return self.comparison.ratio if self.comparison is not None else None

    @property
    def ci95(self) -> tuple[float, float] | None:
        c = self.comparison
        return (float(c.ci95[0]), float(c.ci95[1])) if c is not None and c.ci95 is not None else None


def compare_pair(results: ExperimentResults, cell: str, baseline: str, metric: str,
                 alpha: float | None = None) -> PairVerdict:
    """``cell`` against ``baseline`` (cell names) on ``metric``; ``alpha``: significant only
    below it (a driver that looks more than once spends 5% over its looks), else at 5%."""
    a, b = results.cell_named(baseline), results.cell_named(cell)
    if a is None or b is None:
        return PairVerdict(None, None)
    metrics = results.metrics
    compared = compare_cells({baseline: results.values(a, metric), cell: results.values(b, metric)}, baseline,
                             metric, lower_is_better=metrics.get(metric).lower_is_better,
                             seed=results.experiment.seed, busy=results.busy_blocks,
                             n_blocks=results.measured_blocks(), positive=never_negative(metric, metrics),
                             delays={baseline: results.values(a, RUN_DELAY), cell: results.values(b, RUN_DELAY)}
                             if results.busy_blocks else None).of(cell)
    if compared is None:
        return PairVerdict(None, None)
    d = compared.disturbance
    c = compared.comparison
    if alpha is not None:
        c = replace(c, significant=c.significant and c.p_adjusted is not None and c.p_adjusted < alpha)
    kind = verdict_kind(c, metrics.get(metric).lower_is_better)  # the gate's reading
    if d is not None and d.vetoes and d.method == RUN_DELAY_COVARIATE:  # said of a difference, not of none
        return PairVerdict(kind, c, None, d.delay_s if c.significant else None)
    return PairVerdict(kind, c, d.margin if d is not None and d.vetoes else None)


def revision_cells(plan: Plan) -> dict[str, str]:
    """Each revision level -> its one cell's name; a spec with more cells per revision (other
    JVMs or factors) is refused in one line (bisect follows one configuration)."""
    out: dict[str, str] = {}
    for pc in plan.cells:
        level = pc.cell.level(REVISION_FACTOR)
        if level is None or level in out:
            raise UserError(f"bisect follows one configuration: give the spec one JVM and no factors (it makes "
                            f"{len(plan.cells)} cells for the revisions of a step)")
        out[level] = pc.cell.name
    return out


def measured_invocations(results: ExperimentResults) -> int:
    """The experiment's measured invocations (warm-ups left out, failures counted)."""
    return sum(1 for inv in results.invocations if not inv.warmup)
