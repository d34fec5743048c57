"""The candidate fixes of each finding: concrete flags, sized from what the log states.

A fix is only proposed when its flag can be written down: a bigger heap needs the log's
maximum heap (``Heap Max Capacity`` or ``-XX:MaxHeapSize``), a bigger region its region
size. When a figure is missing the fix is left out rather than guessed; the finding's
advice says what to look at instead.
"""

from __future__ import annotations

import math

from jvmlab.gclog.findings_model import Fix

HEAP_GROWTH = 1.5  # a heap 50% larger: enough to show whether heap size is the cause, small enough to be cheap
STALL_HEAP_GROWTH = 2.0  # ZGC stalls: the heap must hold the allocation of a whole cycle besides the live set
MAX_REGION_MB = 32  # the largest G1 region size JDK 8-21 accept
METASPACE_MB = 256  # a first Metaspace high-water mark well above the default (~21 MB)


def heap(max_mb: float | None, factor: float = HEAP_GROWTH) -> Fix | None:
    if not max_mb:
        return None
    size = math.ceil(max_mb * factor)
    return Fix((f"-Xmx{size}m",), f"a heap {factor:g}x the current maximum ({max_mb:.0f} MB): room for "
               f"the live set and the allocation of a collection cycle", "heap")


G1_RESERVE = Fix(("-XX:G1ReservePercent=20",), "G1 keeps 20% instead of 10% of the heap free for survivors "
                 "and promotion, so an evacuation finds space", "reserve")

DISABLE_EXPLICIT = Fix(("-XX:+DisableExplicitGC",), "System.gc() calls become no-ops; keep it off if the "
                       "application relies on them (e.g. to free direct buffers)", "explicit")

EXPLICIT_CONCURRENT = Fix(("-XX:+ExplicitGCInvokesConcurrent",), "System.gc() starts a concurrent cycle instead "
                          "of a stop-the-world full collection", "explicit")


def region(region_mb: float | None) -> list[Fix]:
    if not region_mb:
        return []
    out = []
    sizes = sorted({int(region_mb * 2), int(region_mb * 4), MAX_REGION_MB})  # the log does not say how large
    for size in sizes:
        if region_mb < size <= MAX_REGION_MB:
            out.append(Fix((f"-XX:G1HeapRegionSize={size}m",), f"regions of {size} MB ({size / region_mb:g}x): "
                           f"objects below {size // 2} MB are no longer humongous", "region"))
    return out


def metaspace(at_max: bool) -> list[Fix]:
    """At its maximum (full or last-ditch collections) the maximum must grow first: a larger
    MetaspaceSize alone is clamped to a small MaxMetaspaceSize."""
    size = Fix((f"-XX:MetaspaceSize={METASPACE_MB}m",), f"the first Metaspace collection waits until "
               f"{METASPACE_MB} MB of class metadata instead of ~21 MB", "metaspace-size")
    if not at_max:
        return [size]
    return [Fix((f"-XX:MaxMetaspaceSize={METASPACE_MB}m", f"-XX:MetaspaceSize={METASPACE_MB}m"),
                f"Metaspace reached its maximum (full or last-ditch collections): allow {METASPACE_MB} MB",
                "metaspace-size"), size]


CMS_OCCUPANCY = Fix(("-XX:CMSInitiatingOccupancyFraction=60", "-XX:+UseCMSInitiatingOccupancyOnly"),
                    "CMS starts its concurrent cycle at 60% old-generation occupancy, earlier than its "
                    "estimate, so it finishes before the old generation fills (JDK 13 and older)", "cms-start")

USE_G1 = Fix(("-XX:+UseG1GC",), "G1 compacts incrementally and does not fragment the old generation "
             "(the default collector since JDK 9)", "collector")


def young(young_max_mb: float | None) -> Fix | None:
    if not young_max_mb:
        return None
    size = math.ceil(young_max_mb * 2)
    return Fix((f"-Xmn{size}m",), f"a young generation twice the largest seen ({young_max_mb:.0f} MB): "
               f"fewer collections, objects get more time to die (on G1 this fixes the young size and "
               f"switches off its pause-time sizing)", "young")


TENURING = Fix(("-XX:MaxTenuringThreshold=15",), "objects survive up to 15 young collections before "
               "promotion (the most the JVM allows)", "tenuring")

PRETOUCH = Fix(("-XX:+AlwaysPreTouch",), "heap pages are touched at start-up, so the kernel's page faults "
               "(system time) do not land inside pauses", "pretouch")


def fewer_threads(workers: int | None) -> Fix | None:
    if not workers or workers < 2:
        return None
    n = max(1, workers // 2)
    return Fix((f"-XX:ParallelGCThreads={n}",), f"{n} GC threads instead of {workers}: no more threads "
               f"than the CPUs the JVM really gets", "threads")


NO_BIASED_LOCKING = Fix(("-XX:-UseBiasedLocking",), "no bias-revocation safepoints (JDK 15-17 have it off by "
                        "default; removed in JDK 18)", "biased")

COUNTED_LOOP_SAFEPOINTS = Fix(("-XX:+UseCountedLoopSafepoints",), "long counted loops poll for safepoints, so threads "
                              "reach a safepoint sooner (the default since JDK 10)", "ttsp")


def present(*fixes: Fix | None) -> tuple[Fix, ...]:
    """The fixes that could be written down (None: a figure was missing)."""
    return tuple(f for f in fixes if f is not None)
