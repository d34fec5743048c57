"""Heap sizes in a flag list, judged against this machine's memory without starting a JVM.

Checking ``-Xms4g -XX:+AlwaysPreTouch`` by running it would touch 4 GB (42 s on a busy
machine, an OOM kill on a small one). So ``check_flags`` runs the JVM with pre-touch
switched off, and the sizes are judged here: an initial heap larger than the machine
cannot even be committed (refused), a maximum heap larger than it may grow into swap or
the OOM killer (a warning).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_SIZE = re.compile(r"^(?P<n>\d+)(?P<unit>[kKmMgGtT]?)$")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
# (prefix, kind): the forms HotSpot accepts for the initial and the maximum heap.
_FORMS = (("-Xms", "initial"), ("-XX:InitialHeapSize=", "initial"), ("-XX:MinHeapSize=", "initial"),
          ("-Xmx", "maximum"), ("-XX:MaxHeapSize=", "maximum"))
PRE_TOUCH_ON = "-XX:+AlwaysPreTouch"
PRE_TOUCH_OFF = "-XX:-AlwaysPreTouch"


@dataclass(frozen=True)
class HeapFlag:
    flag: str  # as the user wrote it, e.g. -Xms4g
    kind: str  # initial or maximum
    size_bytes: int


@dataclass(frozen=True)
class HeapJudgement:
    error: str | None
    warnings: tuple[str, ...]


def parse_size_bytes(text: str) -> int | None:
    """``4g`` -> 4 GiB, as the JVM reads it; None when it is not a size."""
    match = _SIZE.match(text)
    return int(match["n"]) * _UNITS[match["unit"].lower()] if match else None


def heap_flags(flags: Sequence[str]) -> list[HeapFlag]:
    """The last initial and the last maximum heap flag (the JVM takes the last one)."""
    found: dict[str, HeapFlag] = {}
    for flag in flags:
        for prefix, kind in _FORMS:
            if flag.startswith(prefix) and (size := parse_size_bytes(flag[len(prefix):])) is not None:
                found[kind] = HeapFlag(flag, kind, size)
    return list(found.values())


def machine_memory_bytes() -> int | None:
    """Physical memory, or the cgroup (container) limit when that is smaller; None if unknown."""
    total = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                total = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit.isdigit() and total is not None:
            total = min(total, int(limit))
    except OSError:
        pass
    return total


def judge_heap(flags: Sequence[str], memory_bytes: int | None) -> HeapJudgement:
    """Refuse an initial heap the machine cannot hold; warn about a maximum that can outgrow it."""
    if memory_bytes is None:
        return HeapJudgement(None, ())
    memory = f"{memory_bytes / (1 << 30):.1f} GiB"
    warnings: list[str] = []
    for heap in heap_flags(flags):
        if heap.size_bytes <= memory_bytes:
            continue
        if heap.kind == "initial":
            return HeapJudgement(f"{heap.flag} asks for an initial heap larger than the machine's memory "
                                 f"({memory}); the JVM could not commit it: lower it", tuple(warnings))
        warnings.append(f"{heap.flag}: the maximum heap is larger than the machine's memory ({memory}); "
                        f"a heap that grows that far swaps or is killed")
    return HeapJudgement(None, tuple(warnings))


def without_pre_touch(flags: Sequence[str]) -> list[str]:
    """The flags to check: the user's, then pre-touch off (the last flag wins), so the JVM
    parses every flag as given but touches no heap page."""
    last = next((f for f in reversed(flags) if f in (PRE_TOUCH_ON, PRE_TOUCH_OFF)), None)
    return [*flags, PRE_TOUCH_OFF] if last == PRE_TOUCH_ON else list(flags)
