"""The record of a flag check, apart from the check itself.

HotSpot's check (``flags.py``) and OpenJ9's (``openj9.py``) both return it; keeping it in
its own module lets ``flags`` call ``openj9`` without the two importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FlagCheck:
    """A flag list the JDK accepted, as it will be used, and the JVM's final flag table.

    ``origins`` values come from the JVM: "command line", "ergonomic", "default", ... (JDK 8
    only knows "changed" or "default"). ``kinds`` say "product", "diagnostic", ...
    Both dicts are empty for VMs without -XX:+PrintFlagsFinal (OpenJ9). ``warnings`` are the
    JVM's own warnings ("Ignoring option ...", "UseLargePages disabled ..."): flags that were
    accepted but may not be in effect.
    """

    flags: tuple[str, ...]
    added_unlocks: tuple[str, ...]
    final_values: dict[str, str]
    origins: dict[str, str]
    kinds: dict[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    heap_warnings: tuple[str, ...] = ()  # jvmlab's: a maximum heap larger than the machine's memory
