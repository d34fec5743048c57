"""Per-JDK cache of identification results, so repeated ``discover()`` starts no JVM.

One JSON file (``jdks.json``) in ``$JVMLAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/jvmlab``,
else ``~/.cache/jvmlab``. Each entry is keyed by the JDK home's real path and carries a
fingerprint of the ``release`` file (size, mtime_ns, sha256) and of the ``java`` binary
(real path, size, mtime_ns): an upgraded JDK gets a new fingerprint and is probed again.
Writes go to a temporary file that is renamed over the old one, so readers never see half a
file; a corrupt or foreign file is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from jvmlab.paths import cache_root

CACHE_FORMAT = 1
CACHE_FILE = "jdks.json"

_LOCK = threading.Lock()  # check_many() and GC probes run in threads of one process


def fingerprint(home: Path) -> dict[str, Any] | None:
    """What must stay the same for a cached result to remain valid; None if there is no java."""
    java = home / "bin" / "java"
    try:
        java_stat = java.stat()
    except OSError:
        return None
    return {
        "java": [str(java.resolve()), java_stat.st_size, java_stat.st_mtime_ns],
        "release": _release_fingerprint(home / "release"),
    }


def _release_fingerprint(release: Path) -> list[Any] | None:
    try:
        data = release.read_bytes()
        stat = release.stat()
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns, hashlib.sha256(data).hexdigest()]


class JdkCache:
    """Read and write cached facts (``kind`` such as "info" or "flag_names") per JDK home."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = cache_root() if directory is None else directory

    @property
    def path(self) -> Path:
        return self.directory / CACHE_FILE

    def get(self, home: Path, kind: str) -> Any | None:
        """The cached value, or None when absent, stale or unreadable."""
        key = str(home.resolve())
        current = fingerprint(Path(key))
        if current is None:
            return None
        with _LOCK:
            entry = self._load().get(key)
        if not isinstance(entry, dict) or entry.get("fingerprint") != current:
            return None
        return entry.get(kind)

    def put(self, home: Path, kind: str, value: Any) -> None:
        """Store a value; an entry with an old fingerprint is replaced as a whole."""
        key = str(home.resolve())
        current = fingerprint(Path(key))
        if current is None:
            return
        with _LOCK:
            entries = self._load()
            entry = entries.get(key)
            if not isinstance(entry, dict) or entry.get("fingerprint") != current:
                entry = {"fingerprint": current}
            entry[kind] = value
            entries[key] = entry
            self._save(entries)

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
            return {}
        entries = data.get("jdks")
        return entries if isinstance(entries, dict) else {}

    def _save(self, entries: dict[str, Any]) -> None:
        """Write atomically; a cache that cannot be written only costs speed, never a failure."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".jdks-", suffix=".tmp", dir=self.directory)
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"format": CACHE_FORMAT, "jdks": entries}, out, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError:
            Path(tmp).unlink(missing_ok=True)
