"""Page-cache control for the ``page_cache = ["warm", "cold"]`` factor, without root.

Cold: ``posix_fadvise(POSIX_FADV_DONTNEED)`` on every file the JVM will read (the JDK home
tree, the workload's classpath or jar, CDS/AOT archives), then ``mincore`` on the biggest
of them says how much is still resident, so a failed eviction is reported, not assumed.
Pages mapped by a running process (another JVM using the same libjvm.so) cannot be dropped,
and files on tmpfs live in the page cache by nature: both are reported as they are.
Warm: every file read once, so the first invocation does not pay for disk reads.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
from dataclasses import dataclass
from pathlib import Path

MAX_FILES = 20_000  # a classpath folder with more files than this is not walked further
READ_CHUNK = 1 << 20
CHECKED_FILES = 2  # mincore on this many of the biggest files (lib/modules, libjvm.so)

_PROT_READ = 0x1
_MAP_SHARED = 0x01
_MAP_FAILED = ctypes.c_void_p(-1).value


@dataclass(frozen=True)
class Residency:
    """How much of one file is in the page cache (``share`` None: could not be measured)."""

    path: Path
    size_bytes: int
    share: float | None


@dataclass(frozen=True)
class EvictionReport:
    """What one cold eviction did."""

    evicted_files: int
    tmpfs_files: tuple[Path, ...]  # cannot be evicted: they live in RAM
    checked: tuple[Residency, ...]  # residency of the biggest files after eviction

    @property
    def worst(self) -> Residency | None:
        """The checked file most still cached (None: no share could be measured)."""
        return max((r for r in self.checked if r.share is not None), key=lambda r: r.share or 0.0, default=None)


def files_under(paths: list[Path]) -> list[Path]:
    """Regular files of these paths (folders walked, symlinks resolved, bounded), no duplicates."""
    seen: dict[str, Path] = {}
    for path in paths:
        if path.is_file():
            seen.setdefault(os.path.realpath(path), Path(os.path.realpath(path)))
            continue
        if not path.is_dir():
            continue
        for folder, _, names in os.walk(path, followlinks=False):
            for name in names:
                real = os.path.realpath(os.path.join(folder, name))
                if os.path.isfile(real):
                    seen.setdefault(real, Path(real))
                if len(seen) >= MAX_FILES:
                    return list(seen.values())
    return list(seen.values())


def evict(path: Path) -> bool:
    """Drop a file's clean pages from the page cache; False when the file cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        try:
            os.fdatasync(fd)  # dirty pages are never dropped; a just-written file has some
        except OSError:
            pass
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        return True
    finally:
        os.close(fd)


def warm(path: Path) -> int:
    """Read a file once so it is cached; returns bytes read."""
    total = 0
    try:
        with open(path, "rb", buffering=0) as handle:
            while chunk := handle.read(READ_CHUNK):
                total += len(chunk)
    except OSError:
        return total
    return total


def resident_share(path: Path) -> float | None:
    """Share of the file's pages in the page cache (mmap + mincore), None if unmeasurable."""
    libc = _libc()
    if libc is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return None
        addr = libc.mmap(None, size, _PROT_READ, _MAP_SHARED, fd, 0)
        if addr is None or addr == _MAP_FAILED:
            return None
        try:
            pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
            vec = (ctypes.c_ubyte * pages)()
            if libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec) != 0:
                return None
            return sum(b & 1 for b in vec) / pages
        finally:
            libc.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(size))
    finally:
        os.close(fd)


def biggest(files: list[Path], count: int = CHECKED_FILES) -> list[Path]:
    sized = []
    for f in files:
        try:
            sized.append((f.stat().st_size, f))
        except OSError:
            continue
    return [f for _, f in sorted(sized, key=lambda sf: (-sf[0], str(sf[1])))[:count]]


def evict_all(files: list[Path], is_tmpfs: dict[Path, bool]) -> EvictionReport:
    """Evict every file not on tmpfs, then measure residency of the biggest evicted ones."""
    evicted, on_tmpfs = [], []
    for f in files:
        if is_tmpfs.get(f, False):
            on_tmpfs.append(f)
        elif evict(f):
            evicted.append(f)
    checked = tuple(Residency(f, f.stat().st_size, resident_share(f)) for f in biggest(evicted))
    return EvictionReport(len(evicted), tuple(on_tmpfs), checked)


_LIBC: ctypes.CDLL | None = None


def _libc() -> ctypes.CDLL | None:
    global _LIBC
    if _LIBC is None:
        name = ctypes.util.find_library("c")
        if name is None:
            return None
        lib = ctypes.CDLL(name, use_errno=True)
        lib.mmap.restype = ctypes.c_void_p
        lib.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                             ctypes.c_long]
        lib.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        lib.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        _LIBC = lib
    return _LIBC
