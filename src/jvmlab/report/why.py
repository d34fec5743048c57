"""The "why" part of a report: flame graphs, differential profiles, startup phases and the
JFR metrics table, built once for the HTML page, the terminal and JSON.

It takes results only: the summary and the :class:`~jvmlab.results.why.WhyRecords` that
:func:`jvmlab.results.why.load_why` read from the store (profiles and JFR notes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jvmlab import metrics as registry
from jvmlab.profile.diff import ProfileDiff
from jvmlab.report.flame import (
    CellProfiles,
    diff_rows,
    flame_figures,
    merge_profiles,
    profile_diffs,
    render_terminal,
)
from jvmlab.report.page import figure_entries
from jvmlab.report.startup import phase_means, startup_figure
from jvmlab.results.why import JfrNotes, WhyRecords

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary


@dataclass
class WhyPart:
    profiles: CellProfiles
    diffs: list[ProfileDiff]
    startup: dict[str, tuple[float | None, ...]] = field(default_factory=dict)
    metric_header: list[str] = field(default_factory=list)
    metric_rows: list[list[str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # "cell: metric: reason (n invocations)"
    phase_header: list[str] = field(default_factory=list)
    phase_rows: list[list[str]] = field(default_factory=list)

    def empty(self) -> bool:
        no_stacks = not any(s for kinds in self.profiles.stacks.values() for s in kinds.values())
        return no_stacks and not self.startup and not self.metric_rows

    def to_json(self) -> dict[str, Any]:
        return {"profile_diffs": [d.to_json() for d in self.diffs],
                "missing": self.missing,
        "startup_phases_s": {cell: dict(zip(("jvm_init", "init_to_main", "main_to_ready"), v, strict=False))
                                     for cell, v in self.startup.items()}}


def build_why(summary: Summary, records: WhyRecords) -> WhyPart:
    """Profiles, startup phases and JFR tables of an experiment (empty when jfr/startup were off)."""
    cells = [cs.cell for cs in summary.cells]
    invocations = list(records.invocations)
    profiles = merge_profiles(cells, records.profiles, summary.baseline)
    header, rows = jfr_metric_rows(summary)
    part = WhyPart(profiles, profile_diffs(profiles), phase_means(cells, invocations), header, rows,
                   missing_reasons(summary, records.jfr))
    part.phase_header, part.phase_rows = gc_phase_rows(summary, records.jfr)
    return part


def gc_phase_rows(summary: Summary, notes: Sequence[JfrNotes], top: int = 10) -> tuple[list[str], list[list[str]]]:
    """Mean ms per invocation of the GC phases JFR timed, the ``top`` longest of any cell."""
    sums: dict[int, dict[str, float]] = {}
    counts: dict[int, int] = {}
    for note in notes:
        if note.gc_phases_ms is None:
            continue
        counts[note.cell_id] = counts.get(note.cell_id, 0) + 1
        cell = sums.setdefault(note.cell_id, {})
        for name, ms in note.gc_phases_ms.items():
            cell[name] = cell.get(name, 0.0) + float(ms)
    means = {cid: {k: v / counts[cid] for k, v in cell.items()} for cid, cell in sums.items()}
    names = sorted({k for m in means.values() for k in m}, key=lambda k: -max(m.get(k, 0.0) for m in means.values()))
    if not names:
        return [], []
    names = names[:top]
    rows = [[k, *(f"{means[cs.cell.id].get(k, 0.0):.1f}" if cs.cell.id in means else "-" for cs in summary.cells)]
            for k in names]
    return ["GC phase (JFR event: phase)", *(cs.cell.name for cs in summary.cells)], rows


def jfr_metric_rows(summary: Summary) -> tuple[list[str], list[list[str]]]:
    """Mean per invocation of every jfr.* metric some cell has ("-": not measured)."""
    names = [m for m in registry.REGISTRY if m.startswith("jfr.")
             and any((st := cs.stats.get(m)) is not None and st.mean is not None for cs in summary.cells)]
    if not names:
        return [], []
    rows = [[cs.cell.name, *(registry.get(m).format(st.mean if (st := cs.stats.get(m)) else None) for m in names)]
            for cs in summary.cells]
    return ["cell", *names], rows


def missing_reasons(summary: Summary, notes: Sequence[JfrNotes]) -> list[str]:
    """Why jfr metrics are missing, per cell: the reasons the collector stored, counted."""
    names = {cs.cell.id: cs.cell.name for cs in summary.cells}
    counts: dict[tuple[str, str], int] = {}
    for note in notes:
        reasons = [("all jfr metrics", note.error)] if note.error else list(note.missing.items())
        for metric, reason in reasons:
            key = (names.get(note.cell_id, "?"), f"{metric}: {reason}")
            counts[key] = counts.get(key, 0) + 1
    return [f"{cell}: {text} ({n} invocation{'s' if n > 1 else ''})" for (cell, text), n in sorted(counts.items())]


def why_context(part: WhyPart) -> dict[str, Any]:
    """Template values for ``_why.html.j2``."""
    if part.empty():
        return {"why": None}
    return {"why": {
        "flame_figures": figure_entries(flame_figures(part.profiles), "flame"),
        "startup_figures": figure_entries([startup_figure(part.startup)], "startup"),
        "diff_header": ["cell", "samples", "frame", "baseline share", "cell share", "change"],
        "diff_rows": diff_rows(part.diffs),
        "phase_header": part.phase_header, "phase_rows": part.phase_rows,
        "metric_header": part.metric_header, "metric_rows": part.metric_rows, "missing": part.missing}}


def why_json(summary: Summary, records: WhyRecords) -> dict[str, Any]:
    """``{"why": {...}}`` for the JSON summary, or ``{}`` when jfr and startup were off."""
    part = build_why(summary, records)
    return {} if part.empty() else {"why": part.to_json()}


def render_why(summary: Summary, records: WhyRecords, console: Any) -> None:
    """Terminal: startup phases per cell and the frames that grew/shrank most."""
    from rich.table import Table

    part = build_why(summary, records)
    if part.startup:
        table = Table(title="Startup phases (mean, ms since JVM start)", title_justify="left")
        for col in ("cell", "JVM init", "init → main", "main → ready"):
            table.add_column(col, justify="left" if col == "cell" else "right")
        for cell, values in part.startup.items():
            table.add_row(cell, *("-" if v is None else f"{v * 1000:.1f}" for v in values))
        console.print(table)
    render_terminal(part.diffs, console)
    for line in part.missing:
        console.print(f"jfr, not measured: {line}", markup=False, highlight=False)
