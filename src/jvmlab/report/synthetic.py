"""A seeded, executor-shaped generator of experiments written into a real store.

For the report's deterministic tests and for bench/report_scale.py: it writes cells and
invocations through :class:`Store` exactly as the runner does (process measures,
metrics, timelines, progress documents, hazards, failures), with values drawn from a
seeded generator so statistics and file sizes are reproducible. It never runs a JVM.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from jvmlab.model.collected import Collected, Timeline
from jvmlab.model.documents import ProgressDocument
from jvmlab.model.hazards import BUSY_MACHINE, Hazard, MachineLoad
from jvmlab.model.process import ProcessMeasures, ProcessResult, Status
from jvmlab.store.protocol import Store


@dataclass(frozen=True)
class SyntheticSpec:
    """Shape of the generated experiment. Cell effects multiply the baseline wall time."""

    name: str = "synthetic experiment"
    jvms: tuple[str, ...] = ("jdk17", "jdk25")
    gc_levels: tuple[str, ...] = ("g1", "parallel")
    invocations: int = 8  # per cell
    seed: int = 42
    samples: int = 60  # /proc samples (and progress points) per invocation
    pauses: int = 40  # GC pauses per invocation
    failures: int = 1  # failed invocations added to the last cell
    description: str = "generated for report tests"
    scale: float = 1.0  # multiplies every wall time (an "after" experiment that got slower)
    workload_metric: str | None = None  # adds workload.<name> in records/s (higher is better)
    dead_cell: bool = False  # adds a cell whose every invocation fails
    thp_timeline: bool = False  # adds an all-zero mem.anon_huge_bytes timeline (THP never used)
    extra_flags: tuple[str, ...] = ()  # added to every cell's flags (a long flag list)


def _spec_text(spec: SyntheticSpec) -> str:
    jvms = "\n".join(f'{j} = "default"' for j in spec.jvms)
    levels = "\n".join(f'{g} = "-XX:+Use{g.capitalize()}GC"' for g in spec.gc_levels)
    return (f'name = "{spec.name}"\ndescription = "{spec.description}"\n\n[workload]\nbuiltin = "chunkgen"\n\n'
            f"[jvms]\n{jvms}\n\n[factors.gc]\n{levels}\n\n[run]\ninvocations = {spec.invocations}\n")


def _collected(rng: np.random.Generator, spec: SyntheticSpec, wall_s: float, slowdown: float) -> Collected:
    t = np.linspace(0.0, wall_s, spec.samples)
    warm = 1.0 - np.exp(-t / max(wall_s * 0.15, 1e-3))
    rate = 1000.0 / slowdown * warm * rng.normal(1.0, 0.03, t.size)
    rss = 200e6 + 300e6 * warm + rng.normal(0, 5e6, t.size)
    cpu_total = np.cumsum(np.full(t.size, wall_s / spec.samples * 1.6))
    pause_t = np.sort(rng.uniform(0.05 * wall_s, wall_s, spec.pauses))
    pause_ms = rng.lognormal(math.log(4.0 * slowdown), 0.5, spec.pauses)
    shares = {"app": 0.7, "jit": 0.15, "gc": 0.1, "vm": 0.05}
    timelines = {
        "progress.rate": Timeline(tuple(t), tuple(rate), "units/s"),
        "progress.units": Timeline(tuple(t), tuple(np.cumsum(rate) * (t[1] - t[0] if t.size > 1 else 1)), "count"),
        "mem.rss_bytes": Timeline(tuple(t), tuple(rss), "bytes"),
        "mem.pss_bytes": Timeline(tuple(t), tuple(rss * 0.93), "bytes"),
        "gc.pause_ms": Timeline(tuple(pause_t), tuple(pause_ms), "ms"),
        "gc.heap_after_mb": Timeline(tuple(pause_t), tuple(rng.uniform(50, 200, spec.pauses)), "MB"),
        **{f"cpu.{k}_s": Timeline(tuple(t), tuple(cpu_total * v), "s") for k, v in shares.items()},
    }
    warmup_s = float(wall_s * 0.3)
    metrics = {
        "gc.pause_count": float(spec.pauses), "gc.pause_total_ms": float(pause_ms.sum()),
        "gc.pause_p99_ms": float(np.percentile(pause_ms, 99)), "gc.pause_max_ms": float(pause_ms.max()),
        "mem.peak_rss_bytes": float(rss.max()), "mem.peak_pss_bytes": float(rss.max() * 0.93),
        "cpu.jit_share": 0.15, "cpu.gc_share": 0.1, "progress.steady_rate": float(rate[-10:].mean()),
        "progress.warmup_s": warmup_s,
    }
    progress = ProgressDocument("warm-up" if rng.random() < 0.8 else "flat", changepoints_s=(warmup_s,),
                                steady_rate=metrics["progress.steady_rate"])
    documents = {ProgressDocument.KIND: progress.to_json()}
    units = {}
    if spec.workload_metric:
        name = f"workload.{spec.workload_metric}"
        metrics[name] = float(rng.normal(5000.0 / slowdown, 50.0))
        units[name] = "records/s"
    if spec.thp_timeline:
        timelines["mem.anon_huge_bytes"] = Timeline(tuple(t), tuple(0.0 for _ in t), "bytes")
    return Collected(metrics=metrics, metric_units=units, timelines=timelines, documents=documents)


def _result(status: Status, started_at: float, wall_s: float, rng: np.random.Generator,
            stdout: str, stderr: str) -> ProcessResult:
    ok = status == Status.OK
    measures = ProcessMeasures(wall_s=wall_s, user_s=wall_s * 1.4, sys_s=wall_s * 0.1,
                               max_rss_bytes=int(rng.normal(520e6, 10e6)),
                               minor_faults=int(rng.integers(10_000, 20_000)),
                               major_faults=0, vol_ctx_switches=int(rng.integers(100, 900)),
                               invol_ctx_switches=int(rng.integers(10, 90)))
    return ProcessResult(status=status, reason=None if ok else "exit code 1", exit_code=0 if ok else 1,
                         signal=None, measures=measures, pid=None, started_at=started_at,
                         stdout_tail=stdout, stderr_tail=stderr)


def generate(store: Store, spec: SyntheticSpec = SyntheticSpec(), fingerprint: dict[str, Any] | None = None) -> int:
    """Write one experiment; returns its id. Runs in seconds for hundreds of invocations."""
    rng = np.random.default_rng(spec.seed)
    text = _spec_text(spec)
    exp_id = store.create_experiment(
        name=spec.name, spec_text=text, spec_hash=hashlib.sha256(text.encode()).hexdigest(), spec_path=None,
        fingerprint=fingerprint or {"kernel": "Linux test", "cpu_count": 2, "jdks": {}}, seed=spec.seed,
        command_line="jvmlab run synthetic.toml", jvmlab_version="test", artifacts_dir="")
    cells = []
    for idx, (jvm, gc) in enumerate(itertools.product(spec.jvms, spec.gc_levels)):
        flags = [f"-XX:+Use{gc.capitalize()}GC", *spec.extra_flags]
        argv = ["/usr/bin/java", *flags, "-cp", "classes", "JvmlabChunkGen"]
        cell_id = store.add_cell(exp_id, idx=idx, name=f"{jvm} gc={gc}", jvm=jvm, jdk={"home": "/usr/bin/..",
                                 "version": "17", "feature": 17, "vendor": "test"}, levels={"gc": gc},
                                 requested_flags=flags, flags=flags, final_flags={}, argv=argv)
        slowdown = (1.0 + 0.15 * spec.jvms.index(jvm)) * (1.0 + 0.4 * spec.gc_levels.index(gc))
        cells.append((cell_id, argv, slowdown))
    store.set_baseline(exp_id, 0)
    if spec.dead_cell:
        flags = ["-XX:+UseNoSuchGC"]
        dead_id = store.add_cell(exp_id, idx=len(cells), name="dead gc=none", jvm=spec.jvms[0],
                                 jdk={"home": "/usr/bin/..", "version": "17", "feature": 17, "vendor": "test"},
                                 levels={"gc": "none"}, requested_flags=flags, flags=flags, final_flags={},
                                 argv=["/usr/bin/java", *flags])
        for block in range(spec.invocations):
            result = _result(Status.FAILED, 1.6e9 + block, 0.2, rng, "", "Unrecognized VM option\n")
            store.record_invocation(exp_id, dead_id, block=block, position=len(cells), result=result,
                                    collected=Collected(), argv=["/usr/bin/java", *flags], artifacts_dir=None)
    started = 1.7e9
    for block in range(spec.invocations):
        for pos in rng.permutation(len(cells)):
            cell_id, argv, slowdown = cells[int(pos)]
            wall = float(rng.lognormal(math.log(2.0 * slowdown * spec.scale), 0.05))
            started += wall + 0.1
            result = _result(Status.OK, started, wall, rng, f"progress {block} chunks\n", "")
            store.record_invocation(exp_id, cell_id, block=block, position=int(pos), result=result,
                                    collected=_collected(rng, spec, wall, slowdown), argv=argv, artifacts_dir=None)
    for k in range(spec.failures):
        cell_id, argv, _ = cells[-1]
        result = _result(Status.FAILED, started + k, 0.5, rng, "", "Exception in thread main: boom\n")
        store.record_invocation(exp_id, cell_id, block=spec.invocations + k, position=0, result=result,
                                collected=Collected(), argv=argv, artifacts_dir=None)
    store.add_hazard(exp_id, Hazard(BUSY_MACHINE, "other processes used 40% of the CPU during block 1",
                                    "stop other work on this machine, or rerun", load=MachineLoad(0, 0.4)))
    store.set_status(exp_id, "done", finished=True)
    return exp_id
