"""When two configurations are the same JVM: compared by their effective flags.

``-XX:-AlwaysPreTouch`` is what the JDK does anyway, ``-Xmx1g`` is ``-Xmx1024m`` is
``-XX:MaxHeapSize=1g``, and ``-XX:+UseG1GC`` is the default collector on a server-class
machine. The tuner must not race such a candidate against the baseline (or against one it
already tried): it would spend blocks measuring the noise between a configuration and itself.

Each JDK's defaults are read once per run with ``-XX:+PrintFlagsFinal`` (diagnostic and
experimental flags unlocked, so every flag a configuration may set is in the table). A
configuration's identity is its JDK plus every ``-XX`` (and heap size) setting whose value
differs from that table, in name order, plus its other options as given (``-Xlog:``, ``-D``...,
which the table does not show). A JDK without the table (OpenJ9) is compared on the
normalised flags alone.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from jvmlab.jdk.flagerrors import UNLOCK_DIAGNOSTIC, UNLOCK_EXPERIMENTAL
from jvmlab.jdk.flagtable import parse_flags_final
from jvmlab.jdk.proc import run_java
from jvmlab.model.jdk import JdkInfo
from jvmlab.spec.durations import parse_size_bytes
from jvmlab.tune.model import Config

TABLE_TIMEOUT_S = 60.0
_XX = re.compile(r"^-XX:(?:(?P<sign>[+-])(?P<bool>\w+)|(?P<name>\w+)=(?P<value>.*))$")
_HEAP = {"-Xmx": "MaxHeapSize", "-Xms": "InitialHeapSize"}
_UNLOCKS = ("UnlockDiagnosticVMOptions", "UnlockExperimentalVMOptions")  # change no behaviour by themselves
_SIZE_TYPES = ("size_t", "uintx", "uint64_t", "intx")


def defaults_table(jdk: JdkInfo) -> dict[str, str]:
    """Every flag's default value on this JDK and machine (ergonomics included); {} when the
    JVM prints no table or does not answer in time."""
    args = [UNLOCK_DIAGNOSTIC, UNLOCK_EXPERIMENTAL, "-XX:+PrintFlagsFinal", "-version"]
    with tempfile.TemporaryDirectory(prefix="jvmlab-defaults-") as scratch:
        run = run_java(jdk.java, args, timeout_s=TABLE_TIMEOUT_S, cwd=Path(scratch))
    rows = parse_flags_final(run.stdout) if run.ok else {}
    return {name: _plain(row.value, row.type) for name, row in rows.items()}


def _plain(value: str, kind: str = "") -> str:
    """One spelling per value: booleans lower-case, sizes in bytes, numbers without padding."""
    text = value.strip()
    if text.lower() in ("true", "false"):
        return text.lower()
    if kind in _SIZE_TYPES or not kind:
        try:
            return str(parse_size_bytes(text))
        except ValueError:
            pass
    return text


def effective_flags(flags: Sequence[str], defaults: dict[str, str]) -> tuple[str, ...]:
    """The settings in ``flags`` that change something: ``Name=value`` for table flags that differ
    from ``defaults`` (the last setting of a name wins), sorted; then the other options as given."""
    settings: dict[str, str] = {}
    others: list[str] = []
    for flag in flags:
        m = _XX.match(flag)
        if m and m["bool"]:
            settings[m["bool"]] = "true" if m["sign"] == "+" else "false"
        elif m:
            settings[m["name"]] = _plain(m["value"])
        elif flag[:4] in _HEAP and _is_size(flag[4:]):
            settings[_HEAP[flag[:4]]] = _plain(flag[4:])
        elif flag not in others:
            others.append(flag)
    changed = sorted(f"{name}={value}" for name, value in settings.items()
                     if name not in _UNLOCKS and defaults.get(name) != value)
    return (*changed, *others)


def _is_size(text: str) -> bool:
    try:
        parse_size_bytes(text)
    except ValueError:
        return False
    return True


class EffectiveFlags:
    """``key(config)``: the same string for configurations that make the same JVM. ``jdk_of``
    names a [jvms] entry's JDK (None: compare normalised flags only)."""

    def __init__(self, jdk_of: Callable[[str], JdkInfo | None],
                 table: Callable[[JdkInfo], dict[str, str]] = defaults_table) -> None:
        self.jdk_of, self.table = jdk_of, table
        self.tables: dict[str, dict[str, str]] = {}  # JDK home -> defaults, read once per run

    def defaults(self, jvm: str) -> dict[str, str]:
        jdk = self.jdk_of(jvm)
        if jdk is None:
            return {}
        home = str(jdk.home)
        if home not in self.tables:
            self.tables[home] = self.table(jdk)
        return self.tables[home]

    def key(self, config: Config) -> str:
        jdk = self.jdk_of(config.jvm)
        where = str(jdk.home) if jdk is not None else config.jvm
        return f"{where}|{' '.join(effective_flags(config.flags, self.defaults(config.jvm)))}"


def literal_key(config: Config) -> str:
    """Without a JDK to ask: the configuration's flags as given."""
    return config.key


def for_measurer(measurer: Any) -> Callable[[Config], str]:
    """The identity a measurer allows: effective flags when it runs a plan's JDKs (a real
    JVM), the literal flags otherwise (the simulated JVM of tests and bench)."""
    plan = getattr(measurer, "plan", None)
    if plan is None or not getattr(plan, "cells", None):
        return literal_key
    jdks = {pc.cell.jvm: pc.jdk for pc in plan.cells}
    return EffectiveFlags(jdks.get).key
