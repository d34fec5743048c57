"""An SQLite store's file, watched while jvmlab writes to it.

A hook (or any other program) that deletes or replaces the store's file while a run writes to
it left jvmlab writing into the deleted file through its open connection: the run ended with
exit 0 and the store on disk was empty or another one. The file's identity (device, inode and
the store's own id: when its schema was made) is taken when the store is opened and compared
with what the path names after each commit. While jvmlab holds the file open its inode cannot
be reused, so a deleted or replaced file shows as another identity (or none): the command
stops with the one-line store error (:class:`~jvmlab.errors.StoreLost`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event

from jvmlab.errors import StoreLost


def _identity(path: Path) -> tuple[int, int, float | None] | None:
    """(device, inode, the store's own id), None when nothing is there. The id is when its
    schema was first made (``schema_version``), read through a connection of its own: a file
    copied over the store in place keeps the inode but not the id."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)) as conn:
            row = conn.execute("select min(applied_at) from schema_version").fetchone()
    except sqlite3.Error:
        row = None  # not a store (an empty file put in its place)
    return (st.st_dev, st.st_ino, row[0] if row else None)


def watch_file(engine: Engine, path: Path) -> None:
    """After each commit on ``engine``, check that ``path`` is still the file it opened."""
    opened = _identity(path)
    if opened is None:
        return

    def check(_conn: Any) -> None:
        now = _identity(path)
        if now != opened:
            what = "deleted" if now is None else "replaced by another file"
            raise StoreLost(f"store {path} was {what} while jvmlab wrote to it (by a hook or another program): "
                             f"what was written since is not in it; keep the store out of the hooks' reach and "
                             f"run again")

    event.listen(engine, "commit", check)
