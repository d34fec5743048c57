"""A node's identity, taken on the node itself: its machine fingerprint (CPU model, kernel, THP,
governor, load) and the build of each JDK the spec names, so nodes whose JDK differs are refused.

A JDK may live elsewhere on a node: ``JVMLAB_JDK_MAP="/client/home=/node/home;..."`` in the
worker's environment maps the client's path to the node's. The build must still be the same.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jvmlab.machine.fingerprint import fingerprint, read_text

JDK_MAP_ENV = "JVMLAB_JDK_MAP"
BUILD_KEYS = ("JAVA_VERSION", "JAVA_RUNTIME_VERSION", "IMPLEMENTOR", "IMPLEMENTOR_VERSION", "JVM_VARIANT")


@dataclass(frozen=True)
class NodeCheck:
    """A node as seen by the client: its name (worker address), identity, and why it is refused."""

    name: str
    identity: dict[str, Any]
    refused: str | None


def jdk_map() -> dict[str, str]:
    """This node's client-path -> node-path JDK map (empty: the same paths)."""
    pairs = [item.split("=", 1) for item in os.environ.get(JDK_MAP_ENV, "").split(";") if "=" in item]
    return {a.strip(): b.strip() for a, b in pairs}


def jdk_build(home: Path) -> dict[str, str] | None:
    """The build a JDK's ``release`` file names (version, runtime version, vendor); None if unreadable."""
    text = read_text(home / "release")
    if text is None:
        return None
    values = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key in BUILD_KEYS:
            values[key] = value.strip().strip('"')
    return values


def node_identity(client_homes: list[str]) -> dict[str, Any]:
    """Runs on the node: fingerprint, CPU governor, load, and the JDK builds (keyed by client path)."""
    mapped = jdk_map()
    homes = {home: Path(mapped.get(home, home)) for home in client_homes}
    identity = fingerprint(list(homes.values()))
    identity["governor"] = read_text(Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"))
    try:
        identity["loadavg_1m"] = os.getloadavg()[0]
    except OSError:
        identity["loadavg_1m"] = None
    identity["host"] = socket.gethostname()
    identity["jdk_builds"] = {home: jdk_build(path) for home, path in homes.items()}
    identity["jdk_paths"] = {home: str(path) for home, path in homes.items()}
    return identity


def refusal(expected: dict[str, dict[str, str] | None], identity: dict[str, Any]) -> str | None:
    """Why a node cannot take part (its JDK is missing or another build), or None."""
    builds = identity.get("jdk_builds", {})
    for home, want in expected.items():
        got = builds.get(home)
        where = identity.get("jdk_paths", {}).get(home, home)
        if got is None:
            return f"JDK {home} not found on the node (no release file at {where})"
        if got != want:
            diff = ", ".join(f"{k} {got.get(k)!r} instead of {(want or {}).get(k)!r}"
                             for k in BUILD_KEYS if got.get(k) != (want or {}).get(k))
            return f"JDK {home} is another build on the node ({where}): {diff}"
    return None
