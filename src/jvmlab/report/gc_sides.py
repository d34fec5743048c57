"""Resolve one side of `jvmlab gc compare` into summary documents, one per JVM run.

A side is a GC log file, a folder of GC logs, or an experiment in the store (``3`` or
``3:cellname``), whose invocations each stored their log's summary in their ``gc`` document
(``GcDocument.summary``, collect/gc.py). Anything else is a one-line UserError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jvmlab.errors import UserError
from jvmlab.gclog.points import GcLogView

_EXPERIMENT = re.compile(r"^(?P<id>\d+)(?::(?P<cell>.+))?$")


@dataclass(frozen=True)
class Side:
    """The logs of one side: a label, one name and one summary document per log."""

    label: str
    names: list[str]
    docs: list[dict[str, Any]]
    skipped: list[str]
    views: list[GcLogView] = field(default_factory=list)  # stored sides: one per log (series when asked)


def _from_paths(label: str, files: list[Path]) -> Side:
    from jvmlab.files import check_regular
    from jvmlab.gclog import analyze_paths
    from jvmlab.gclog.detect import detect_format
    from jvmlab.gclog.points import log_name

    readable: list[Path] = []
    skipped: list[str] = []
    for f in files:
        check_regular(f, "GC log")  # said as such, not as "no GC log found"
        try:
            detect_format(f)
            readable.append(f)
        except UserError as err:
            skipped.append(str(err))
    if not readable:
        raise UserError(f"{label}: no GC log found ({len(files)} file(s) looked at); pass GC log files, "
                        f"a folder of them, or an experiment id")
    summaries = analyze_paths(readable)
    names = [log_name(s.files) for s in summaries]  # the same column names as `gc analyze`
    from jvmlab.gclog.findings import summary_document

    return Side(label, names, [summary_document(s) for s in summaries], skipped)


def _from_experiment(label: str, exp_id: int, cell: str | None, store: str | None,
                     with_series: bool = False) -> Side:
    from jvmlab.store import open_store

    db = open_store(store, must_exist=True)
    try:
        db.experiment(exp_id)
    except (KeyError, LookupError, UserError) as err:
        raise UserError(f"{label}: no experiment {exp_id} in the store; `jvmlab results` lists them") from err
    cells = db.cells(exp_id)
    if cell is None and len(cells) > 1:
        listed = ", ".join(c.name for c in cells)
        raise UserError(f"{label}: experiment {exp_id} has {len(cells)} cells; name one as "
                        f"{exp_id}:CELL (cells: {listed})")
    chosen = [c for c in cells if cell is None or c.name == cell]
    if not chosen:
        raise UserError(f"{label}: experiment {exp_id} has no cell {cell!r} "
                        f"(cells: {', '.join(c.name for c in cells)})")
    ids = {c.id for c in chosen}
    invs = [i for i in db.invocations(exp_id) if i.cell_id in ids and i.status == "ok"]
    from jvmlab.model.documents import GcDocument

    docs = db.records([i.id for i in invs], GcDocument)
    names: list[str] = []
    kept: list[dict[str, Any]] = []
    skipped: list[str] = []
    inv_ids: list[int] = []
    for inv in invs:
        doc = docs.get(inv.id)
        if doc is None or not doc.readable:
            skipped.append(f"invocation {inv.id}: no readable GC log stored")
            continue
        names.append(f"invocation {inv.id} (block {inv.block})")
        kept.append(doc.summary)
        inv_ids.append(inv.id)
    if not kept:
        raise UserError(f"{label}: experiment {exp_id} stored no GC log summaries (was the gc collector on?)")
    from jvmlab.gclog.points import view_of_stored

    series = db.timelines(inv_ids) if with_series else {}  # the page's plots: the pause and heap timelines
    views = [view_of_stored(name, doc, {k: (t, v) for k, (_, t, v) in series.get(i, {}).items()
                                        if k in ("gc.pause_ms", "gc.heap_after_mb")})
             for name, doc, i in zip(names, kept, inv_ids, strict=True)]
    return Side(f"{label}", names, kept, skipped, views)


def analyze_views(args: list[str], store: str | None, with_series: bool = False) -> list[GcLogView]:
    """`gc analyze` inputs: GC log files (analyzed now) and stored experiments (N or N:CELL,
    one view per invocation from its stored summary and timelines; no log file is opened)."""
    from jvmlab.gclog import analyze_paths
    from jvmlab.gclog.points import view_of

    views: list[GcLogView] = []
    files: list[Path] = []
    at = 0  # the analyzed files take the place of the first file argument (rotated sets span files)
    for arg in args:
        m = _EXPERIMENT.match(arg)
        if m is not None and not Path(arg).exists():
            views += _from_experiment(arg, int(m["id"]), m["cell"], store, with_series=with_series).views
        else:
            at = len(views) if not files else at
            files.append(Path(arg))
    if files:
        views[at:at] = [view_of(s, with_points=with_series) for s in analyze_paths(files)]
    return views


def resolve(arg: str, store: str | None) -> Side:
    """One side from a command-line argument."""
    path = Path(arg)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        return _from_paths(arg, files)
    if path.exists():  # a file (a FIFO or a device is refused by the reader, in one line)
        return _from_paths(arg, [path])
    m = _EXPERIMENT.match(arg)
    if m is not None:
        return _from_experiment(arg, int(m["id"]), m["cell"], store)
    raise UserError(f"{arg}: no such file or folder, and not an experiment id (N or N:CELL)")
