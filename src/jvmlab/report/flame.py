"""Flame graphs of each cell's JFR samples, and differential ones against the baseline.

A cell's profile is the merge of its measured invocations' ``jfr.profile`` documents
(execution samples; allocation samples weighted by bytes). The flame graph is a plotly
icicle (root at the top, as in a flame graph turned over) whose boxes are frames sized by
their share; the differential graph has the cell's boxes coloured by the change of their
share against the baseline (red grew, blue shrank; the number in percentage points is in
the label). Frames are HTML-escaped for plotly's label subset; the page escapes the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from jvmlab.analyze.bootstrap import rng_for
from jvmlab.model.stored import StoredCell
from jvmlab.profile.diff import FrameChange, ProfileDiff, diff_profiles, diff_tree
from jvmlab.profile.interval import share_change_interval
from jvmlab.profile.stacks import flame_tree, merge_stacks
from jvmlab.report.plots import esc
from jvmlab.results.why import InvocationProfile

KINDS = {"cpu": "execution samples", "alloc": "allocated bytes (allocation samples)"}
TOP_CHANGES = 5
SEED = 1  # fixed: the same store gives the same intervals
FLAME_HEIGHT = 520


@dataclass
class CellProfiles:
    """Merged stacks per cell name and kind, and the baseline's name."""

    baseline: str | None
    stacks: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)  # cell -> kind -> stacks
    runs: dict[str, dict[str, list[dict[str, float]]]] = field(default_factory=dict)  # per invocation
    invocations: dict[str, int] = field(default_factory=dict)


def merge_profiles(cells: list[StoredCell], profiles: Sequence[InvocationProfile],
                   baseline: str | None) -> CellProfiles:
    """Merge the loaded ``jfr.profile`` records of each cell's successful invocations."""
    out = CellProfiles(baseline)
    for cell in cells:
        mine = [p.stacks for p in profiles if p.cell_id == cell.id]
        if mine:
            out.stacks[cell.name] = {k: merge_stacks(dict(d.get(k) or {}) for d in mine) for k in KINDS}
            out.runs[cell.name] = {k: [dict(d.get(k) or {}) for d in mine] for k in KINDS}
            out.invocations[cell.name] = len(mine)
    return out


def profile_diffs(profiles: CellProfiles, top: int = TOP_CHANGES) -> list[ProfileDiff]:
    """Each non-baseline cell against the baseline, per kind that both have."""
    base = profiles.stacks.get(profiles.baseline or "")
    if not base:
        return []
    out = []
    for name, kinds in profiles.stacks.items():
        if name == profiles.baseline:
            continue
        for kind in KINDS:
            if base.get(kind) and kinds.get(kind):
                diff = diff_profiles(base[kind], kinds[kind], cell_name=name,
                                     baseline_name=profiles.baseline or "", kind=kind, top=top)
                out.append(_with_intervals(diff, profiles))
    return out


def _with_intervals(diff: ProfileDiff, profiles: CellProfiles) -> ProfileDiff:
    """The diff with a bootstrap interval (over invocations) on every change."""
    base_runs = profiles.runs.get(diff.baseline, {}).get(diff.kind, [])
    cell_runs = profiles.runs.get(diff.cell, {}).get(diff.kind, [])

    def one(change: FrameChange) -> FrameChange:
        rng = rng_for(SEED, diff.cell, diff.kind, change.frame)
        return replace(change, ci95=share_change_interval(base_runs, cell_runs, change.frame, rng))

    return replace(diff, grew=tuple(one(c) for c in diff.grew), shrank=tuple(one(c) for c in diff.shrank))


def _icicle(stacks: dict[str, float], title: str, colors: dict[str, float] | None = None) -> dict[str, Any] | None:
    nodes = flame_tree(stacks)
    if not nodes:
        return None
    labels, texts = [], []
    for n in nodes:
        labels.append(esc(n.frame))
        delta = colors.get(n.path, 0.0) if colors is not None else None
        texts.append(f"{n.share * 100:.1f}%" + ("" if delta is None else f" ({delta * 100:+.1f} pp)"))
    trace: dict[str, Any] = {
        "type": "icicle", "ids": [esc(n.path) for n in nodes], "parents": [esc(n.parent) for n in nodes],
        "labels": labels, "values": [n.weight for n in nodes], "branchvalues": "total", "text": texts,
        "textinfo": "label+text", "tiling": {"orientation": "v"}, "maxdepth": 12,
        "hovertemplate": "%{label}<br>%{text}<extra></extra>"}
    if colors is not None:
        values = [colors.get(n.path, 0.0) * 100 for n in nodes]
        bound = max(1.0, max(abs(v) for v in values))
        trace["marker"] = {"colors": values, "colorscale": "RdBu", "reversescale": False, "cmin": -bound,
                           "cmax": bound, "colorbar": {"title": {"text": "pp"}}, "cmid": 0}
    return {"data": [trace], "layout": {"title": {"text": esc(title), "font": {"size": 14}, "x": 0.01},
                                        "height": FLAME_HEIGHT, "margin": {"l": 8, "r": 8, "t": 40, "b": 8}}}


def flame_figures(profiles: CellProfiles) -> list[dict[str, Any]]:
    """One flame graph per cell and kind, then one differential graph per non-baseline cell and kind."""
    figs: list[dict[str, Any] | None] = []
    for name, kinds in profiles.stacks.items():
        for kind, label in KINDS.items():
            if kinds.get(kind):
                figs.append(_icicle(kinds[kind], f"{name}: {label}, {profiles.invocations[name]} invocations"))
    base = profiles.stacks.get(profiles.baseline or "", {})
    for name, kinds in profiles.stacks.items():
        if name == profiles.baseline:
            continue
        for kind, label in KINDS.items():
            if kinds.get(kind) and base.get(kind):
                figs.append(_icicle(kinds[kind], f"{name} vs {profiles.baseline}: {label}, red grew, blue shrank",
                                    diff_tree(base[kind], kinds[kind])))
    return [f for f in figs if f]


def change_text(change: FrameChange) -> str:
    """"+35.3 pp [+33.0 … +37.5]" (the 95% interval when each cell has two invocations or more)."""
    text = f"{change.delta * 100:+.1f} pp"
    if change.ci95 is not None:
        text += f" [{change.ci95[0] * 100:+.1f} … {change.ci95[1] * 100:+.1f}]"
    return text


def diff_rows(diffs: list[ProfileDiff]) -> list[list[str]]:
    """Table rows: cell, kind, frame, baseline share, cell share, change (grew first)."""
    rows = []
    for d in diffs:
        for change in [*d.grew, *d.shrank]:
            rows.append([d.cell, d.kind, change.frame, f"{change.base_share * 100:.1f}%",
                         f"{change.cell_share * 100:.1f}%", change_text(change)])
    return rows


def render_terminal(diffs: list[ProfileDiff], console: Any) -> None:
    """The frames that grew and shrank most, one table per cell and kind (rich console)."""
    from rich.table import Table

    for d in diffs:
        table = Table(title=f"{d.cell} vs {d.baseline}: {KINDS[d.kind]} (JFR), frames whose share changed most",
                      title_justify="left")
        table.add_column("frame", overflow="fold", ratio=1)
        for col in ("baseline", "cell", "change"):
            table.add_column(col, justify="right", no_wrap=True)
        for change in [*d.grew, *d.shrank]:
            table.add_row(change.frame, f"{change.base_share * 100:.1f}%", f"{change.cell_share * 100:.1f}%",
                          change_text(change))
        console.print(table)
