"""Resolve one side of `jvmlab gc compare` into summary documents, one per JVM run.

A side is a GC log file, a folder of GC logs, or an experiment in the store (``3`` or
``3:cellname``), whose invocations each stored their log's summary as ``documents["gc"]``
(collect/gc.py). Anything else is a one-line UserError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jvmlab.errors import UserError

_EXPERIMENT = re.compile(r"^(?P<id>\d+)(?::(?P<cell>.+))?$")


@dataclass(frozen=True)
class Side:
    """The logs of one side: a label, one name and one summary document per log."""

    label: str
    names: list[str]
    docs: list[dict[str, Any]]
    skipped: list[str]


def _from_paths(label: str, files: list[Path]) -> Side:
    from jvmlab.gclog import analyze_paths
    from jvmlab.gclog.detect import detect_format

    readable: list[Path] = []
    skipped: list[str] = []
    for f in files:
        try:
            detect_format(f)
            readable.append(f)
        except UserError as err:
            skipped.append(str(err))
    if not readable:
        raise UserError(f"{label}: no GC log found ({len(files)} file(s) looked at); pass GC log files, "
                        f"a folder of them, or an experiment id")
    summaries = analyze_paths(readable)
    names = [s.files[0].name if len(s.files) == 1 else f"{s.files[0].name} (+{len(s.files) - 1})"
             for s in summaries]
    return Side(label, names, [s.to_json() for s in summaries], skipped)


def _from_experiment(label: str, exp_id: int, cell: str | None, store: str | None) -> Side:
    from jvmlab.store import open_store

    db = open_store(store, must_exist=True)
    try:
        db.experiment(exp_id)
    except (KeyError, LookupError, UserError) as err:
        raise UserError(f"{label}: no experiment {exp_id} in the store; `jvmlab results` lists them") from err
    cells = db.cells(exp_id)
    if cell is None and len(cells) > 1:
        cell_names = ", ".join(c.name for c in cells)
        raise UserError(f"{label}: experiment {exp_id} has {len(cells)} cells; name one as "
                        f"{exp_id}:CELL (cells: {cell_names})")
    chosen = [c for c in cells if cell is None or c.name == cell]
    if not chosen:
        raise UserError(f"{label}: experiment {exp_id} has no cell {cell!r} "
                        f"(cells: {', '.join(c.name for c in cells)})")
    ids = {c.id for c in chosen}
    invs = [i for i in db.invocations(exp_id) if i.cell_id in ids and i.status == "ok"]
    docs = db.documents([i.id for i in invs], "gc")
    names: list[str] = []
    kept: list[dict] = []
    skipped: list[str] = []
    for inv in invs:
        doc = docs.get(inv.id)
        if not isinstance(doc, dict) or doc.get("error") or "pauses" not in doc:
            skipped.append(f"invocation {inv.id}: no readable GC log stored")
            continue
        names.append(f"invocation {inv.id} (block {inv.block})")
        kept.append(doc)
    if not kept:
        raise UserError(f"{label}: experiment {exp_id} stored no GC log summaries (was the gc collector on?)")
    return Side(f"{label}", names, kept, skipped)


def resolve(arg: str, store: str | None) -> Side:
    """One side from a command-line argument."""
    path = Path(arg)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        return _from_paths(arg, files)
    if path.is_file():
        return _from_paths(arg, [path])
    m = _EXPERIMENT.match(arg)
    if m is not None:
        return _from_experiment(arg, int(m["id"]), m["cell"], store)
    raise UserError(f"{arg}: no such file or folder, and not an experiment id (N or N:CELL)")
