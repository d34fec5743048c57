"""`jmh`: JMH's own samples (jmh-samples 1.37, fetched once with Maven) across JDKs x two
collectors, each invocation one JMH fork, in randomized blocks. Reported as the benchmark x
cell table with Holm-corrected verdicts (docs/jmh.md)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from jvmlab.model.jdk import JdkInfo
from jvmlab.report.jmh import jmh_table
from jvmlab.scenarios.jdks import (
    GC_FLAGS,
    exclude_rules,
    factor_table,
    gc_excludes,
    jvms_table,
    run_table,
)
from jvmlab.scenarios.model import ScenarioRun, ScenarioSkipped
from jvmlab.workloads.jmh_samples import RecipeUnavailable, fetch, workload_toml

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary

BENCHMARKS = ["JMHSample_01_HelloWorld", "JMHSample_27_Params.bench"]
PARAMS = {"arg": ["1"], "certainty": ["0", "16"]}
METRIC = "jmh.JMHSample_01_HelloWorld.wellHelloThere"
COLLECTORS = ["G1", "Parallel"]
# Both modes run 6 forks per cell. The verdict's family is the JMH table: every benchmark row
# (HelloWorld, Params.bench at each parameter combination: 3) x every cell but the baseline (two
# JDKs x two collectors: 3), Holm-corrected together: 9 comparisons. 6 blocks can make them
# significant (at best p = 0.0024 each, 9 x 0.0024 = 0.021); 5 could not (9 x 0.008 = 0.073),
# nor the 3 the quick demo ran (at best p = 0.1).
INVOCATIONS = 6


def table_rows() -> int:
    """Rows of the JMH table the verdict corrects across: HelloWorld's one benchmark and
    Params.bench at each combination of ``PARAMS``."""
    return 1 + math.prod(len(levels) for levels in PARAMS.values())


def options(quick: bool) -> list[str]:
    """Short JMH iterations: jvmlab's invocations (the forks) carry the statistics."""
    if quick:
        return ["-wi", "1", "-i", "2", "-w", "200ms", "-r", "200ms"]
    return ["-wi", "2", "-i", "3", "-w", "300ms", "-r", "300ms"]


def runs(jdks: list[JdkInfo], quick: bool) -> list[ScenarioRun]:
    try:
        lib = fetch(jdks[0].home)
    except RecipeUnavailable as err:
        raise ScenarioSkipped(str(err)) from None
    return [ScenarioRun("jmh", "jmh-samples across JDKs and collectors", spec_toml(jdks, lib, quick), METRIC)]


def spec_toml(jdks: list[JdkInfo], lib: Path, quick: bool) -> str:
    gc_levels = {gc.lower(): ["-Xmx512m", GC_FLAGS[gc]] for gc in COLLECTORS}
    excludes = gc_excludes(jdks, COLLECTORS)
    return ('name = "demo jmh: jmh-samples x JDK x collector"\n'
            'description = "JMH samples, one fork per invocation, across JDKs and two collectors"\n\n'
            + workload_toml(lib, BENCHMARKS, PARAMS, options(quick))
            + f"\n[jvms]\n{jvms_table(jdks)}\n\n"
            + factor_table("gc", {k.lower(): v for k, v in gc_levels.items()})
            + exclude_rules([{k: v.lower() if k == "gc" else v for k, v in rule.items()} for rule in excludes])
            + "\n" + run_table(INVOCATIONS, 1, "120s"))


def verdict(summary: Summary) -> str:
    """How many benchmark x cell differences are real after Holm, and which."""
    table = jmh_table(summary)
    if table is None:
        return "No JMH scores were stored: see the failures in the report."
    comps = [(row, cell) for row in table.rows for cell in row.comparisons]
    real = [row.sentence(cell, summary.metrics.get(row.metric)) for row, cell in comps if row.called(cell)]
    # significant, but a busy machine could explain it (the one interference model): said, not counted
    held = [row.sentence(cell, summary.metrics.get(row.metric)) for row, cell in comps if cell in row.disturbed]
    head = (f"{len(real)} of {len(comps)} benchmark x cell comparisons against {table.baseline} differ "
            f"after the Holm correction across all benchmarks")
    tail = f" Not called on a busy machine: {'; '.join(held)}." if held else ""
    return head + (": " + "; ".join(real) + "." if real else "; the others are within the noise of "
                   f"{summary.cells[0].n} forks per cell: more invocations narrow the intervals.") + tail
