"""Small C sources built once with the system compiler into jvmlab's cache.

Why: two hot spots are a few dozen lines of C (the launch helper that forks the measured
command, and the GC log line pre-filter). Each is built on first use, keyed by its source's
hash so a changed source builds anew, and moved into place atomically so concurrent builds
lose nothing. Without a working compiler the caller gets None and takes its fallback path.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from jvmlab.paths import cache_root


def compiler() -> str | None:
    """``$CC``, else ``cc``, else ``gcc`` on PATH; None when there is none."""
    return os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")


def build(source: Path, folder: str, name: str, attempts: Sequence[Sequence[str]]) -> Path | None:
    """``cache/<folder>/<name>-<hash>`` built from ``source``: the first of ``attempts`` (extra
    compiler arguments, e.g. ``["-static"]`` then ``[]``) that compiles wins; None if none does."""
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    stem, dot, suffix = name.partition(".")
    target = cache_root() / folder / f"{stem}-{digest}{dot}{suffix}"
    if target.is_file() and os.access(target, os.R_OK):
        return target
    cc = compiler()
    if cc is None:
        return None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            built = Path(tmp) / name
            for extra in attempts:
                proc = subprocess.run([cc, "-O2", *extra, "-o", str(built), str(source)],
                                      capture_output=True, timeout=120, check=False)
                if proc.returncode == 0:
                    os.replace(built, target)  # atomic: a concurrent build loses nothing
                    return target
    except (OSError, subprocess.SubprocessError):
        return None
    return None
