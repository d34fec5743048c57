"""`jvmlab compare A B`: the same cells in two experiments (before/after a JDK upgrade, say).

Cells are matched by name. Each pair is compared with experiment A's cell as the baseline
(unpaired: blocks of two experiments were not measured side by side), and the p-values are
corrected together across all pairs (Holm). A machine whose fingerprint changed between
the experiments gets a warning: the difference may be the machine's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.text import Text

from jvmlab.analyze import CellData, Comparison
from jvmlab.analyze.interference import BETWEEN_RUN_PRIOR
from jvmlab.errors import UserError
from jvmlab.machine.fingerprint import changes
from jvmlab.metrics import DEFAULT, RUN_DELAY, MetricRegistry
from jvmlab.model import hazards as hz
from jvmlab.model.stored import StoredExperiment
from jvmlab.report import notation
from jvmlab.report.fit import Column, fitted_tables
from jvmlab.report.verdicts import between_run_text, short_verdict, verdict
from jvmlab.results import ExperimentResults, compare_across
from jvmlab.results.compare import RunContention

SCHEMA = "jvmlab.compare/1"


@dataclass(frozen=True)
class CellPair:
    """One cell name present in both experiments."""

    cell: str
    comparison: Comparison  # ratio = mean(B) / mean(A)
    verdict: str
    mean_a: float | None
    mean_b: float | None


@dataclass(frozen=True)
class ExperimentComparison:
    a: StoredExperiment
    b: StoredExperiment
    metric: str
    pairs: tuple[CellPair, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    hazards: tuple[hz.Hazard, ...]
    metrics: MetricRegistry = DEFAULT  # both experiments' dynamic metrics included
    between_run_sd: float = BETWEEN_RUN_PRIOR  # the between-run spread used (log sd per run)

    def to_json(self) -> dict[str, Any]:
        m = self.metrics.get(self.metric)
        return {
            "schema": SCHEMA, "metric": self.metric, "unit": m.unit, "lower_is_better": m.lower_is_better,
            "a": {"experiment_id": self.a.id, "name": self.a.name},
            "b": {"experiment_id": self.b.id, "name": self.b.name},
            "pairs": [{**p.comparison.to_json(), "mean_a": p.mean_a, "mean_b": p.mean_b, "verdict": p.verdict}
                      for p in self.pairs],
            "only_in_a": list(self.only_a), "only_in_b": list(self.only_b),
            "warnings": [h.to_json() for h in self.hazards], "between_run_sd": self.between_run_sd,
        }


def _values(results: ExperimentResults, metric: str) -> dict[str, list[float]]:
    """Cell name -> the measured values of ``metric`` of its successful invocations."""
    return {c.name: [v for inv in results.ok(c) if (v := inv.value(metric)) is not None] for c in results.cells}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def compare_experiments(results_a: ExperimentResults, results_b: ExperimentResults, metric: str = "wall_s",
                        seed: int | None = None, between_run_sd: float = BETWEEN_RUN_PRIOR) -> ExperimentComparison:
    """Compare every cell name the two loaded experiments share, on ``metric``; ``between_run_sd``:
    the spread of a run's level from run to run (log sd; ``--between-run-sd``, default the prior)."""
    metrics = results_a.metrics.extended(results_b.units)
    m = metrics.get(metric)
    a, b = results_a.experiment, results_b.experiment
    a_id, b_id = a.id, b.id
    values_a, values_b = _values(results_a, metric), _values(results_b, metric)
    shared = [name for name in values_a if name in values_b]
    if not shared:
        raise UserError(f"experiments {a_id} and {b_id} share no cell names (A: {', '.join(values_a) or '-'}; "
                        f"B: {', '.join(values_b) or '-'}); compare runs of the same spec")
    seed = a.seed if seed is None else seed
    delays_a, delays_b = _values(results_a, RUN_DELAY), _values(results_b, RUN_DELAY)
    walls = {name: _mean(_values(results_a, "wall_s")[name] + _values(results_b, "wall_s")[name]) for name in shared}
    contention = {name: RunContention(_mean(delays_a.get(name, [])), _mean(delays_b.get(name, [])), walls[name])
                  for name in shared}
    adjusted = compare_across([(name, CellData.of(values_a[name]), CellData.of(values_b[name])) for name in shared],
                              metric, f"#{a_id}", seed, contention, between_run_sd)
    pairs = tuple(CellPair(name, comp, verdict(comp, m, label=f"{name}: #{b_id}", baseline_label=f"#{a_id}"),
                           _mean(values_a[name]), _mean(values_b[name]))
                  for name, comp in zip(shared, adjusted, strict=True))
    hazards = [hz.Hazard(hz.FINGERPRINT_CHANGED, f"between experiments {a_id} and {b_id}: {change}",
                         "the machine or a JDK changed; part of any difference may be the machine's")
               for change in changes(a.fingerprint, b.fingerprint)]
    if a.spec_hash != b.spec_hash:
        hazards.append(hz.Hazard(hz.SPEC_CHANGED, f"experiments {a_id} and {b_id} ran different specs",
                                 "cells with the same name may still differ in flags or workload"))
    return ExperimentComparison(a, b, metric, pairs, tuple(n for n in values_a if n not in values_b),
                                tuple(n for n in values_b if n not in values_a), tuple(hazards), metrics,
                                between_run_sd)


def render_comparison(cmp: ExperimentComparison, console: Console) -> None:
    """The comparison as a rich table, verdicts and warnings."""
    m = cmp.metrics.get(cmp.metric)
    console.print(Text(f"Experiment {cmp.b.id} ({cmp.b.name}) vs experiment {cmp.a.id} ({cmp.a.name}) "
                       f"on {cmp.metric}", style="bold"))
    pairs = cmp.pairs
    columns = [Column(f"#{cmp.a.id} mean", [notation.value(m, p.mean_a) for p in pairs]),
               Column(f"#{cmp.b.id} mean", [notation.value(m, p.mean_b, like=p.mean_a) for p in pairs]),
               Column("n A", [str(p.comparison.n_baseline) for p in pairs]),
               Column("n B", [str(p.comparison.n_cell) for p in pairs]),
               Column("ratio B/A [95% CI]", [notation.ratio_ci(p.comparison.ratio, p.comparison.ci95) for p in pairs]),
               Column("change", [short_verdict(p.comparison, m) for p in pairs])]
    for table in fitted_tables(Column("cell", [p.cell for p in pairs], "left"), columns, console.width):
        console.print(table)
    for p in cmp.pairs:
        console.print(Text(f"  {p.verdict}", style="green" if p.comparison.significant else "dim"))
        if p.comparison.between_run_sd is not None:
            console.print(Text(f"    {between_run_text(p.comparison.between_run_sd)}", style="dim"))
    for which, names in ((cmp.a.id, cmp.only_a), (cmp.b.id, cmp.only_b)):
        if names:
            console.print(Text(f"only in #{which}: {', '.join(names)}", style="dim"))
    for h in cmp.hazards:
        console.print(Text(f"warning [{h.kind}] {h.detail}", style="yellow"))
        if h.hint:
            console.print(Text(f"    hint: {h.hint}", style="dim"))
