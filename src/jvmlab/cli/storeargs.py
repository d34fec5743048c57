"""The --store option's help and where a run's artifacts and provenance go.

Shared by `run`, `demo`, `tune`, `minheap`, `report`, `export` and `import`; kept apart from
``cmd_run.py`` so the other command modules need not import it (``cmd_run`` calls them).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from jvmlab.errors import hide_passwords

STORE_HELP = "Store URL (SQLAlchemy) or SQLite file path. Default: ./jvmlab.db or $JVMLAB_STORE."


def provenance_command_line() -> str:
    """How jvmlab was started, with the folder it was started in (relative paths depend on it);
    stored with the experiment and shown by `report`, so without any password."""
    return hide_passwords(f"cd {shlex.quote(os.getcwd())} && {shlex.join(['jvmlab', *sys.argv[1:]])}")


def default_artifacts(url: str) -> Path:
    """Beside an SQLite store (lab.db -> lab-artifacts/), else ./jvmlab-artifacts."""
    if url.startswith("sqlite:///"):
        db = Path(url.removeprefix("sqlite:///"))
        return db.with_name(db.stem + "-artifacts")
    return Path("jvmlab-artifacts")
