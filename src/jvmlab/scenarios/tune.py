"""`jvmlab demo tune`: a built-in workload whose JDK defaults are clearly not best.

hellostream is a short, startup-bound program: on a small machine the defaults (G1, full
tiered compilation, a heap sized from the machine's memory) spend time in JIT threads and
GC set-up it never pays back, so a lighter collector and C1 only are usually faster. The
tuner searches collector x tiered stop level x heap size (and G1's pause goal only when G1
is chosen), races each candidate in paired blocks, confirms the winner against the
defaults, and prints what `jvmlab apply` gives.
"""

from __future__ import annotations


def tune_spec(quick: bool) -> str:
    trials = 8 if quick else 20
    return f"""
name = "demo-tune"
description = "tune hellostream's startup: collector x tiered level x heap"
[workload]
builtin = "hellostream"
[tune]
objective = "wall_s"
guardrails = ["max_rss_bytes <= 1.5x baseline"]
budget = {{ trials = {trials}, wall = "{'2m' if quick else '6m'}" }}
min_blocks = 3
max_blocks = {6 if quick else 12}
confirm_max_blocks = {10 if quick else 30}
[tune.params.gc]
type = "categorical"
values = {{ g1 = "-XX:+UseG1GC", serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }}
[tune.params.tier]
type = "categorical"
values = {{ full = "-XX:TieredStopAtLevel=4", c1 = "-XX:TieredStopAtLevel=1" }}
[tune.params.heap]
type = "size"
low = "32m"
high = "1g"
log = true
flag = "-Xmx{{}}"
[tune.params.pause]
type = "int"
low = 20
high = 500
log = true
flag = "-XX:MaxGCPauseMillis={{}}"
when = {{ gc = "g1" }}
"""
