"""Was the machine busy before a timing bench began? Read before its first run.

Read at the end, the 5-minute load average counts the bench's own processes (a bench that keeps
both CPUs busy shows a load of 2 on a machine with nothing else running), so the figure is
taken at the start: the 1-minute load average then is what other processes were doing."""

from __future__ import annotations

import os


def load_at_start() -> float:
    """The 1-minute load average now: call before the bench starts its first process."""
    return os.getloadavg()[0]


def warn_if_busy(load: float) -> None:
    """Say so when other processes kept the CPUs busy as the bench began: no verdict means much."""
    cpus = os.cpu_count() or 1
    if load > 0.5 * cpus:
        print(f"\nWARNING: the machine was busy when the bench began (load average {load:.1f} over 1 min on "
              f"{cpus} CPUs): other processes' CPU use differed between runs and the figures below carry it; "
              f"rerun on a quiet machine for a verdict", flush=True)
