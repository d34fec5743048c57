"""Typed records describing a JDK."""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class JdkInfo:
    """One identified JDK (or JRE runtime) installation.

    ``home`` is the resolved java.home (symlinks collapsed); ``java`` its launcher.
    """

    home: Path
    version: str  # full version, e.g. "17.0.15+6-Debian-1deb12u1" (java.runtime.version)
    feature: int  # 8, 11, 17, 21, 25 ...
    vendor: str  # java.vendor, e.g. "Eclipse Adoptium", "Debian"
    vm: str  # java.vm.name, e.g. "OpenJDK 64-Bit Server VM" -> vm_kind "HotSpot"
    vm_kind: str  # "HotSpot", "OpenJ9", "GraalVM", ...
    has_javac: bool
    gcs: tuple[str, ...] = field(default_factory=tuple)  # collectors that start: "G1", "Parallel", ...
    implementor: str = ""  # IMPLEMENTOR from the release file, e.g. "Eclipse Adoptium"
    sources: tuple[str, ...] = field(default_factory=tuple)  # where it was found: "JAVA_HOME", "PATH", ...
    vendor_version: str = ""  # java.vendor.version, e.g. "Temurin-25.0.3+9" ("" when the JDK has none)
    aliases: tuple[str, ...] = field(default_factory=tuple)  # paths, as found (unresolved), leading to ``home``
    vm_version: str = ""  # java.vm.version, e.g. "openj9-0.41.0", "17.0.7-zing_23.05.0.0-b2-..."
    jit: str = ""  # the top-tier JIT when the VM is not HotSpot: "Testarossa" (OpenJ9), "Falcon" (Prime)
    components: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # ("OpenJ9", "0.41.0"), ("OMR", ...)

    @property
    def java(self) -> Path:
        return self.home / "bin" / launcher_name("java")

    @property
    def javac(self) -> Path | None:
        path = self.home / "bin" / launcher_name("javac")
        return path if self.has_javac else None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["home"] = str(self.home)
        data["gcs"] = list(self.gcs)
        data["sources"] = list(self.sources)
        data["aliases"] = list(self.aliases)
        data["components"] = [list(pair) for pair in self.components]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JdkInfo:
        return cls(
            home=Path(data["home"]),
            version=data["version"],
            feature=int(data["feature"]),
            vendor=data["vendor"],
            vm=data["vm"],
            vm_kind=data.get("vm_kind", "HotSpot"),
            has_javac=bool(data["has_javac"]),
            gcs=tuple(data.get("gcs", ())),
            implementor=data.get("implementor", ""),
            sources=tuple(data.get("sources", ())),
            vendor_version=data.get("vendor_version", ""),
            aliases=tuple(data.get("aliases", ())),
            vm_version=data.get("vm_version", ""),
            jit=data.get("jit", ""),
            components=tuple((str(k), str(v)) for k, v in data.get("components", ())),
        )

    def describe(self) -> str:
        """Short human label for messages, e.g. ``JDK 17.0.15+6-Debian-1deb12u1 at /usr/lib/jvm/...``."""
        return f"JDK {self.version} at {self.home}"


def launcher_name(name: str, os_name: str = os.name) -> str:
    """``java`` on POSIX, ``java.exe`` on Windows (where a JDK's bin has no extensionless file)."""
    return f"{name}.exe" if os_name == "nt" else name


def version_key(info: JdkInfo) -> tuple[int, ...]:
    """Orders JDKs by feature, then by the numbers of the full version ("17.0.15+6" -> 17, 0, 15, 6).

    JDK 8 versions ("1.8.0_392-b08") drop their leading "1." so they compare like the rest.
    """
    numbers = [int(n) for n in re.findall(r"\d+", info.version)]
    if len(numbers) > 1 and numbers[0] == 1:
        numbers = numbers[1:]
    return (info.feature, *numbers)
