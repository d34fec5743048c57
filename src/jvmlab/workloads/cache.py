"""Where compiled workloads live, and how a build is published without races.

Layout: ``<cache root>/workloads/<source hash>-r<release>/`` holding ``classes/`` (the
classpath), ``src/`` (the exact sources) and ``build.json`` (javac, release, argv). A build is
made in a hidden temporary directory next to it and renamed into place, so a reader never sees
half-written classes; a per-hash file lock (fcntl) keeps concurrent processes from compiling
the same thing twice.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from jvmlab import paths
from jvmlab.errors import UserError

LOCK_TIMEOUT_S = 900.0
_LOCK_POLL_S = 0.05


def workloads_dir(cache_root: Path | None) -> Path:
    """The ``workloads`` directory under the cache root (default: :func:`jvmlab.paths.cache_root`),
    created if needed."""
    path = (cache_root if cache_root is not None else paths.cache_root()) / "workloads"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the cache directory {path}: {exc.strerror}; "
                        f"set JVMLAB_CACHE_DIR to a writable directory") from exc
    return path


def build_dir(workloads: Path, source_hash: str, release: int) -> Path:
    return workloads / f"{source_hash}-r{release}"


def is_complete(build: Path, class_names: list[str]) -> bool:
    """A published build has build.json and every expected main class."""
    classes = build / "classes"
    return (build / "build.json").is_file() and all(
        (classes / f"{name}.class").is_file() for name in class_names)


@contextmanager
def locked(workloads: Path, source_hash: str) -> Iterator[None]:
    """Hold an exclusive lock for one source hash (blocks other processes and threads)."""
    lock_path = workloads / f".{source_hash}.lock"
    with open(lock_path, "a+b") as handle:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise UserError(f"waited {LOCK_TIMEOUT_S:.0f} s for another jvmlab to finish "
                                    f"compiling workloads (lock {lock_path}); retry when it is done") from None
                time.sleep(_LOCK_POLL_S)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def publish(tmp: Path, final: Path) -> Path:
    """Atomically rename a finished temporary build into place; keep an existing one."""
    try:
        os.rename(tmp, final)
    except OSError as exc:
        if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
            raise
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def discard(build: Path) -> None:
    """Remove a broken build: rename it aside first so no reader sees it half-deleted."""
    aside = build.with_name(f".trash-{build.name}-{os.getpid()}")
    try:
        os.rename(build, aside)
    except FileNotFoundError:
        return
    shutil.rmtree(aside, ignore_errors=True)
