"""`jvmlab demo tune`: a built-in workload whose starting settings are clearly not best.

The built-in ``hold`` workload keeps a 40 MiB live set and allocates 1 GiB of short-lived
garbage around it. The demo's baseline (the settings "in production") caps the heap at
48 MiB: barely above the live set, so the collector runs thousands of times and the run
takes several times longer than it needs to. The tuner searches collector x heap size x
pre-touch (and G1's pause goal only when G1 is chosen), races each candidate against the
incumbent in paired blocks, confirms the winner against the baseline and the JDK's defaults,
and prints what `jvmlab apply` gives. The effect is large (a 3-5x shorter run on a quiet
machine), so it shows even on a busy one.

(hellostream, the earlier demo workload, differs between settings by less than the noise of
a shared 2-core machine: the tuner rightly kept its defaults there; see docs/tuning.md.)
"""

from __future__ import annotations

DEMO_ARGS = '["--live-mb", "40", "--alloc-mb", "1024"]'
DEMO_BASELINE = "-Xmx48m"


def tune_spec(quick: bool) -> str:
    trials = 8 if quick else 20
    return f"""
name = "demo-tune"
description = "tune a too-small heap: hold's 40 MiB live set and 1 GiB of garbage under -Xmx48m"
[workload]
builtin = "hold"
args = {DEMO_ARGS}
[tune]
objective = "wall_s"
baseline = "{DEMO_BASELINE}"
guardrails = ["max_rss_bytes <= 1g"]
budget = {{ trials = {trials}, wall = "{'2m' if quick else '6m'}" }}
min_blocks = 3
max_blocks = {6 if quick else 12}
confirm_max_blocks = {10 if quick else 30}
[tune.params.gc]
type = "categorical"
values = {{ g1 = "-XX:+UseG1GC", serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }}
[tune.params.heap]
type = "size"
low = "48m"
high = "512m"
log = true
flag = "-Xmx{{}}"
[tune.params.pretouch]
type = "bool"
flag = "-XX:+AlwaysPreTouch"
[tune.params.pause]
type = "int"
low = 20
high = 500
log = true
flag = "-XX:MaxGCPauseMillis={{}}"
when = {{ gc = "g1" }}
"""
