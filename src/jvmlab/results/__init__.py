"""The results layer: load an experiment once, run the pure statistics through one entry point.

Floors: below ``report``, ``scenarios``, adaptive stopping and ``tune``; above ``analyze``
and ``store``. :func:`load_experiment` reads the store once into frozen records
(:class:`ExperimentResults`); :func:`compare_cells` runs :mod:`jvmlab.analyze` and returns
typed comparisons (:class:`CellsComparison`); :func:`analyze_experiment` does both for a
whole experiment. Renderers take these records, never a store.
"""

from jvmlab.results.compare import (
    ALL_CELLS,
    CellsComparison,
    ComparedCell,
    Disturbance,
    VerdictKind,
    ci_excludes_one,
    ci_only_comparisons,
    compare_across,
    compare_cells,
    compare_family,
    verdict_kind,
)
from jvmlab.results.experiment import CellResult, ExperimentAnalysis, analyze_experiment
from jvmlab.results.load import TimelineSelection, load_experiment
from jvmlab.results.pairs import JudgedPair, judge_pair
from jvmlab.results.records import BusyBlock, ExperimentResults, cell_values

__all__ = [
    "ALL_CELLS", "BusyBlock", "CellResult", "CellsComparison", "ComparedCell", "Disturbance", "ExperimentAnalysis",
    "ExperimentResults", "JudgedPair", "TimelineSelection", "VerdictKind", "analyze_experiment", "cell_values",
    "ci_excludes_one", "ci_only_comparisons", "compare_across", "compare_cells", "compare_family", "judge_pair",
    "load_experiment", "verdict_kind",
]
