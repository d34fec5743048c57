"""The settings files the JFR collector records with.

``default`` is jvmlab's own: the cell JDK's ``lib/jfr/default.jfc`` with the two execution
samplers (``jdk.ExecutionSample``, ``jdk.NativeMethodSample``) every 100 ms instead of 20 ms,
everything else exactly as the JDK ships it. ``bench/jfr_overhead.py`` located the stock
profile's 2-3% throughput cost on a workload that keeps every core busy in the 20-ms sampler
(without it: -0.5% [-1.7, +0.6]); with this file, inside one JVM, the cost was -0.95%
[-2.1, +0.2] on JDK 17 and 0.01% [-2.0, +1.9] on JDK 25, with a fifth of the CPU samples
(``docs/jfr.md``). ``jdk-default`` is the JDK's own file, by name, for those
who want 20-ms stacks; ``profile`` is the JDK's ``profile`` (10-ms sampler, more events).

The derived file is written once per distinct source file into jvmlab's cache
(``<cache>/jfr/default-sampler100-<sha of the source>.jfc``, atomically: workers on one
machine may race) and named by its absolute path in ``-XX:StartFlightRecording:settings=``
(JDK 11+ reads a settings file by path). A JDK without ``lib/jfr/default.jfc``, or a cache
that cannot be written, records with the JDK's ``default`` by name and says so.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from jvmlab.paths import cache_root

# event name, its ``control`` attribute (None when it has none) -> True to switch the event off
EventFilter = Callable[[str, str | None], bool]

SETTINGS = ("default", "jdk-default", "profile")  # also the registry's choices (collect/registry.py)
SAMPLER_PERIOD = "100 ms"
SAMPLERS = ("jdk.ExecutionSample", "jdk.NativeMethodSample")
DERIVED_NAME = "default-sampler100"


@dataclass(frozen=True)
class JfrSettings:
    """What ``settings=`` names (a JDK profile's name or an absolute file path) and how it was chosen."""

    name: str  # the collector's setting: default, profile or jdk-default
    argument: str  # the value of settings= on the JVM's command line
    file: Path | None = None  # the derived file, when one is used
    note: str = ""  # why the JDK's own file is used instead of the derived one


def never(name: str, control: str | None) -> bool:
    """An :data:`EventFilter` that switches nothing off."""
    return False


def derive_jfc(source: Path, out: Path, off: EventFilter = never, periods: dict[str, str] | None = None) -> Path:
    """A copy of the settings file ``source`` with ``enabled=false`` for each event ``off`` picks
    and the ``period`` of each event in ``periods`` replaced; ``out`` (absolute), written once
    and atomically (a reader never sees half a file). The ``control`` links stay: the JVM reads
    only the settings."""
    if out.is_file():
        return out.resolve()
    tree = ET.parse(source)
    for event in tree.getroot().iter("event"):
        name = event.get("name", "")
        enabled = next((s for s in event.iter("setting") if s.get("name") == "enabled"), None)
        if enabled is not None and off(name, enabled.get("control")):
            enabled.text = "false"
        period = next((s for s in event.iter("setting") if s.get("name") == "period"), None)
        if period is not None and periods and name in periods:
            period.text = periods[name]
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=out.name, suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            tree.write(handle, encoding="UTF-8", xml_declaration=True)
        os.replace(tmp, out)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return out.resolve()


def sampler_periods() -> dict[str, str]:
    """The period jvmlab's ``default`` gives each execution sampler."""
    return dict.fromkeys(SAMPLERS, SAMPLER_PERIOD)


@lru_cache(maxsize=64)
def _source_digest(source: str, mtime_ns: int, size: int) -> str:
    """The first 16 hex digits of the source file's SHA-256 (read once per file version)."""
    return hashlib.sha256(Path(source).read_bytes()).hexdigest()[:16]


def resolve_settings(name: str, jdk_home: Path, cache: Path | None = None) -> JfrSettings:
    """The ``settings=`` value for the collector's setting ``name`` on the JDK at ``jdk_home``."""
    if name == "profile":
        return JfrSettings(name, "profile")
    if name == "jdk-default":
        return JfrSettings(name, "default")
    source = jdk_home / "lib" / "jfr" / "default.jfc"
    if not source.is_file():
        return JfrSettings(name, "default", note=f"{source} is missing: the JDK's default by name (20-ms sampler)")
    folder = ((cache or cache_root()) / "jfr").resolve()
    try:
        stat = source.stat()
        digest = _source_digest(str(source), stat.st_mtime_ns, stat.st_size)
        file = derive_jfc(source, folder / f"{DERIVED_NAME}-{digest}.jfc", never, sampler_periods())
    except (OSError, ET.ParseError) as err:
        return JfrSettings(name, "default", note=f"cannot derive {DERIVED_NAME}.jfc ({err}): the JDK's default "
                                                 f"by name (20-ms sampler)")
    return JfrSettings(name, str(file), file=file)
