"""A machine fingerprint stored with every experiment and re-checked between blocks.

It names what changes results: kernel, CPU, memory, THP mode, and each JDK's identity
(a checksum of its ``release`` file and ``lib/modules``, so a JDK upgraded mid-run shows).
"""

from __future__ import annotations

import hashlib
import os
import platform
from pathlib import Path
from typing import Any

THP_DIR = Path("/sys/kernel/mm/transparent_hugepage")


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def thp_setting(name: str) -> str | None:
    """The selected value of a THP setting ("always [madvise] never" -> "madvise")."""
    raw = read_text(THP_DIR / name)
    if raw is None:
        return None
    for word in raw.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return raw


def cpu_model() -> str | None:
    raw = read_text(Path("/proc/cpuinfo"))
    for line in (raw or "").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or None


def meminfo(text: str | None = None) -> dict[str, int]:
    """/proc/meminfo as numbers: kB lines in bytes, counts (HugePages_*) as they are."""
    if text is None:
        text = read_text(Path("/proc/meminfo")) or ""
    out: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if not parts or not parts[0].isdigit():
            continue
        value = int(parts[0])
        out[key.strip()] = value * 1024 if len(parts) > 1 and parts[1] == "kB" else value
    return out


def jdk_checksum(home: Path) -> str:
    """sha256 of the release file plus size and mtime of lib/modules (cheap, catches upgrades)."""
    digest = hashlib.sha256()
    release = home / "release"
    try:
        digest.update(release.read_bytes())
    except OSError:
        digest.update(b"no-release")
    modules = home / "lib" / "modules"
    try:
        st = modules.stat()
        digest.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
    except OSError:
        digest.update(b"no-modules")
    return digest.hexdigest()[:16]


def fingerprint(jdk_homes: list[Path]) -> dict[str, Any]:
    """What this machine and these JDKs are, now."""
    uname = platform.uname()
    return {
        "hostname": uname.node,
        "kernel": f"{uname.system} {uname.release}",
        "arch": uname.machine,
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "mem_total_bytes": meminfo().get("MemTotal"),
        "thp_enabled": thp_setting("enabled"),
        "thp_defrag": thp_setting("defrag"),
        "python": platform.python_version(),
        "jdks": {str(home): jdk_checksum(home) for home in sorted(set(jdk_homes))},
    }


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Human-readable differences that matter for results (hostname aside)."""
    out = []
    for key in ("kernel", "arch", "cpu_model", "cpu_count", "mem_total_bytes", "thp_enabled", "thp_defrag"):
        if before.get(key) != after.get(key):
            out.append(f"{key} changed from {before.get(key)!r} to {after.get(key)!r}")
    old, new = before.get("jdks", {}), after.get("jdks", {})
    for home in sorted(set(old) & set(new)):
        if old[home] != new[home]:
            out.append(f"JDK at {home} changed (release/modules checksum {old[home]} -> {new[home]})")
    return out
