"""Which scenario's verdict reads a Summary, and a generic one for anything else."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from jvmlab.analyze.smallsample import MEAN_BCA_FROM_N
from jvmlab.scenarios import cds, gc, jmh, largepages, pretouch, ramdisk, server
from jvmlab.scenarios.table import ScenarioVerdict

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary

VERDICTS: dict[str, Callable[[Any], ScenarioVerdict | str]] = {
    "pretouch": pretouch.verdict, "largepages": largepages.verdict, "gc": gc.verdict,
    "cds": cds.verdict, "ramdisk": ramdisk.verdict, "jmh": jmh.verdict, "server": server.verdict}
NAME_PREFIX = "demo "


def scenario_of(summary: Summary) -> str | None:
    """"demo cds: hello x ..." -> "cds" (the names scenario specs are given)."""
    name = summary.experiment.name or ""
    if not name.startswith(NAME_PREFIX):
        return None
    return name.removeprefix(NAME_PREFIX).split(":", 1)[0].strip()


def verdict_for(name: str, summary: Summary) -> ScenarioVerdict | str:
    if name in ("all", "default") or (name not in VERDICTS and name != "minecraft"):
        name = scenario_of(summary) or name
    if name == "minecraft":
        return _small_sample_note(gc.verdict(summary, unit="chunks/s (Minestom)"), summary)
    fn = VERDICTS.get(name)
    return _small_sample_note(fn(summary), summary) if fn is not None else generic(summary)


def _small_sample_note(v: ScenarioVerdict | str, summary: Summary) -> ScenarioVerdict | str:
    """Say under the table when its intervals come from too few invocations to be bootstrap ones."""
    if isinstance(v, str):  # a verdict in prose (jmh) carries its own wording
        return v
    counts = [n for cs in summary.cells if (n := getattr(cs, "n", None))]
    if not counts or min(counts) >= MEAN_BCA_FROM_N:
        return v
    return replace(v, notes=(*v.notes, f"only {min(counts)} invocation(s) in some cells: below {MEAN_BCA_FROM_N} "
                                        "per cell the intervals are wider small-sample t intervals (approximate)"))


def generic(summary: Summary) -> str:
    """The Summary's own comparison sentences, joined."""
    if not summary.verdicts:
        return "Only one cell: nothing to compare."
    return " ".join(f"{cell}: {text}" for cell, text in summary.verdicts.items())
