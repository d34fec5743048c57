"""Thread names (as the kernel truncates them) -> JIT / GC / VM / application."""

from __future__ import annotations

import pytest

from jvmlab.collect.threads import APP, GC, JIT, VM, thread_group


@pytest.mark.parametrize("comm, group", [
    ("C2 CompilerThre", JIT), ("C1 CompilerThre", JIT), ("JVMCI-native Co", JIT), ("Sweeper thread", JIT),
    ("GC Thread#0", GC), ("G1 Main Marker", GC), ("G1 Conc#0", GC), ("G1 Refine#0", GC), ("G1 Service", GC),
    ("ZDriver", GC), ("ZWorker#0", GC), ("ZDirector", GC), ("ZStat", GC), ("ZUnmapper", GC),
    ("ZWorkerYoung#0", GC), ("ZDriverMajor", GC), ("ZUncommitter#0", GC),
    ("Shenandoah GC T", GC), ("Shenandoah Cont", GC),
    ("VM Thread", VM), ("Reference Handl", VM), ("Finalizer", VM), ("Signal Dispatch", VM),
    ("Service Thread", VM), ("Monitor Deflati", VM), ("Common-Cleaner", VM), ("Notification Th", VM),
    ("Attach Listener", VM), ("VM Periodic Tas", VM), ("RuntimeWorker#0", VM),
    ("java", APP), ("main", APP), ("Thread-0", APP), ("pool-1-thread-1", APP), ("chunkgen-0", APP),
    ("ForkJoinPool.co", APP), ("Zebra", APP), ("G1", APP),
])
def test_thread_group(comm: str, group: str) -> None:
    assert thread_group(comm) == group
