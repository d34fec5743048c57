"""`size`: how much heap and how many CPUs the allocation-heavy built-in `hold` needs.

Three steps, each built from the previous one's result (so the demo command runs them in
order rather than as one list of specs): the minimum heap of G1 / Parallel / Serial as
intervals; a heap sweep at 1x-4x of the largest minimum with the knee of each collector;
1 vs 2 CPUs (a cgroup per run) at each collector's knee. The verdict reads all three.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jvmlab.model.jdk import JdkInfo
from jvmlab.scenarios.jdks import (
    GC_FLAGS,
    exclude_rules,
    factor_table,
    gc_excludes,
    jvm_name,
    jvms_table,
    run_table,
)
from jvmlab.scenarios.model import ScenarioRun
from jvmlab.scenarios.stats import Machine, fmt_interval, index_cells, pair_n, ratio_pct
from jvmlab.sizing.minheap import MinHeapResult, MinHeapSettings, Status
from jvmlab.sizing.results import SweepResult, series_name
from jvmlab.sizing.sweep import geometric_multiples

if TYPE_CHECKING:
    from collections.abc import Callable

    from jvmlab.plan.prepare import Plan
    from jvmlab.report.summary import Summary
    from jvmlab.sizing.flow import SweepSetup
    from jvmlab.sizing.study import MinHeapRequest, MinHeapStudy
    from jvmlab.store.protocol import Store

GCS = ["G1", "Parallel", "Serial"]
LIVE_MB = 64
MB = 1 << 20


def base_toml(jdks: list[JdkInfo], quick: bool) -> str:
    alloc = 256 if quick else 1024
    return f'''name = "demo size: hold ({LIVE_MB} MB live) x G1/Parallel/Serial"
description = "Minimum heap, heap sweep and CPUs of an allocation-heavy workload with a known live set"

[workload]
builtin = "hold"
args = ["--live-mb", "{LIVE_MB}", "--alloc-mb", "{alloc}"]

[jvms]
{jvms_table(jdks)}

{factor_table("gc", {gc: [GC_FLAGS[gc]] for gc in GCS})}
{exclude_rules(gc_excludes(jdks, GCS))}
{run_table(3 if quick else 5, 1, "120s")}'''


def runs(jdks: list[JdkInfo], quick: bool) -> list[ScenarioRun]:
    """The first step's spec (the later ones are made from its results by the demo command)."""
    return [ScenarioRun("size", "minimum heap, heap sweep and CPUs of hold", base_toml(jdks[:1] if quick else jdks,
                                                                                     quick))]


@dataclass(frozen=True)
class SizeDemo:
    """What `jvmlab demo size` found: the minimum-heap search, the sweep and the paragraph."""

    study: MinHeapStudy
    sweep: SweepResult
    verdict: str


def run_demo(quick: bool, store: Store, search: Callable[[Plan, MinHeapRequest], MinHeapStudy],
             sweep: Callable[[SweepSetup], SweepResult], run: Callable[[Plan], int],
             say: Callable[[str], None]) -> SizeDemo:
    """The demo's three steps, each spec made from the previous step's result; each plan goes
    through the caller's hand-over (``search``, ``sweep``, ``run``); ``say`` names each step."""
    from jvmlab.errors import UserError
    from jvmlab.plan.prepare import prepare
    from jvmlab.report.summary import summarize
    from jvmlab.scenarios.jdks import demo_jdks
    from jvmlab.sizing.flow import sweep_from_study
    from jvmlab.sizing.study import MinHeapRequest
    from jvmlab.spec.load import parse_spec

    jdks = demo_jdks()[:1] if quick else demo_jdks()
    text = base_toml(jdks, quick)
    base = prepare(parse_spec(text, "scenario size"), text, None)
    say("Step 1 of 3: minimum heap per collector")
    study = search(base, MinHeapRequest(minheap_settings(quick), timeout_s=60.0))
    say("Step 2 of 3: heap sweep at multiples of the minimum")
    swept = sweep(sweep_from_study(base, study, multiples(quick)))
    say("Step 3 of 3: 1 vs 2 CPUs at each collector's knee")
    cpu_summary, cpu_note = None, None
    knees = knees_for(swept, jdks[0])
    try:
        if not knees:
            raise UserError("no collector had a knee in the sweep")
        cpu_text = cpu_toml(jdks[0], knees, quick)
        cpu_id = run(prepare(parse_spec(cpu_text, "scenario size: CPUs"), cpu_text, None))
        cpu_summary = summarize(store, cpu_id, "wall_s")
    except UserError as err:  # e.g. cgroups cannot be made here: the first two steps still stand
        cpu_note = str(err)
    rows = [(c.jvm, c.levels.get("gc", ""), c.result) for c in study.cells]
    return SizeDemo(study, swept, verdict(rows, swept, cpu_summary, cpu_note, jdks[0]))


def minheap_settings(quick: bool) -> MinHeapSettings:
    return MinHeapSettings(lower_bytes=32 * MB, upper_bytes=512 * MB, step_bytes=(2 if quick else 1) * MB,
                           repeats=3 if quick else 5, max_probes=40 if quick else 80)


def multiples(quick: bool) -> tuple[float, ...]:
    return (1.0, 1.5, 2.0, 3.0, 4.0) if quick else geometric_multiples(1.0, 4.0, 7)


def cpu_toml(jdk: JdkInfo, knee_bytes: dict[str, int], quick: bool) -> str:
    """Each collector at its own knee heap, on 1 and 2 CPUs (CFS quota in a cgroup)."""
    levels = {gc: [GC_FLAGS[gc], f"-Xms{size // 1024}k", f"-Xmx{size // 1024}k"] for gc, size in knee_bytes.items()}
    alloc = 256 if quick else 1024
    return f'''name = "demo size: hold at the knee x 1 vs 2 CPUs"

[workload]
builtin = "hold"
args = ["--live-mb", "{LIVE_MB}", "--alloc-mb", "{alloc}"]

[jvms]
{jvm_name(jdk)} = "{jdk.home}"

{factor_table("gc", levels)}
[environment]
cpus = [1, 2]

{run_table(3 if quick else 5, 1, "120s")}'''


def knees_for(sweep: SweepResult, jdk: JdkInfo) -> dict[str, int]:
    """Knee heap of each collector on ``jdk`` (collectors without one are left out)."""
    knees = sweep.knees()
    out = {}
    for gc in GCS:
        point = knees.get(series_name(jvm_name(jdk), {"gc": gc}))
        if point is not None:
            out[gc] = point.heap_bytes
    return out


def _interval(r: MinHeapResult) -> str:
    lower, upper = r.lower_bytes, r.upper_bytes
    if r.status is not Status.FOUND or lower is None or upper is None:
        return f"not found ({r.note or r.status})"
    flaky = f", flaky at {', '.join(f'{s / MB:g}' for s in r.flaky_sizes)} MiB" if r.flaky else ""
    return f"({lower / MB:g}, {upper / MB:g}] MiB{flaky}"


def verdict(minheaps: list[tuple[str, str, MinHeapResult]], sweep: SweepResult | None,
            cpu_summary: Summary | None, cpu_note: str | None, jdk: JdkInfo) -> str:
    """One paragraph: intervals, knees and which collector needs less heap, CPUs at the knee."""
    parts = []
    confidence = min((r.confidence for _, _, r in minheaps if r.confidence is not None), default=None)
    conf = f" (each at >= {confidence:.0%} confidence)" if confidence is not None else ""
    parts.append(f"Minimum heap of hold with {LIVE_MB} MB live{conf}: "
                 + "; ".join(f"{jvm} {gc} {_interval(r)}" for jvm, gc, r in minheaps) + ".")
    if sweep is not None:
        parts.append(_knee_sentence(sweep, jdk))
    if cpu_summary is not None:
        parts.append(_cpu_sentence(cpu_summary))
    elif cpu_note:
        parts.append(f"1 vs 2 CPUs was not run: {cpu_note}")
    return " ".join(p for p in parts if p)


def _knee_sentence(sweep: SweepResult, jdk: JdkInfo) -> str:
    knees = sweep.knees()
    named = {gc: knees.get(series_name(jvm_name(jdk), {"gc": gc})) for gc in GCS}
    found = {gc: p for gc, p in named.items() if p is not None and p.mean is not None}
    if not found:
        return "The sweep measured no heap size, so there is no knee."
    largest = max(level.heap_bytes for level in sweep.levels)
    text = (f"Knees on {jvm_name(jdk)} (smallest heap within {sweep.within:.0%} of that collector's best time): "
            + ", ".join(f"{gc} {p.heap_bytes / MB:g} MiB ({p.mean:.3f} s)" for gc, p in found.items()) + ".")
    edge = [gc for gc, p in found.items() if p.heap_bytes == largest]
    if edge:
        text += (f" {', '.join(edge)} reached {'its' if len(edge) == 1 else 'their'} knee only at the largest size "
                 f"swept, so {'its' if len(edge) == 1 else 'their'} curve may still be falling beyond it.")
    if "G1" in found:
        g1 = found["G1"]
        for gc, p in found.items():
            if gc == "G1":
                continue
            jvm = jvm_name(jdk)
            apart = sweep.compare_knees(series_name(jvm, {"gc": gc}), series_name(jvm, {"gc": "G1"}))
            if apart is None or not apart.clear or apart.low is None or apart.high is None:
                text += (f" {gc} and G1: no clear difference in the heap they need ({p.heap_bytes / MB:g} vs "
                         f"{g1.heap_bytes / MB:g} MiB; the knees' bootstrap intervals do not separate them).")
                continue
            less = (1 - p.heap_bytes / g1.heap_bytes) * 100
            word = "less" if less >= 0 else "more"
            span = sorted(abs(1 - r) * 100 for r in (apart.low, apart.high))
            text += (f" {gc} needs {abs(less):.0f}% {word} heap than G1 (95% interval {span[0]:.0f}-{span[1]:.0f}%) "
                     f"to come within {sweep.within:.0%} of its best time ({p.heap_bytes / MB:g} vs "
                     f"{g1.heap_bytes / MB:g} MiB; {p.mean:.3f} s vs {g1.mean:.3f} s there).")
    return text


def _cpu_sentence(summary: Summary) -> str:
    cells, machine = index_cells(summary), Machine.of(summary)
    out = []
    for key, one in sorted(cells.items()):
        levels = dict(key)
        if levels.get("cpus") != "1":
            continue
        two = cells.get(tuple(sorted({**levels, "cpus": "2"}.items())))
        if two is None:
            continue
        r = ratio_pct(machine, one, two, "wall_s")
        if r is not None and math.isfinite(r.value[0]):
            said = f" ({r.withheld})" if r.withheld else ""
            out.append(f"{levels.get('gc')} {fmt_interval(r.value, '{:+.0f}%', pair_n(one, two, 'wall_s'))}{said}")
    if not out:
        return "1 vs 2 CPUs at the knee: no pair had measurements."
    return "Wall time on 1 CPU vs 2 CPUs at each knee: " + "; ".join(out) + "."
