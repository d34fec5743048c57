"""A simulated JVM for the tuner's seeded tests and bench: a known response surface over
collector, heap size, pause goal, GC threads and one boolean, with 5% log-normal noise and a
per-block drift (what paired blocks cancel). Real runs never use this.

Each invocation's noise is drawn from (seed, block, position, flags), so re-measuring the
same address gives the same value and a replay after a "kill" is exact.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

import numpy as np

from jvmlab.tune.model import Metrics
from jvmlab.tune.space import TuneConfig, grid_points, parse_tune

SIM_TUNE: dict[str, Any] = {
    "objective": "wall_s",
    "guardrails": ["max_rss_bytes <= 1.6x baseline"],
    "budget": {"trials": 40},
    "params": {
        "gc": {"type": "categorical", "values": {"g1": "-XX:+UseG1GC", "parallel": "-XX:+UseParallelGC",
                                                  "serial": "-XX:+UseSerialGC"}},
        "heap": {"type": "size", "low": "256m", "high": "4g", "log": True, "flag": "-Xmx{}", "step": "64m"},
        "pause": {"type": "int", "low": 20, "high": 500, "log": True, "flag": "-XX:MaxGCPauseMillis={}",
                  "when": {"gc": "g1"}},
        "threads": {"type": "int", "low": 1, "high": 8, "flag": "-XX:ParallelGCThreads={}"},
        "pretouch": {"type": "bool", "flag": "-XX:+AlwaysPreTouch"},
    },
}
_GC = {"-XX:+UseG1GC": ("g1", 1.0), "-XX:+UseParallelGC": ("parallel", 0.90), "-XX:+UseSerialGC": ("serial", 1.06)}


def sim_config(**overrides: Any) -> TuneConfig:
    return parse_tune({**SIM_TUNE, **overrides})


def true_metrics(flags: tuple[str, ...]) -> Metrics:
    """The surface's noise-free wall time (s) and peak RSS (bytes) for these flags."""
    gc, gc_factor = "g1", 1.0
    heap_mb, pause, threads, pretouch = 512.0, 200.0, 2, False
    for f in flags:
        if f in _GC:
            gc, gc_factor = _GC[f]
        elif m := re.fullmatch(r"-Xmx(\d+)([mg])", f):
            heap_mb = float(m[1]) * (1024 if m[2] == "g" else 1)
        elif m := re.fullmatch(r"-XX:MaxGCPauseMillis=(\d+)", f):
            pause = float(m[1])
        elif m := re.fullmatch(r"-XX:ParallelGCThreads=(\d+)", f):
            threads = int(m[1])
        elif f == "-XX:+AlwaysPreTouch":
            pretouch = True
    h = math.log2(heap_mb / 1536.0)
    heap_factor = 1.0 + 0.05 * h * h + 0.25 * max(0.0, math.log2(512.0 / heap_mb))
    pause_factor = 1.0 + (0.03 * math.log(pause / 80.0) ** 2 if gc == "g1" else 0.0)
    thread_factor = 1.0 + (0.04 * abs(math.log2(threads / 4.0)) if gc != "serial" else 0.0)
    wall = 10.0 * gc_factor * heap_factor * pause_factor * thread_factor * (1.015 if pretouch else 1.0)
    rss = (120.0 + heap_mb * (0.9 if pretouch else 0.6)) * (1 << 20)
    return {"wall_s": wall, "max_rss_bytes": rss}


class SimMeasurer:
    """Measures the surface with noise; counts what it really measured (not replayed)."""

    def __init__(self, seed: int, cv: float = 0.05, drift: float = 0.03,
                 step: tuple[int, float] | None = None) -> None:
        """``step = (block, factor)``: from that block on the machine is ``factor`` times slower
        (a neighbour started): the systematic drift the per-race drift check must catch."""
        self.seed, self.cv, self.drift, self.step = seed, cv, drift, step
        self.history: dict[tuple[int, int, str], Metrics] = {}
        self.measured = 0

    def rejected(self, jvm: str, flags: tuple[str, ...]) -> str | None:
        bad = [f for f in flags if "Bogus" in f]
        return f"Unrecognized VM option '{bad[0][5:]}'" if bad else None

    def block_hazards(self) -> list[str]:
        return []

    def measure(self, jvm: str, flags: tuple[str, ...], block: int, position: int) -> Metrics | str:
        key = (block, position, " ".join(flags))
        if key in self.history:
            return self.history[key]
        self.measured += 1
        digest = int(hashlib.sha256(repr(key).encode()).hexdigest()[:8], 16)
        rng = np.random.default_rng([self.seed, digest])
        block_rng = np.random.default_rng([self.seed, block, 7])
        sigma = math.sqrt(math.log1p(self.cv ** 2))
        noise = rng.lognormal(-sigma * sigma / 2, sigma) * (1.0 + self.drift * block_rng.standard_normal())
        if self.step is not None and block >= self.step[0]:
            noise *= self.step[1]
        true = true_metrics(flags)
        got = {"wall_s": true["wall_s"] * noise, "max_rss_bytes": true["max_rss_bytes"] * rng.uniform(0.98, 1.02)}
        self.history[key] = got
        return got


def true_optimum(config: TuneConfig, points: int = 24) -> float:
    """The best noise-free wall time over a fine grid of the space (conditions respected)."""
    return min(true_metrics(config.flags(c))["wall_s"] for c in grid_points(config, points))
