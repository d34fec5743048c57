"""The "why" part of a report: flame graphs, differential profiles, startup phases and the
JFR metrics table, loaded once for the HTML page, the terminal and JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jvmlab.profile import ProfileDiff
from jvmlab.report.flame import CellProfiles, diff_rows, flame_figures, load_profiles, profile_diffs
from jvmlab.report.startup import phase_means, startup_figure


@dataclass
class WhyPart:
    profiles: CellProfiles
    diffs: list[ProfileDiff]
    startup: dict[str, tuple[float | None, ...]] = field(default_factory=dict)

    def empty(self) -> bool:
        return not self.profiles.has_any() and not self.startup

    def to_json(self) -> dict[str, Any]:
        return {"profile_diffs": [d.to_json() for d in self.diffs],
                "startup_phases_s": {cell: dict(zip(("jvm_init", "init_to_main", "main_to_ready"), v))
                                     for cell, v in self.startup.items()}}


def load_why(summary: Any, store: Any) -> WhyPart:
    """Profiles and startup phases of an experiment (empty when jfr/startup were off)."""
    cells = [cs.cell for cs in summary.cells]
    invocations = list(summary.invocations) or store.invocations(summary.experiment.id)
    profiles = load_profiles(store, cells, invocations, summary.baseline)
    return WhyPart(profiles, profile_diffs(profiles), phase_means(cells, invocations))


def why_context(part: WhyPart) -> dict[str, Any]:
    """Template values for ``_why.html.j2``."""
    from jvmlab.report.html import figure_entries

    if part.empty():
        return {"why": None}
    return {"why": {
        "flame_figures": figure_entries(flame_figures(part.profiles), "flame"),
        "startup_figures": figure_entries([startup_figure(part.startup)], "startup"),
        "diff_header": ["cell", "samples", "frame", "baseline share", "cell share", "change"],
        "diff_rows": diff_rows(part.diffs)}}


def why_json(summary: Any, store: Any) -> dict[str, Any]:
    """``{"why": {...}}`` for the JSON summary, or ``{}`` when jfr and startup were off."""
    part = load_why(summary, store)
    return {} if part.empty() else {"why": part.to_json()}


def render_why(summary: Any, store: Any, console: Any) -> None:
    """Terminal: startup phases per cell and the frames that grew/shrank most."""
    from rich.table import Table

    from jvmlab.report.flame import render_terminal

    part = load_why(summary, store)
    if part.startup:
        table = Table(title="Startup phases (mean, ms since JVM start)", title_justify="left")
        for col in ("cell", "JVM init", "init → main", "main → ready"):
            table.add_column(col, justify="left" if col == "cell" else "right")
        for cell, values in part.startup.items():
            table.add_row(cell, *("-" if v is None else f"{v * 1000:.1f}" for v in values))
        console.print(table)
    render_terminal(part.diffs, console)
