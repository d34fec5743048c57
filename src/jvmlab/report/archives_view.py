"""The CDS/AOT archives jvmlab made before the run, as every report shows them.

Reads the experiment's "archives" document (one :class:`~jvmlab.model.documents.ArchiveRecord`
per cell): that an archive was built, its size, the training time, the training
run's warnings counted by kind, and the evidence that the measured runs use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from jvmlab.metrics import format_value
from jvmlab.model.documents import ArchiveRecord
from jvmlab.report.fit import Column, fitted_tables

HEADER = ("cell", "kind", "size", "training", "app classes from it", "training warnings")
TITLE = "Archives made before the run (CDS / AOT cache, one per cell)"


def _warnings(a: ArchiveRecord) -> str:
    if not a.warning_lines:
        return "none"
    shown = "; ".join(f"{g.count} x {g.text}" for g in a.warnings[:3])
    more = len(a.warnings) - 3
    return f"{a.warning_lines}: {shown}" + (f"; {more} more kind(s)" if more > 0 else "")


def rows(archives: Sequence[ArchiveRecord]) -> list[list[str]]:
    """One row per archive, in the order of ``HEADER``."""
    return [[a.cell, a.kind, format_value(float(a.size_bytes), "bytes"), f"{a.train_s:.1f} s",
             f"{a.app_classes_from_archive} of {a.app_classes_loaded} loaded", _warnings(a)] for a in archives]


def details(archives: Sequence[ArchiveRecord]) -> list[dict[str, Any]]:
    """Per archive: its path, logs, evidence line and every warning group with an example."""
    return [{"cell": a.cell, "kind": a.kind, "path": a.path, "evidence": a.evidence, "logs": list(a.logs),
             "check_s": f"{a.check_s:.1f} s",
             "warnings": [{"count": g.count, "text": g.text, "example": g.example} for g in a.warnings],
             "warning_lines": a.warning_lines} for a in archives]


def render(archives: Sequence[ArchiveRecord], console: Console) -> None:
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
        if a.evidence:
            console.print(Text(f"  {a.cell}: in use: {a.evidence}", style="dim"))
        style = "yellow" if a.warning_lines else "dim"
        console.print(Text(f"  {a.cell}: training warnings: {_warnings(a)}", style=style))
