"""Which part of the JVM a thread belongs to, from its kernel name (``comm``).

Linux keeps the first 15 bytes of a thread's name, so HotSpot's "C2 CompilerThread0" is
seen as "C2 CompilerThre". The /proc sampler sums CPU time per group so a report can say
how much of a run went to the JIT, the GC, the rest of the VM and the application itself.
Anything not recognised as a VM thread is the application's: "main", the launcher's
"java" threads, "Thread-N", "pool-1-thread-1", "ForkJoinPool..." and user-named threads.
"""

from __future__ import annotations

from functools import lru_cache

JIT = "jit"
GC = "gc"
VM = "vm"
APP = "app"
GROUPS = (JIT, GC, VM, APP)

_JIT_PREFIXES = (
    "C1 CompilerThre", "C2 CompilerThre", "JVMCI", "Sweeper thread",  # HotSpot (JDK 8+)
    "JIT Compilation", "JIT Diagnostic", "JIT-SamplerThre",  # OpenJ9
)
_GC_PREFIXES = (
    "GC Thread#", "GC task thread", "Gang worker", "Parallel GC Thr",  # Parallel, G1 workers, JDK 8
    "G1 ",  # G1 Main Marker, G1 Conc#0, G1 Refine#0, G1 Service, G1 Young RemSet, G1 Uncommit
    "ZWorker", "ZDriver", "ZDirector", "ZStat", "ZUnmapper", "ZUncommitter", "ZRelocat",  # ZGC
    "XWorker", "XDriver", "XDirector", "XStat", "XUnmapper", "XUncommitter",  # non-generational ZGC, 21+
    "Shenandoah",  # Shenandoah GC T(hread), Shenandoah Cont(rol), Shenandoah Unco(mmit)
    "Concurrent Mark", "CMS ", "Surrogate Locke",  # CMS (JDK 8)
    "Epsilon",
    "GC Slave", "GC Worker", "Dedicated GC ",  # OpenJ9 GC helpers
)
_VM_PREFIXES = (
    "VM Thread", "VM Periodic Tas", "Reference Handl", "Finalizer", "Signal Dispatch",
    "Service Thread", "Monitor Deflati", "Common-Cleaner", "Notification Th", "Attach Listener",
    "RuntimeWorker#", "JFR ", "process reaper", "StringDedup", "Unsafe Thread", "Cleaner-",
)


@lru_cache(maxsize=4096)
def thread_group(comm: str) -> str:
    """The group ("jit", "gc", "vm" or "app") of a thread named ``comm`` (kernel name)."""
    if comm.startswith(_JIT_PREFIXES):
        return JIT
    if comm.startswith(_GC_PREFIXES):
        return GC
    if comm.startswith(_VM_PREFIXES):
        return VM
    return APP
