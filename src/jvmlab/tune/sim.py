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
from collections.abc import Callable
from typing import Any

import numpy as np

from jvmlab.tune.model import Config, Metrics
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
                 step: tuple[int, float] | None = None,
                 truth: Callable[[tuple[str, ...]], Metrics] | None = None) -> None:
        """``step = (block, factor)``: from that block on the machine is ``factor`` times slower
        (a neighbour started): the systematic drift the per-race drift check must catch.
        ``truth``: the surface (default: ``true_metrics``; ``hold_metrics`` for the real grid's)."""
        self.seed, self.cv, self.drift, self.step = seed, cv, drift, step
        self.truth = truth or true_metrics
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
        true = self.truth(flags)
        got = {"wall_s": true["wall_s"] * noise, "max_rss_bytes": true["max_rss_bytes"] * rng.uniform(0.98, 1.02)}
        self.history[key] = got
        return got


def true_optimum(config: TuneConfig, points: int = 24) -> float:
    """The best noise-free wall time over a fine grid of the space (conditions respected)."""
    return min(true_metrics(config.flags(c))["wall_s"] for c in grid_points(config, points))


# The real bench's space (bench/tuner.py --quick: hold, 40 MiB live, 1 GiB of garbage; baseline
# -Xmx48m) and its grid's mean wall times in seconds, measured once on the loaded 2-core machine
# (`bench/tuner.py --quick --no-sim --real-seeds 0 --alloc-mb 1024`, 10 invocations a cell):
# (collector, heap, pre-touch) -> s. Two cells tie at the top (G1 128m pre-touched, Serial
# 128m); the next are 5-10% behind, the baseline 6x. Pre-touch helps G1 and hurts Serial:
# the surface is not additive.
HOLD_TUNE: dict[str, Any] = {
    "objective": "wall_s",
    "baseline": "-Xmx48m",
    "budget": {"invocations": 36},
    "max_blocks": 8,
    "confirm_max_blocks": 3,
    "params": {
        "gc": {"type": "categorical", "values": {"g1": "-XX:+UseG1GC", "serial": "-XX:+UseSerialGC",
                                                  "parallel": "-XX:+UseParallelGC"}},
        "heap": {"type": "categorical", "values": {"h48m": "-Xmx48m", "h128m": "-Xmx128m", "h512m": "-Xmx512m"}},
        "pretouch": {"type": "categorical", "values": {"off": "", "on": "-XX:+AlwaysPreTouch"}},
    },
}
HOLD_WALL_S: dict[tuple[str, str, bool], float] = {
    ("g1", "128m", True): 0.1767, ("serial", "128m", False): 0.1779, ("g1", "128m", False): 0.1869,
    ("serial", "128m", True): 0.1937, ("parallel", "128m", False): 0.2042, ("parallel", "128m", True): 0.2119,
    ("serial", "512m", False): 0.2486, ("parallel", "512m", False): 0.2632, ("parallel", "512m", True): 0.2728,
    ("serial", "512m", True): 0.2807, ("g1", "512m", True): 0.2934, ("g1", "512m", False): 0.3128,
    ("serial", "48m", True): 0.3729, ("serial", "48m", False): 0.4007, ("parallel", "48m", True): 0.9785,
    ("parallel", "48m", False): 0.9932, ("g1", "48m", True): 1.0625, ("g1", "48m", False): 1.0893,
}
_HOLD_GC = {"-XX:+UseG1GC": "g1", "-XX:+UseSerialGC": "serial", "-XX:+UseParallelGC": "parallel"}


def _hold_cell(flags: tuple[str, ...]) -> tuple[str, str, bool]:
    """The JVM these flags make (later flags win, G1 and no heap limit... are the defaults: the
    same JVM whatever the spelling, as effective flags say on a real JDK)."""
    gc, heap, pretouch = "g1", "512m", False
    for f in flags:
        if f in _HOLD_GC:
            gc = _HOLD_GC[f]
        elif f.startswith("-Xmx"):
            heap = f[4:]
        elif f in ("-XX:+AlwaysPreTouch", "-XX:-AlwaysPreTouch"):
            pretouch = f[4] == "+"
    return gc, heap, pretouch


def hold_config(**overrides: Any) -> TuneConfig:
    return parse_tune({**HOLD_TUNE, **overrides})


def hold_metrics(flags: tuple[str, ...]) -> Metrics:
    """The real grid's mean wall time for these flags (and a peak RSS that grows with the heap)."""
    gc, heap, pretouch = _hold_cell(flags)
    return {"wall_s": HOLD_WALL_S[(gc, heap, pretouch)], "max_rss_bytes": (60.0 + int(heap[:-1])) * (1 << 20)}


def hold_identity(config: Config) -> str:
    """Configurations that make the same JVM on the hold surface (the effective-flags identity's role)."""
    return "|".join(map(str, _hold_cell(config.flags)))


def hold_optimum() -> float:
    return min(HOLD_WALL_S.values())
