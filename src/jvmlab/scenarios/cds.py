"""`cds`: startup of hello and hellostream with CDS off, the default CDS archive, a dynamic
AppCDS archive and (JDK 24+) an AOT cache; one spec per workload."""

from __future__ import annotations

from jvmlab.jdk.model import JdkInfo
from jvmlab.scenarios.jdks import exclude_rules, factor_table, jvm_name, jvms_table, run_table
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import clearly, diff_ci, fmt_interval, index_cells, key_with, mean_ci

AOT_FEATURE = 24
LEVELS = {"off": ["-Xshare:off"], "default": [], "appcds": ["@cds-archive"], "aot": ["@aot-cache"]}


def runs(jdks: list[JdkInfo], quick: bool, workloads: tuple[str, ...] = ("hello", "hellostream"),
         invocations: int | None = None) -> list[ScenarioRun]:
    out = []
    levels = dict(LEVELS)
    if not any(j.feature >= AOT_FEATURE for j in jdks):
        levels.pop("aot")
    excludes = [{"jvm": jvm_name(j), "cds": "aot"} for j in jdks if j.feature < AOT_FEATURE and "aot" in levels]
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
        for level in ("off", "appcds", "aot"):
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
