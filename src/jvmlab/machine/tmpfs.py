"""A JDK copied to tmpfs (RAM), for the ``jdk_location = ["disk", "tmpfs"]`` factor.

The copy is made once per JDK (keyed by its home and its release/modules checksum, so a
second experiment finds and reuses a kept copy) with symlinks resolved, so the copy does
not read anything from disk; dangling links are skipped. Copies made by this run are
removed at the end unless the spec asks to keep them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.machine.fingerprint import jdk_checksum, read_text

COMPLETE_MARK = ".jvmlab-complete"  # written last: a copy without it is half made
PREFIX = "jvmlab-jdk-"
HEADROOM_BYTES = 64 << 20  # leave this much free on the tmpfs after copying
MAX_DEPTH = 40  # symlinked folders are followed; this bounds a loop we failed to see


@dataclass(frozen=True)
class Mount:
    """One line of /proc/mounts."""

    device: str
    mount_point: Path
    fs_type: str


@dataclass(frozen=True)
class TmpfsCopy:
    """A JDK home copied to tmpfs; ``created`` is False when an earlier copy was reused."""

    home: Path
    size_bytes: int
    created: bool


def mounts(text: str | None = None) -> list[Mount]:
    """Parse /proc/mounts (octal escapes such as ``\\040`` for spaces decoded)."""
    text = read_text(Path("/proc/mounts")) if text is None else text
    out = []
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) >= 3:
            point = parts[1].encode().decode("unicode_escape")
            out.append(Mount(parts[0], Path(point), parts[2]))
    return out


def mount_of(path: Path, table: list[Mount] | None = None) -> Mount | None:
    """The mount holding ``path``: the longest mount point that is a prefix of it (last wins)."""
    real = Path(os.path.realpath(path))
    best: Mount | None = None
    for mount in table if table is not None else mounts():
        inside = real == mount.mount_point or mount.mount_point in real.parents
        if inside and (best is None or len(mount.mount_point.parts) >= len(best.mount_point.parts)):
            best = mount
    return best


def is_tmpfs(path: Path) -> bool:
    mount = mount_of(path)
    return mount is not None and mount.fs_type == "tmpfs"


def free_bytes(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def copy_dir_for(home: Path, tmpfs_dir: Path) -> Path:
    """Names the copy: the same JDK (same path, same release and modules) finds the same copy."""
    digest = hashlib.sha256(f"{Path(home).resolve()}\0{jdk_checksum(home)}".encode()).hexdigest()
    return tmpfs_dir / f"{PREFIX}{Path(home).resolve().name}-{digest[:12]}"


def tree_size_bytes(root: Path) -> int:
    """Bytes the copy will take (symlinks resolved, dangling ones skipped)."""
    return sum(size for _, _, size in _walk(Path(root)))


def check_target(tmpfs_dir: Path, need_bytes: int) -> None:
    """The target must exist, really be tmpfs, and have room; else say what to do."""
    if not tmpfs_dir.is_dir():
        raise UserError(f"[environment] tmpfs_dir {tmpfs_dir} does not exist; create it or use /dev/shm")
    mount = mount_of(tmpfs_dir)
    if mount is None or mount.fs_type != "tmpfs":
        kind = mount.fs_type if mount else "unknown"
        raise UserError(f"[environment] tmpfs_dir {tmpfs_dir} is on a {kind} file system, not tmpfs "
                        f"(see /proc/mounts); use /dev/shm or mount one: mount -t tmpfs -o size=1g tmpfs DIR")
    free = free_bytes(tmpfs_dir)
    if free < need_bytes + HEADROOM_BYTES:
        raise UserError(f"[environment] tmpfs {tmpfs_dir} has {free >> 20} MiB free but the JDK copy needs "
                        f"{need_bytes >> 20} MiB (+{HEADROOM_BYTES >> 20} MiB headroom); "
                        f"free some or use a bigger mount")


def ensure_copy(home: Path, tmpfs_dir: Path) -> TmpfsCopy:
    """Copy ``home`` to tmpfs once; reuse a complete earlier copy of the same JDK."""
    home = Path(home).resolve()
    target = copy_dir_for(home, tmpfs_dir)
    if (target / COMPLETE_MARK).is_file():
        return TmpfsCopy(target, tree_size_bytes(target), created=False)
    size = tree_size_bytes(home)
    check_target(tmpfs_dir, size)
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        _copy_tree(home, partial)
        (partial / COMPLETE_MARK).write_text(f"{home}\n", encoding="utf-8")
        if target.exists():  # a half-made copy from a crashed run
            shutil.rmtree(target)
        partial.rename(target)
    except OSError as err:
        shutil.rmtree(partial, ignore_errors=True)
        raise UserError(f"copying {home} to {tmpfs_dir} failed: {err}; check free space on the tmpfs") from None
    return TmpfsCopy(target, size, created=True)


def remove_copy(copy: TmpfsCopy) -> None:
    """Remove a copy (only ever one under a jvmlab-jdk- folder name, as a safety net)."""
    if copy.home.name.startswith(PREFIX):
        shutil.rmtree(copy.home, ignore_errors=True)


def _walk(root: Path) -> list[tuple[Path, Path, int]]:
    """(relative path, real source file, size) of every file reachable under root."""
    out: list[tuple[Path, Path, int]] = []
    stack: list[tuple[Path, Path, frozenset[str]]] = [(root, Path("."), frozenset())]
    while stack:
        folder, rel, ancestors = stack.pop()
        real_folder = os.path.realpath(folder)
        if real_folder in ancestors or len(ancestors) > MAX_DEPTH:  # a symlink loop
            continue
        inside = ancestors | {real_folder}
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            try:
                if entry.is_dir(follow_symlinks=True):
                    stack.append((path, rel / entry.name, inside))
                elif entry.is_file(follow_symlinks=True):
                    out.append((rel / entry.name, Path(os.path.realpath(path)), entry.stat().st_size))
            except OSError:  # dangling link or unreadable: skipped
                continue
    return out


def _copy_tree(source: Path, dest: Path) -> None:
    dest.mkdir(parents=True)
    for rel, real, _ in _walk(source):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(real, target)  # keeps mode (bin/java executable) and mtime (CDS checks it)
