"""Built-in scenarios: specs made for the JDKs found on this machine.

``scenario_runs(name, quick)`` gives the experiments a scenario runs (some need several specs:
cds runs hello and hellostream, all runs the five classics); ``scenario_verdict(name,
summary)`` turns one run's Summary into a paragraph with confidence intervals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jvmlab.errors import UserError, did_you_mean
from jvmlab.scenarios.jdks import demo_jdks, jvm_name, jvms_table, run_table
from jvmlab.scenarios.model import ScenarioRun

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary
    from jvmlab.scenarios.table import ScenarioVerdict
    from jvmlab.store.protocol import Store

__all__ = ["SCENARIOS", "ScenarioRun", "demo_jdks", "demo_spec", "jvms_table", "scenario_names",
           "scenario_runs", "scenario_specs", "scenario_verdict"]

SCENARIOS = {
    "default": "AlwaysPreTouch off/on at a 1 GB heap on up to two JDKs (about a minute)",
    "pretouch": "AlwaysPreTouch x heap size x THP x G1/Parallel/Serial: seconds per GB, RSS committed",
    "largepages": "tlbsort 512 MB random reads + heap sort x default pages / THP / UseLargePages: ns per read",
    "gc": "chunk generation x G1/Parallel/ZGC/Shenandoah per JDK: steady throughput, pauses, ranking",
    "cds": "hello and hellostream x -Xshare:off / default CDS / AppCDS / AOT cache (JDK 24+): startup ms",
    "ramdisk": "integral and hello x JDK on disk/tmpfs x warm/cold page cache",
    "all": "the five classics above in turn, each sized to answer (full: sized for ~6 minutes on 2 quiet cores)",
    "why": "G1 vs ZGC on chunkgen with JFR on: the verdict and the profile/JFR differences that explain it",
    "minecraft": "a real Minestom server generating chunks in-process x collectors (needs Maven and JDK 25+)",
    "size": "minimum heap of G1/Parallel/Serial with intervals, a 1x-4x heap sweep with knees, 1 vs 2 CPUs",
    "server": ("the built-in HTTP server under fixed-rate load x G1/Parallel/ZGC (quick: one heap, judged on the "
               "p99 GC pause; full: two heaps, on the request p99 latency), RSS"),
    "tune": "tune a heap far too small (hold under -Xmx48m): collector x heap x pre-touch, confirm, print `apply`",
    "jmh": "JMH's samples (jmh-samples 1.37, fetched once with Maven) x JDK x G1/Parallel, a fork per invocation",
}
CLASSICS = ("pretouch", "largepages", "gc", "cds", "ramdisk")
# `demo all` (full) must answer each classic's question in about 6 minutes on a quiet 2-core
# machine, with every design able to reach significance (jvmlab.plan.power). So it runs:
# pretouch on the first JDK only (12 cells x 7 blocks); largepages on 512 MB with fewer reads
# and small sorts on the first JDK, 8 paired blocks then --until 3% up to 16 (2 cells); gc on
# one JDK with G1/Parallel/ZGC, 5 blocks of 10-s runs (about 3 minutes, fixed by the runs'
# length); cds and ramdisk as in full mode, but --until stops at 16 blocks. Estimated from the
# runs' CPU time on a loaded machine (docs/scenarios.md, bench/scenarios_all.py): about 1
# minute, 50 s, 3 minutes, 40 s, 40 s.
ALL_MAX_BLOCKS = 16
DEFAULT_QUICK_INVOCATIONS = 5  # 4 cells, 3 comparisons: 3 blocks could never be significant


def scenario_names() -> dict[str, str]:
    return dict(SCENARIOS)


def _check(name: str) -> None:
    if name not in SCENARIOS:
        raise UserError(f"unknown scenario {name!r}{did_you_mean(name, SCENARIOS)}; "
                        f"`jvmlab demo --list` lists them")


def scenario_runs(name: str, quick: bool = False) -> list[ScenarioRun]:
    """The experiments of a scenario, in the order to run them."""
    from jvmlab.scenarios import cds, gc, largepages, pretouch, ramdisk, why

    _check(name)
    if name == "default":
        return [ScenarioRun("default", "AlwaysPreTouch at 1 GB", demo_spec("default", quick))]
    if name == "minecraft":
        from jvmlab.scenarios import minecraft

        return minecraft.runs(quick)
    if name == "server":
        from jvmlab.scenarios import server

        return server.runs(demo_jdks(), quick)
    if name == "tune":  # `jvmlab demo tune` runs it through the tuner (cli/cmd_tune.py)
        from jvmlab.scenarios.tune import tune_spec

        return [ScenarioRun("tune", "tune a too-small heap (hold workload)", tune_spec(quick))]
    if name == "size":
        from jvmlab.scenarios import size

        return size.runs(demo_jdks(), quick)
    jdks = demo_jdks()
    if name == "jmh":
        from jvmlab.scenarios import jmh

        return jmh.runs(jdks, quick)
    builders = {"pretouch": pretouch.runs, "largepages": largepages.runs, "gc": gc.runs, "cds": cds.runs,
                "ramdisk": ramdisk.runs, "why": why.runs}
    if name != "all":
        return builders[name](jdks, quick)
    if quick:
        return [run for classic in CLASSICS for run in builders[classic](jdks, quick)]
    return [*pretouch.runs(jdks[:1], quick),
            *largepages.runs(jdks[:1], quick, sizing=largepages.IN_ALL),
            *gc.runs(jdks[:1], quick, collectors=gc.SHORT_GCS, invocations=gc.SHORT_INVOCATIONS),
            *cds.runs(jdks, quick, max_blocks=ALL_MAX_BLOCKS),
            *ramdisk.runs(jdks, quick, max_blocks=ALL_MAX_BLOCKS)]


def scenario_specs(name: str, quick: bool = False) -> list[tuple[str, str]]:
    """(title, TOML text) of each experiment of a scenario."""
    return [(run.title, run.toml) for run in scenario_runs(name, quick)]


def scenario_verdict(name: str, summary: Summary, store: Store | None = None) -> ScenarioVerdict | str:
    """A run's verdict: a small table with CIs and one sentence (a ScenarioVerdict; ``str()``
    renders it), or the Summary's own sentences for specs that are not a scenario's.
    ``name`` may be "all" (then read from the run's name); ``store`` lets the `why` scenario
    read the runs' profiles."""
    from jvmlab.scenarios.verdict import verdict_for

    if name == "why":
        from jvmlab.scenarios import why

        return why.verdict(summary, store)
    return verdict_for(name, summary)


def demo_spec(name: str, quick: bool = False) -> str:
    """The TOML text of a scenario for this machine (its first spec when it has several)."""
    _check(name)
    if name != "default":
        return scenario_runs(name, quick)[0].toml
    jdks = demo_jdks()
    return f'''name = "demo: AlwaysPreTouch at a 1 GB heap"
description = "What does -XX:+AlwaysPreTouch cost at startup with a 1 GB heap?"

[workload]
builtin = "pretouch"

[jvms]
{jvms_table(jdks)}

[factors.pretouch]
off = "-Xms1g -Xmx1g"
on = "-Xms1g -Xmx1g -XX:+AlwaysPreTouch"

[matrix]
baseline = {{ jvm = "{jvm_name(jdks[0])}", pretouch = "off" }}

{run_table(DEFAULT_QUICK_INVOCATIONS if quick else 6, 1, "60s")}'''
