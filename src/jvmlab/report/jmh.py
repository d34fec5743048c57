"""The benchmark x cell table of a JMH experiment (run here or imported).

Each benchmark (x @Param combination) is its own metric ``jmh.<benchmark>[params]`` with
JMH's unit and direction. Every cell is compared with the baseline cell on every benchmark
(ratio of means over forks, BCa CI, permutation p-value: :mod:`jvmlab.analyze.compare`), and
the p-values are Holm-corrected together across all benchmarks and cells: with twenty
benchmarks, one "significant" change in twenty at 5% is what chance alone gives. A score is a
throughput: on a busy machine each comparison is judged by the one interference model as
``run`` judges its own (:func:`jvmlab.results.compare.disturbances`: at equal run-queue delay
when the forks' delays were measured, else the quiet blocks' margin); a comparison it withholds
is said to be disturbed and is not counted as a real change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rich.console import Console
from rich.table import Table
from rich.text import Text

from jvmlab import metrics as registry
from jvmlab.analyze import CellData, Comparison
from jvmlab.metrics import JMH_PREFIX, RUN_DELAY, MetricRegistry
from jvmlab.model.stored import StoredExperiment
from jvmlab.report.verdicts import disturbance_text, short_verdict, verdict
from jvmlab.results import cell_values, compare_family
from jvmlab.results.compare import Disturbance
from jvmlab.results.experiment import CellResult
from jvmlab.results.pairs import judge_made


class Summary(Protocol):
    """What the table reads of a summary (:class:`jvmlab.report.summary.Summary` has it); the
    summary's JSON includes this table, so the table must not import the summary module."""

    @property
    def experiment(self) -> StoredExperiment: ...
    @property
    def baseline(self) -> str | None: ...
    @property
    def cells(self) -> Sequence[CellResult]: ...
    @property
    def metrics(self) -> MetricRegistry: ...


@dataclass(frozen=True)
class JmhRow:
    """One benchmark: each cell's mean score and forks, and each cell's comparison."""

    metric: str
    unit: str
    lower_is_better: bool
    means: dict[str, float | None]  # cell -> mean score over its forks
    forks: dict[str, int]  # cell -> forks measured
    comparisons: dict[str, Comparison]  # cell (not the baseline) -> comparison, Holm across the table
    disturbed: dict[str, Disturbance] = field(default_factory=dict)  # cell -> what withheld its comparison

    def sentence(self, cell: str, metric: registry.Metric | None = None) -> str:
        """The comparison's sentence ("not called" when the interference model withholds it);
        ``metric``: as the run registered it (default: from the row's unit and direction)."""
        return verdict(self.comparisons[cell], metric or _metric(self),
                       interference=disturbance_text(self.disturbed.get(cell)))

    def called(self, cell: str) -> bool:
        """Significant after Holm, and not withheld by the interference model."""
        return self.comparisons[cell].significant and cell not in self.disturbed


@dataclass(frozen=True)
class JmhTable:
    baseline: str | None
    cells: tuple[str, ...]
    rows: tuple[JmhRow, ...]

    def verdicts(self) -> list[str]:
        """One sentence per benchmark and cell against the baseline."""
        out = []
        for row in self.rows:
            out += [row.sentence(cell) for cell in row.comparisons]
        return out


def _metric(row: JmhRow) -> registry.Metric:
    """The row's metric as the experiment registered it (unit and direction from the row)."""
    return registry.dynamic_metric(row.metric, row.unit, row.lower_is_better)


def jmh_table(summary: Summary) -> JmhTable | None:
    """Compare every cell with the baseline on every JMH metric; None without JMH metrics."""
    names = sorted({m for cs in summary.cells for m, st in cs.stats.items() if m.startswith(JMH_PREFIX) and st.n})
    if not names:
        return None
    seed = summary.experiment.seed
    base = next((cs for cs in summary.cells if cs.cell.name == summary.baseline), None)
    family: list[tuple[str, CellData, str, CellData, str]] = []
    for name in names:
        if base is None:
            break
        base_data = cell_values(base.ok_invocations, name)
        family += [(cs.cell.name, cell_values(cs.ok_invocations, name), base.cell.name, base_data, name)
                   for cs in summary.cells if cs is not base]
    adjusted: dict[tuple[str, str], Comparison] = {(c.metric, c.cell): c for c in compare_family(family, seed, "jmh")}
    rows = []
    for name in names:
        metric = summary.metrics.get(name)
        means = {cs.cell.name: cs.stats[name].mean if name in cs.stats else None for cs in summary.cells}
        forks = {cs.cell.name: cs.stats[name].n if name in cs.stats else 0 for cs in summary.cells}
        comps = {cell: c for (m, cell), c in adjusted.items() if m == name}
        rows.append(JmhRow(name, metric.unit, metric.lower_is_better, means, forks, comps,
                           _withheld(summary, base, name, comps)))
    return JmhTable(summary.baseline, tuple(cs.cell.name for cs in summary.cells), tuple(rows))


def _withheld(summary: Summary, base: CellResult | None, metric: str,
              comps: dict[str, Comparison]) -> dict[str, Disturbance]:
    """cell -> the disturbance that withholds its comparison on a busy machine or under drift
    (the one model, as ``run`` judges: :func:`jvmlab.results.compare.disturbances`)."""
    results = getattr(summary, "results", None)
    if not comps or base is None:
        return {}
    busy = tuple(results.busy_blocks) if results is not None else ()
    cells = [cs for cs in summary.cells if cs.cell.name in comps or cs is base]
    values = {cs.cell.name: cell_values(cs.ok_invocations, metric) for cs in cells}
    found = judge_made(tuple(comps.values()), base.cell.name, values,
                       {cs.cell.name: cell_values(cs.ok_invocations, RUN_DELAY) for cs in cells}, busy,
                       results.measured_blocks() if results is not None else 0)
    return {cell: d for cell, d in found.items() if d.vetoes and comps[cell].significant}


def _cell_text(row: JmhRow, cell: str, baseline: str | None) -> str:
    mean = row.means.get(cell)
    if mean is None:
        return "-"
    text = f"{registry.format_value(mean, row.unit)} (n={row.forks.get(cell, 0)})"
    comp = row.comparisons.get(cell)
    if cell == baseline:
        return text + "\nbaseline"
    if comp is None or comp.ratio is None:
        return text
    ci = f" [{comp.ci95[0]:.3g}–{comp.ci95[1]:.3g}]" if comp.ci95 else ""
    mark = " (disturbed: not called)" if cell in row.disturbed else ""
    return f"{text}\n{comp.ratio:.3g}x{ci} {short_verdict(comp, _metric(row))}{mark}"


def render_jmh(table: JmhTable, console: Console) -> None:
    """Benchmarks as rows, cells as columns: mean score (forks), ratio to the baseline with its
    CI, and the verdict after Holm correction across the whole table."""
    title = "JMH benchmarks x cells (mean score over forks; ratio to baseline, Holm-corrected)"
    out = Table(title=title, header_style="bold", show_lines=True)
    label = max(len(r.metric) for r in table.rows)
    wide = label + 18 + 26 * len(table.cells) <= console.width
    out.add_column("benchmark", overflow="fold")
    out.add_column("unit")
    if wide:
        for cell in table.cells:
            out.add_column(Text(cell), justify="right", overflow="fold")
    else:  # too many cells for the terminal: one row per benchmark and cell
        out.add_column("cell", overflow="fold")
        out.add_column("score, vs baseline", justify="right")
    for row in table.rows:
        arrow = "lower is better" if row.lower_is_better else "higher is better"
        name, unit = Text(row.metric.removeprefix(JMH_PREFIX)), Text(f"{row.unit}\n{arrow}")
        if wide:
            out.add_row(name, unit, *[Text(_cell_text(row, cell, table.baseline), justify="right")
                                      for cell in table.cells])
            continue
        for k, cell in enumerate(table.cells):
            out.add_row(name if k == 0 else "", unit if k == 0 else "", Text(cell),
                        Text(_cell_text(row, cell, table.baseline).replace("\n", "  "), justify="right"),
                        end_section=k == len(table.cells) - 1)
    if not wide:
        out.show_lines = False
    console.print(out)
    significant = [row.sentence(cell) for row in table.rows for cell in row.comparisons if row.called(cell)]
    if significant:
        console.print(Text("JMH verdicts (significant after Holm across all benchmarks)", style="bold"))
        for sentence in significant:
            console.print(Text(f"  {sentence}", style="green"))


def markdown_jmh(table: JmhTable) -> str:
    """The same table in Markdown (for exports and pull-request comments)."""
    head = "| benchmark | unit | " + " | ".join(_md(c) for c in table.cells) + " |"
    lines = [head, "|---|---|" + "---:|" * len(table.cells)]
    for row in table.rows:
        cells = [_cell_text(row, c, table.baseline).replace("\n", "<br>") for c in table.cells]
        lines.append(f"| {_md(row.metric.removeprefix(JMH_PREFIX))} | {_md(row.unit)} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def jmh_json(table: JmhTable) -> list[dict[str, object]]:
    """The table for the JSON summary: one entry per benchmark."""
    return [{"metric": row.metric, "unit": row.unit, "lower_is_better": row.lower_is_better,
             "means": row.means, "forks": row.forks,
             "comparisons": [{**c.to_json(), "verdict": row.sentence(cell), "called": row.called(cell)}
                             for cell, c in row.comparisons.items()]}
            for row in table.rows]


def table_part(summary: Summary) -> list[dict[str, object]]:
    """The table for the HTML report's metric tables (the template escapes every string)."""
    table = jmh_table(summary)
    if table is None:
        return []
    rows = [[row.metric.removeprefix(JMH_PREFIX), f"{row.unit} ({'lower' if row.lower_is_better else 'higher'} "
             f"is better)", *[_cell_text(row, c, table.baseline).replace("\n", " · ") for c in table.cells]]
            for row in table.rows]
    return [{"title": "JMH benchmarks x cells (mean score over forks; ratio to baseline, Holm-corrected)",
             "header": ["benchmark", "unit", *table.cells], "rows": rows}]


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").replace("*", "\\*")
