"""The whole machine's CPU seconds from /proc/stat: read around each invocation (collect/proc.py)
and around each block (execute/load.py). Kept apart so a light importer does not load the sampler."""

from __future__ import annotations

import os

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def machine_cpu_s() -> tuple[float, float] | None:
    """(busy, steal) CPU seconds of the whole machine since boot, from /proc/stat's first line.
    Busy excludes idle, iowait and steal: steal is time the hypervisor gave to another guest."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()[1:]
        values = [int(v) for v in fields]
    except (OSError, ValueError):
        return None
    if len(values) < 4:
        return None
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    steal = values[7] if len(values) > 7 else 0
    return (sum(values[:8]) - idle - steal) / CLK_TCK, steal / CLK_TCK
