"""Azul Platform Prime (formerly Zing): identification, its collector and JIT, ReadyNow flags.

Prime is a HotSpot-derived VM ("Zing 64-Bit Tiered VM") with its own collector, C4 (the
Continuously Concurrent Compacting Collector; the only one Prime has, so HotSpot's
``-XX:+UseG1GC``-style probes are not run) and its own JIT, Falcon (LLVM-based; the default
top tier since Zing 19.x, ``-XX:+UseC2`` selects C2 instead). It keeps ``-XX:+PrintFlagsFinal``,
so flags are checked as on HotSpot.

ReadyNow records the JIT's decisions of a training run in a profile log
(``-XX:ProfileLogOut=<file>``) that later runs read (``-XX:ProfileLogIn=<file>``); see
:mod:`jvmlab.machine.vendor_prepare` for the ``@readynow`` preparation step.

Azul Zulu is plain OpenJDK (HotSpot) and is not matched here. Written from Azul's
documentation and recorded ``java -version`` outputs (``tests/data/jvms/SOURCES.md``); no Prime
JVM was available where it was written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KIND = "Zing"
COLLECTOR = "C4"
JIT = "Falcon"

# "Zing22.07.1.0+1", "Zing 21.12.0.0-b2-linux64", "zing_20.03.0.0", "Tiered VM 20.02.201.0+1"
_ZING_VERSION = (
    re.compile(r"Tiered VM (\d+\.\d+\.\d+\.\d+(?:\+\d+)?)"),
    re.compile(r"Zing[ _]?(\d+\.\d+\.\d+\.\d+(?:\+\d+)?)", re.IGNORECASE),
)


@dataclass(frozen=True)
class PrimeVersion:
    """What ``java -version`` says about a Prime/Zing build."""

    prime: str  # e.g. "23.05.0.0+2" ("" if the banner names none)
    vm_build: str  # e.g. "17.0.7-zing_23.05.0.0-b2-product-linux-X86_64"

    def components(self) -> tuple[tuple[str, str], ...]:
        pairs = (("Prime", self.prime), ("collector", COLLECTOR), ("JIT", JIT), ("VM build", self.vm_build))
        return tuple((name, value) for name, value in pairs if value)


def is_prime(vm: str, vendor_version: str = "") -> bool:
    """``java.vm.name`` "Zing 64-Bit Tiered VM" (all Zing/Prime releases so far)."""
    return "zing" in f"{vm} {vendor_version}".lower()


def parse_version(text: str, vm_version: str = "") -> PrimeVersion:
    """The Prime release and VM build from ``java -version`` (or ``java.vm.version``)."""
    prime = ""
    build = ""
    for line in text.splitlines():
        if "Zing" not in line and "zing" not in line:
            continue
        if not prime:
            for pattern in _ZING_VERSION:
                found = pattern.search(line)
                if found:
                    prime = found.group(1)
                    break
        if "VM" in line:
            found_build = re.search(r"\((?:product )?build ([^,)]+)", line)
            build = found_build.group(1).strip() if found_build else build
    if not prime and vm_version:
        found = re.search(r"zing_(\d+\.\d+\.\d+\.\d+)", vm_version)
        prime = found.group(1) if found else ""
    return PrimeVersion(prime=prime, vm_build=build or vm_version)
