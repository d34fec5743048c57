"""Storage behind an interface chosen by URL (``sqlite:///lab.db``, ``postgresql://...``).

``open_store`` is the one place a backend is chosen; everything else names the
:class:`~jvmlab.store.protocol.Store` protocol. Every URL today is an SQLAlchemy URL (sqlite,
postgresql, ...), served by :class:`~jvmlab.store.sql.SqlStore`; a backend for another scheme
is chosen there too and must pass ``tests/store/test_store_contract.py``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.files import check_regular
from jvmlab.store.protocol import Store
from jvmlab.store.sql import SqlStore

DEFAULT_URL = "sqlite:///jvmlab.db"
MIN_FREE_BYTES = 32 << 20  # below this a run would soon fail to store what it measured


def store_url(value: str | None) -> str:
    """A --store value as an SQLAlchemy URL: a URL as is, a bare path as an SQLite file."""
    value = value or os.environ.get("JVMLAB_STORE") or DEFAULT_URL
    if "://" not in value:
        value = f"sqlite:///{Path(value).expanduser()}"
    if value.split("://", 1)[0].split("+", 1)[0] == "sqlite" and value.partition("?")[0].rstrip("/") in (
            "sqlite:", *(f"{value.split('://', 1)[0]}:{s}" for s in ("", "//:memory:", "///:memory:"))):
        raise UserError(f"--store {value}: an in-memory database; what is measured would be lost when jvmlab "
                        f"exits: give a file (--store lab.db)")
    return value


def check_store_location(value: str | None) -> str:
    """Fail early (before any JVM starts) when an SQLite store cannot be written; no file is made."""
    url = store_url(value)
    if url.startswith("sqlite:///"):
        _check_writable(Path(url.removeprefix("sqlite:///")))
    return url


def open_store(value: str | None, must_exist: bool = False) -> Store:
    """Open (creating if needed) the store; check an SQLite location is writable first."""
    url = store_url(value)
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        if must_exist and not path.exists():
            raise UserError(f"no store at {path}; run an experiment first or pass --store")
        _check_writable(path)
    return SqlStore(url)


def _check_writable(path: Path) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise UserError(f"store {path} is a folder; give a file name such as {path / 'jvmlab.db'}")
    check_regular(path, "store")  # a FIFO would block the open, a device read forever
    if path.exists():
        _check_sqlite_header(path)
        if not os.access(path, os.W_OK):
            raise UserError(f"store {path} is not writable; fix its permissions or pass another --store")
        check_free_space(folder, "store")
        return
    if not folder.exists():
        raise UserError(f"store folder {folder} does not exist; create it or pass another --store")
    if not os.access(folder, os.W_OK):
        raise UserError(f"cannot create store in {folder}: not writable; pass another --store")
    check_free_space(folder, "store")


SQLITE_HEADER = b"SQLite format 3\x00"


def _check_sqlite_header(path: Path) -> None:
    """An existing file that is not SQLite (a log given as --store) is refused before any work."""
    try:
        with path.open("rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except OSError as err:
        raise UserError(f"cannot read store {path}: {err.strerror}; pass another --store") from None
    if head and head != SQLITE_HEADER:
        raise UserError(f"store {path} is not an SQLite database (file is not a database); "
                        f"pass another --store (a new file name makes a new store)")


def check_free_space(folder: Path, what: str) -> None:
    """A nearly full disk is reported before anything runs, not after an hour of measuring."""
    free = shutil.disk_usage(folder).free
    if free < MIN_FREE_BYTES:
        raise UserError(f"the {what} location {folder} has only {free >> 20} MiB free (needs at least "
                        f"{MIN_FREE_BYTES >> 20} MiB); free some space or pass another location")
