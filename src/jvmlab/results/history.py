"""A series over time loaded once: its labels in order, each cell's per-label estimates and
the change points across them (``jvmlab history``).

A series is the experiments stored with ``run --label`` (or ``import ... --label``) under one
series name (default: the spec's name). Several experiments with the same label are one point
(their runs pooled). Labels keep their order of arrival; a label given ``--order`` is placed by
it, and a label without one stays right after the label that arrived before it.

Loading is two queries whatever the number of labels (``Store.series_values``), then pure
statistics per cell and metric (:func:`jvmlab.analyze.changepoint.segment`).
"""

from __future__ import annotations

import fnmatch
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from scipy import special

from jvmlab import metrics as registry
from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.changepoint import ALPHA, MIN_LABELS, Segmentation, segment
from jvmlab.analyze.interference import BETWEEN_RUN_PRIOR, machine_explains, moved_across_runs
from jvmlab.errors import UserError, did_you_mean, hide_passwords
from jvmlab.metrics import RUN_DELAY
from jvmlab.model.stored import PROCESS_METRICS, StoredExperiment
from jvmlab.store.protocol import Store

DEFAULT_METRIC = "wall_s"


@dataclass(frozen=True)
class SeriesLabel:
    """One point of the series: a label and the experiments measured under it."""

    label: str
    order: float | None  # --order, None: placed by arrival
    experiment_ids: tuple[int, ...]


@dataclass(frozen=True)
class LabelEstimate:
    """One cell's metric at one label: the mean of its runs and its 95% t interval."""

    label: str
    n_runs: int
    mean: float
    ci95: tuple[float, float] | None  # None: one run (no spread to tell)


@dataclass(frozen=True)
class MachineChange:
    """A change point whose two sides ran under different contention (the one model:
    :func:`jvmlab.analyze.interference.machine_changed`): the mean run-queue delay per run
    before and after it, and the factor that change could move a run by."""

    index: int  # the change's first label
    delay_before_s: float
    delay_after_s: float
    margin: float


@dataclass(frozen=True)
class CellHistory:
    """One cell and metric across the labels it was measured at."""

    cell: str
    metric: str
    unit: str
    lower_is_better: bool
    points: tuple[LabelEstimate, ...]
    segmentation: Segmentation | None  # None: too few labels to look for a change
    reason: str | None = None  # why there is no segmentation
    machine_changes: tuple[MachineChange, ...] = ()  # changes under different contention: not called
    label_positions: tuple[int, ...] = ()  # each point's index in History.labels

    def machine_change_at(self, index: int) -> MachineChange | None:
        return next((m for m in self.machine_changes if m.index == index), None)

    def label_at(self, index: int) -> str:
        return self.points[index].label


@dataclass(frozen=True)
class History:
    series: str
    labels: tuple[SeriesLabel, ...]
    metrics: tuple[str, ...]
    cells: tuple[CellHistory, ...]


def ordered_labels(experiments: Sequence[StoredExperiment]) -> list[SeriesLabel]:
    """Labels in series order: arrival, moved by ``--order`` where given (see module doc)."""
    groups: dict[str, list[StoredExperiment]] = {}
    for exp in sorted(experiments, key=lambda e: e.id):
        groups.setdefault(exp.label or f"experiment {exp.id}", []).append(exp)
    keyed: list[tuple[float, int, SeriesLabel]] = []
    last = -math.inf
    for arrival, (label, exps) in enumerate(groups.items()):
        orders = [e.label_order for e in exps if e.label_order is not None]
        order = orders[-1] if orders else None
        last = order if order is not None else last
        keyed.append((last, arrival, SeriesLabel(label, order, tuple(e.id for e in exps))))
    return [item for _, _, item in sorted(keyed, key=lambda k: (k[0], k[1]))]


def series_metrics(store: Store, series: str, wanted: Sequence[str],
                   newest: StoredExperiment) -> tuple[list[str], dict[str, str]]:
    """The metrics to look at (given, else the newest run's metric) with their units; globs
    (``jmh.*``) expand over what the series stored. A UserError names what exists."""
    names = list(wanted) or [newest.run_options.metric or DEFAULT_METRIC]
    units = {m: registry.get(m).unit for m in PROCESS_METRICS if m in registry.REGISTRY}
    if any(n not in PROCESS_METRICS for n in names):
        units.update(store.series_metric_units(series))
    out: list[str] = []
    for name in names:
        hits = [m for m in sorted(units) if fnmatch.fnmatchcase(m, name)]
        if not hits:
            raise UserError(f"--metric {name!r}: the series {series!r} has no such metric"
                            f"{did_you_mean(name, units)}; it has {', '.join(sorted(units)[:12])}")
        out += [h for h in hits if h not in out]
    return out, units


def load_history(store: Store, series: str, metrics: Sequence[str] = (), cells: Sequence[str] = (),
                 alpha: float | None = None, between_run_sd: float = BETWEEN_RUN_PRIOR) -> History:
    """Load a series and find its change points, per cell and metric; ``between_run_sd`` (a
    fraction per run, ``--between-run-sd``): the floor of the between-label spread of a series
    too short for its own (:data:`jvmlab.analyze.changepoint.OWN_SPREAD_LABELS`)."""
    experiments = store.series_experiments(series)
    if not experiments:
        known = store.series_names()
        hint = (f"series here: {', '.join(sorted(known)[:12])}" if known else
                "no series yet: run a spec with --label LABEL (or --label-from git)")
        raise UserError(f"no series {series!r} in {hide_passwords(store.url)}{did_you_mean(series, known)}; {hint}")
    labels = ordered_labels(experiments)
    chosen, units = series_metrics(store, series, metrics, experiments[-1])
    position = {exp_id: i for i, lab in enumerate(labels) for exp_id in lab.experiment_ids}
    runs: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for exp_id, cell, metric, value in store.series_values(series, chosen):
        runs[(cell, metric)][position[exp_id]].append(value)
    if not runs:
        stored = {*units, *store.series_metric_units(series)}
        others = ", ".join(sorted(u for u in stored if u not in chosen)[:12])
        raise UserError(f"the series {series!r} has no measured values of {', '.join(chosen)}; "
                        f"choose --metric among: {others}")
    names = sorted({cell for cell, _ in runs})
    wanted = [n for n in names if not cells or any(fnmatch.fnmatchcase(n, c) for c in cells)]
    if cells and not wanted:
        raise UserError(f"--cell {', '.join(cells)}: no such cell in the series {series!r}; "
                        f"cells: {', '.join(names[:12])}")
    seed = experiments[0].seed
    out = [_cell(series, cell, metric, units.get(metric, ""), labels, runs[(cell, metric)], seed, alpha,
                 between_run_sd)
           for cell in wanted for metric in chosen if (cell, metric) in runs]
    if any(c.segmentation is not None and c.segmentation.changes and moved_across_runs(c.metric) for c in out):
        out = _with_contention(store, series, position, out)
    return History(series, tuple(labels), tuple(chosen), tuple(out))


def _with_contention(store: Store, series: str, position: dict[int, int],
                     cells: list[CellHistory]) -> list[CellHistory]:
    """Each change of a metric contention moves across runs (CPU time by at most
    ``CPU_CONTENTION``) checked against the labels' stored run-queue delays (one more query): a
    change the different contention of its two sides could explain is marked."""
    per_label: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for exp_id, cell, metric, value in store.series_values(series, [RUN_DELAY, "wall_s"]):
        per_label[(cell, metric)][position[exp_id]].append(value)
    out = []
    for ch in cells:
        seg = ch.segmentation
        delays, walls = per_label.get((ch.cell, RUN_DELAY)), per_label.get((ch.cell, "wall_s"))
        if seg is None or not seg.changes or not moved_across_runs(ch.metric) or not delays or not walls:
            out.append(ch)
            continue
        marks = []
        for i, change in enumerate(seg.changes):
            a = seg.changes[i - 1].index if i else 0
            b = seg.changes[i + 1].index if i + 1 < len(seg.changes) else len(seg.labels)
            before = _pooled(delays, ch.label_positions[a:change.index])
            after = _pooled(delays, ch.label_positions[change.index:b])
            wall = _pooled(walls, ch.label_positions[a:b])
            if not before or not after or not wall:
                continue
            d0, d1, w = math.fsum(before) / len(before), math.fsum(after) / len(after), math.fsum(wall) / len(wall)
            margin = machine_explains(ch.metric, d0, d1, w, change.ratio)
            if margin is not None:
                marks.append(MachineChange(change.index, d0, d1, margin))
        out.append(replace(ch, machine_changes=tuple(marks)) if marks else ch)
    return out


def _pooled(by_label: dict[int, list[float]], positions: Sequence[int]) -> list[float]:
    return [v for p in positions for v in by_label.get(p, [])]


def _cell(series: str, cell: str, metric: str, unit: str, labels: Sequence[SeriesLabel],
          by_label: dict[int, list[float]], seed: int, alpha: float | None,
          between_run_sd: float = BETWEEN_RUN_PRIOR) -> CellHistory:
    present = sorted(by_label)
    points = tuple(_estimate(labels[i].label, by_label[i]) for i in present)
    info = registry.get(metric, unit)
    if len(present) < 2 * MIN_LABELS:
        return CellHistory(cell, metric, unit, info.lower_is_better, points, None,
                           f"{len(present)} label(s): a change needs {MIN_LABELS}+ labels on each side",
                           label_positions=tuple(present))
    seg = segment([by_label[i] for i in present], alpha=ALPHA if alpha is None else alpha,
                  rng=rng_for(seed, "history", series, cell, metric), prior_sd=between_run_sd)
    return CellHistory(cell, metric, unit, info.lower_is_better, points, seg, label_positions=tuple(present))


@lru_cache(maxsize=256)
def _t975(dof: int) -> float:
    """The t quantile for a 95% interval (cached: a series asks for the same few thousands of times)."""
    return float(special.stdtrit(dof, 0.975))


def _estimate(label: str, values: list[float]) -> LabelEstimate:
    """Mean with a 95% t interval; a positive quantity's interval is cut at 0, never below."""
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return LabelEstimate(label, 1, mean, None)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = _t975(n - 1) * sd / math.sqrt(n)
    low = mean - half
    if min(values) >= 0:
        low = max(low, 0.0)
    return LabelEstimate(label, n, mean, (low, mean + half))
