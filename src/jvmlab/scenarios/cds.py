"""`cds`: startup of hello and hellostream with CDS off, the default CDS archive, a dynamic
AppCDS archive and (JDK 24+) an AOT cache; one spec per workload.

When an OpenJ9 (Semeru) JDK is among the JDKs, its own startup levels join: the shared
classes cache off (``scc-off``) and trained for the workload (``scc``, checked with printStats),
``-Xtune:virtualized`` and ``-Xquickstart``. With an Azul Prime JDK, a ReadyNow-trained level
(``readynow``) joins. Each level runs only on the VMs it exists for (the others are excluded).
"""

from __future__ import annotations

from jvmlab.jdk.model import JdkInfo
from jvmlab.scenarios.jdks import exclude_rules, factor_table, jvm_name, jvms_table, run_table
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import clearly, diff_ci, fmt_interval, index_cells, key_with, mean_ci

AOT_FEATURE = 24
LEVELS = {"off": ["-Xshare:off"], "default": [], "appcds": ["@cds-archive"], "aot": ["@aot-cache"]}
OPENJ9_LEVELS = {"scc-off": ["-Xshareclasses:none"], "scc": ["@shared-classes"],
                 "virtualized": ["-Xtune:virtualized"], "quickstart": ["-Xquickstart"]}
PRIME_LEVELS = {"readynow": ["@readynow"]}
HOTSPOT_ONLY = ("off", "appcds", "aot")  # -Xshare and the HotSpot archives
COMPARED = ("off", "appcds", "aot", *OPENJ9_LEVELS, *PRIME_LEVELS)


def levels_for(jdks: list[JdkInfo]) -> tuple[dict[str, list[str]], list[dict[str, str]]]:
    """The cds levels these JDKs call for, and the (jvm, level) cells to exclude."""
    levels = dict(LEVELS)
    if not any(j.feature >= AOT_FEATURE and j.vm_kind == "HotSpot" for j in jdks):
        levels.pop("aot")
    vendor = {"OpenJ9": OPENJ9_LEVELS, "Zing": PRIME_LEVELS}
    for kind, extra in vendor.items():
        if any(j.vm_kind == kind for j in jdks):
            levels.update(extra)
    excludes = []
    for j in jdks:
        own = set(vendor.get(j.vm_kind, {}))
        for level in levels:
            hotspot_level = level in HOTSPOT_ONLY
            vendor_level = any(level in extra for extra in vendor.values())
            if (j.vm_kind != "HotSpot" and hotspot_level) or (vendor_level and level not in own) or (
                    level == "aot" and j.feature < AOT_FEATURE):
                excludes.append({"jvm": jvm_name(j), "cds": level})
    return levels, excludes


def runs(jdks: list[JdkInfo], quick: bool, workloads: tuple[str, ...] = ("hello", "hellostream"),
         invocations: int | None = None) -> list[ScenarioRun]:
    out = []
    levels, excludes = levels_for(jdks)
    for workload in workloads:
        text = f'''name = "demo cds: {workload} x class data sharing"
description = "What do CDS, AppCDS and the AOT cache save at startup of {workload}?"

[workload]
builtin = "{workload}"

[jvms]
{jvms_table(jdks)}

{factor_table("cds", levels)}
[matrix]
baseline = {{ jvm = "{jvm_name(jdks[0])}", cds = "default" }}
{exclude_rules(excludes)}
{run_table(invocations or (5 if quick else 20), 1, "60s")}'''
        out.append(ScenarioRun("cds", workload, text, "wall_s"))
    return out


def verdict(summary) -> str:
    cells = index_cells(summary)
    workload = summary.experiment.name.split("cds: ", 1)[-1].split(" x", 1)[0]
    parts = []
    for key, default in sorted(cells.items()):
        if dict(key).get("cds") != "default" or mean_ci(default, "wall_s") is None:
            continue
        base = mean_ci(default, "wall_s")
        text = [f"on {dict(key)['jvm']} default CDS {fmt_interval(tuple(v * 1000 for v in base), '{:.0f} ms')}"]
        for level in COMPARED:
            other = cells.get(key_with(key, cds=level))
            delta = diff_ci(other, default, "wall_s", scale=1000.0) if other is not None else None
            if delta is not None:
                word = "" if clearly(delta) else " (not a clear difference)"
                text.append(f"{level} {fmt_interval(delta, '{:+.0f} ms')}{word}")
        parts.append(", ".join(text))
    if not parts:
        return f"cds ({workload}): no cell had measurements, so nothing can be said."
    return (f"Startup of {workload} (wall time; each level as a change against the default CDS archive, "
            "95% CI, negative is faster): " + "; ".join(parts) + ".")
