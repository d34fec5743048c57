"""One loaded experiment, analysed: the statistics of every cell and stored metric, and the
comparisons on the chosen metric (through :func:`compare_cells`), as typed records.

The report words this (:mod:`jvmlab.report.summary`); scenarios, tune and sizing read it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.describe import describe
from jvmlab.analyze.interference import CPU_METRIC, contention_moves
from jvmlab.analyze.model import CellStats, MetricAnalysis, clean
from jvmlab.analyze.pipeline import analyze_metric
from jvmlab.errors import UserError
from jvmlab.metrics import RUN_DELAY, never_negative
from jvmlab.model import hazards as hz
from jvmlab.model.stored import PROCESS_METRICS, StoredCell, StoredInvocation
from jvmlab.plan.metric_choice import DEFAULT_METRIC, MetricChoice, choose_metric
from jvmlab.results.compare import CellsComparison, Statistics, VerdictKind, compare_cells
from jvmlab.results.hazards import experiment_hazards
from jvmlab.results.node_verdicts import within_node_verdicts
from jvmlab.results.records import ExperimentResults

DESCRIBE_RESAMPLES = 1000


@dataclass(frozen=True)
class CellResult:
    """One cell: its counts, failures, statistics of every stored metric, marks."""

    cell: StoredCell
    n: int
    failures: int
    failure_reasons: dict[str, int]
    stats: dict[str, CellStats]  # metric -> stats over ok, measured invocations
    outliers: tuple[int, ...]  # invocation ids flagged on the compared metric
    not_in_effect: tuple[str, ...]  # details of flag-not-in-effect hazards
    ok_invocations: tuple[StoredInvocation, ...] = ()  # the values behind ``stats``

    @property
    def name(self) -> str:
        return self.cell.name


@dataclass(frozen=True)
class ExperimentAnalysis:
    """An experiment's results with the statistics run once, every number a number."""

    results: ExperimentResults
    metric: str
    metric_reason: str
    cells: tuple[CellResult, ...]
    comparison: CellsComparison
    hazards: tuple[hz.Hazard, ...]
    warmup_classes: dict[str, dict[str, int]] = field(default_factory=dict)  # cell -> class -> count

    @property
    def analysis(self) -> MetricAnalysis:
        return self.comparison.analysis

    @property
    def baseline(self) -> str | None:
        return self.results.baseline


def choose(results: ExperimentResults, given: str | None) -> MetricChoice:
    """The metric to compare; a recorded metric without values (a scenario's throughput
    when no run printed progress) falls back to wall_s, saying so. Unknown: one clear error."""
    choice = choose_metric(results.experiment.run_options, given)
    units = results.units
    if given is None and choice.metric not in PROCESS_METRICS and choice.metric not in units:
        choice = MetricChoice(DEFAULT_METRIC, f"{choice.reason}, but no invocation has a value of "
                                              f"{choice.metric}, so {DEFAULT_METRIC} instead")
    results.metrics.get(choice.metric)  # unknown metric: one clear error before any work
    if choice.metric not in PROCESS_METRICS and choice.metric not in units:
        stored = ", ".join(sorted(units)) or "none besides the process measures"
        raise UserError(f"experiment {results.experiment.id} has no values of {choice.metric!r}; its stored "
                        f"metrics are: {stored} (and wall_s, user_s, sys_s, cpu_s, max_rss_bytes, ...)")
    return choice


def analyze_experiment(results: ExperimentResults, metric: str | None = None, seed: int | None = None,
                       statistics: Statistics = analyze_metric) -> ExperimentAnalysis:
    """Statistics of every cell and every stored metric, comparisons on ``metric`` (default:
    the metric the run recorded, else ``wall_s``)."""
    choice = choose(results, metric)
    seed = results.experiment.seed if seed is None else seed
    cells = results.cells
    varying = _varying_factors(cells)
    comparison = compare_cells(
        {c.name: results.values(c, choice.metric) for c in cells}, results.baseline, choice.metric,
        lower_is_better=results.metrics.get(choice.metric).lower_is_better,
        factors={c.name: {f: _levels(c)[f] for f in varying} for c in cells} if len(varying) >= 2 else None,
        seed=seed, busy=results.busy_blocks, n_blocks=results.measured_blocks(), statistics=statistics,
        positive=never_negative(choice.metric, results.metrics),
        delays={c.name: results.values(c, RUN_DELAY) for c in cells} if results.busy_blocks else None)
    comparison = within_node_verdicts(results, comparison, choice.metric,  # a cluster run: node as a block
                                      results.metrics.get(choice.metric).lower_is_better)
    comparison = replace(comparison, beside=_beside(results, comparison, seed, statistics))
    cell_results = tuple(_cell_result(results, c, choice.metric, comparison.analysis, seed) for c in cells)
    hazards = experiment_hazards(results.hazards, results.busy_blocks, cell_results, comparison.analysis)
    return ExperimentAnalysis(results=results, metric=choice.metric, metric_reason=choice.reason,
                              cells=cell_results, comparison=comparison, hazards=hazards,
                              warmup_classes=warmup_classes(results))


def _beside(results: ExperimentResults, comparison: CellsComparison, seed: int,
            statistics: Statistics) -> CellsComparison | None:
    """CPU time compared too, when contention left a contended metric undecided on a busy machine
    (a significant comparison withheld, or none significant): its verdict is said beside."""
    metric = comparison.analysis.metric
    undecided = [c for c in comparison.compared if c.disturbance is not None and c.disturbance.busy_blocks
                 and (c.kind is VerdictKind.DISTURBED or not c.comparison.significant)]
    if metric == CPU_METRIC or not contention_moves(metric) or not undecided:
        return None
    cells = results.cells
    return compare_cells({c.name: results.values(c, CPU_METRIC) for c in cells}, results.baseline, CPU_METRIC,
                         lower_is_better=True, seed=seed, busy=results.busy_blocks,
                         n_blocks=results.measured_blocks(), statistics=statistics, positive=True)


def _cell_result(results: ExperimentResults, c: StoredCell, metric: str, analysis: MetricAnalysis,
                 seed: int) -> CellResult:
    ok = results.ok(c)
    stats = {m: describe(c.name, clean(results.values(c, m)), rng_for(seed, m, c.name, "summary"),
                         DESCRIBE_RESAMPLES, quick=True, positive=never_negative(m, results.metrics))
             for m in metric_names(results) if m != metric}
    stats[metric] = analysis.stats[c.name]
    reasons = Counter(i.reason or i.status for i in results.invocations if i.cell_id == c.id and i.status != "ok")
    flagged = tuple(ok[k].id for k in analysis.outliers.get(c.name, ()) if k < len(ok))
    return CellResult(cell=c, n=len(ok), failures=sum(reasons.values()), failure_reasons=dict(reasons),
                      stats=stats, outliers=flagged,
                      not_in_effect=tuple(sorted({h.detail for h in results.hazards
                                                  if h.kind == hz.FLAG_NOT_IN_EFFECT and h.cell == c.name})),
                      ok_invocations=ok)


def _levels(c: StoredCell) -> dict[str, str]:
    return {"jvm": c.jvm, **c.levels}


def _varying_factors(cells: tuple[StoredCell, ...]) -> list[str]:
    names = ["jvm"]
    for c in cells:
        names += [f for f in c.levels if f not in names]
    return [f for f in names if len({_levels(c).get(f) for c in cells}) > 1]


def metric_names(results: ExperimentResults) -> list[str]:
    """The process measures, then every metric an ok invocation stored, sorted."""
    names = list(PROCESS_METRICS)
    extra = sorted({m for invs in results.ok_by_cell.values() for inv in invs for m in inv.metrics})
    return names + [m for m in extra if m not in names]


def warmup_classes(results: ExperimentResults) -> dict[str, dict[str, int]]:
    """How many invocations of each cell fell in each warm-up class (flat, warm-up, ...)."""
    out: dict[str, Counter[str]] = {}
    for c in results.cells:
        for inv in results.ok(c):
            doc = results.progress.get(inv.id)
            if doc is not None and doc.klass:
                out.setdefault(c.name, Counter())[doc.klass] += 1
    return {cell: dict(counts) for cell, counts in out.items()}
