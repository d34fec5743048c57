"""Where jvmlab keeps its caches (compiled workloads, JDK identities, tools)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def cache_root(env: Mapping[str, str] | None = None) -> Path:
    """``$JVMLAB_CACHE_DIR``, else ``$XDG_CACHE_HOME/jvmlab``, else ``~/.cache/jvmlab``.

    Empty variables count as unset; a relative XDG_CACHE_HOME is ignored, as the XDG spec says.
    """
    env = os.environ if env is None else env
    explicit = env.get("JVMLAB_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = env.get("XDG_CACHE_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "jvmlab"
    return Path.home() / ".cache" / "jvmlab"
