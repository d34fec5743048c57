"""The CDS/AOT archives jvmlab made before the run, as every report shows them.

Reads the experiment's "archives" document (one :class:`~jvmlab.plan.prepare.ArchiveRecord`
per cell, as JSON): that an archive was built, its size, the training time, the training
run's warnings counted by kind, and the evidence that the measured runs use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from jvmlab.metrics import format_value
from jvmlab.report.fit import Column, fitted_tables

HEADER = ("cell", "kind", "size", "training", "app classes from it", "training warnings")
TITLE = "Archives made before the run (CDS / AOT cache, one per cell)"


def _warnings(doc: dict[str, Any]) -> str:
    total = int(doc.get("warning_lines") or 0)
    if not total:
        return "none"
    groups = doc.get("warnings") or []
    shown = "; ".join(f"{g['count']} x {g['text']}" for g in groups[:3])
    more = len(groups) - 3
    return f"{total}: {shown}" + (f"; {more} more kind(s)" if more > 0 else "")


def _used(doc: dict[str, Any]) -> str:
    return f"{doc.get('app_classes_from_archive', 0)} of {doc.get('app_classes_loaded', 0)} loaded"


def rows(archives: Sequence[dict[str, Any]]) -> list[list[str]]:
    """One row per archive, in the order of ``HEADER``."""
    return [[str(a.get("cell", "?")), str(a.get("kind", "?")), format_value(float(a.get("size_bytes") or 0), "bytes"),
             f"{float(a.get('train_s') or 0):.1f} s", _used(a), _warnings(a)] for a in archives]


def details(archives: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per archive: its path, logs, evidence line and every warning group with an example."""
    return [{"cell": a.get("cell", "?"), "kind": a.get("kind", "?"), "path": a.get("path", ""),
             "evidence": a.get("evidence", ""), "logs": list(a.get("logs") or []),
             "check_s": f"{float(a.get('check_s') or 0):.1f} s",
             "warnings": [{"count": g.get("count"), "text": g.get("text"), "example": g.get("example")}
                          for g in a.get("warnings") or []],
             "warning_lines": a.get("warning_lines", 0)} for a in archives]


def render(archives: Sequence[dict[str, Any]], console: Console) -> None:
    """The archives table (stacked to fit the width), then per archive its evidence line
    and its training warnings counted by kind (these can be long, so not a column)."""
    if not archives:
        return
    table_rows = rows(archives)
    key = Column(HEADER[0], [r[0] for r in table_rows], "left")
    columns = [Column(h, [r[k] for r in table_rows], "left") for k, h in enumerate(HEADER[:-1]) if k]
    for table in fitted_tables(key, columns, console.width, TITLE):
        console.print(table)
    for a in archives:
        cell = a.get("cell")
        if a.get("evidence"):
            console.print(Text(f"  {cell}: in use: {a.get('evidence')}", style="dim"))
        total = int(a.get("warning_lines") or 0)
        console.print(Text(f"  {cell}: training warnings: {_warnings(a)}", style="yellow" if total else "dim"))
