"""Fakes for cluster tests: a sleep-free executor whose value depends on the node that runs it
(a node offset) and on the slot alone (deterministic noise, whatever the order or the node),
and writes an artifact like a GC log. Fakes only make the statistics deterministic."""

from __future__ import annotations

import math
import re
import time
import zlib
from pathlib import Path

import numpy as np

from jvmlab.model.process import InvocationPlan, ProcessMeasures, ProcessResult, Status

_PROP = re.compile(r"-Dfake\.(?P<key>\w+)=(?P<value>\S+)")


class NodeOffsetExecutor:
    """``-Dfake.mean_s`` / ``-Dfake.cv`` as the FakeExecutor; a node in ``offsets`` is slower by
    that factor. Noise is seeded by the slot's artifacts folder (unique per cell and block).

    Failures, as data: a cell with ``-Dfake.fail_p=P`` fails in a share P of its slots (chosen by
    the slot alone), and always on a node in ``fail_on`` (a node where that workload cannot run),
    so that node runs the other cells more often than this one."""

    name = "fake-node"

    def __init__(self, offsets: dict[str, float], seed: int = 0, artifact_bytes: int = 0, sleep_s: float = 0.005,
                 fail_on: frozenset[str] = frozenset(), sleep_on: dict[str, float] | None = None):
        self.offsets, self.seed, self.artifact_bytes, self.sleep_s = offsets, seed, artifact_bytes, sleep_s
        self.fail_on, self.sleep_on = fail_on, sleep_on or {}

    def run(self, plan: InvocationPlan, probes=()) -> ProcessResult:
        from distributed import get_worker

        props = {m["key"]: m["value"] for arg in plan.argv if (m := _PROP.match(arg))}
        mean_s, cv = float(props.get("mean_s", "1.0")), float(props.get("cv", "0.03"))
        sigma = math.sqrt(math.log1p(cv * cv))
        rng = np.random.default_rng([self.seed, zlib.crc32(str(plan.artifacts_dir).encode())])
        node = get_worker().address
        wall_s = mean_s * float(rng.lognormal(-sigma * sigma / 2, sigma)) * self.offsets.get(node, 1.0)
        fail_p = float(props.get("fail_p", "0"))
        sleep_s = self.sleep_on.get(node, self.sleep_s)  # a node that sleeps less takes more blocks
        if fail_p and (rng.random() < fail_p or node in self.fail_on):
            time.sleep(sleep_s)
            return ProcessResult(Status.FAILED, f"fake failure on {node}", 1, None, None, None, time.time())
        if self.artifact_bytes:
            folder = Path(plan.artifacts_dir)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "gc.log").write_bytes(b"x" * self.artifact_bytes)
            (folder / "out.txt").write_text(f"ran {plan.artifacts_dir}\n")
        time.sleep(sleep_s)  # a little time, so every node takes blocks
        measures = ProcessMeasures(wall_s=wall_s, user_s=wall_s * 0.8, sys_s=wall_s * 0.1, max_rss_bytes=64 << 20,
                                   minor_faults=1000, major_faults=0, vol_ctx_switches=10, invol_ctx_switches=1)
        return ProcessResult(Status.OK, None, 0, None, measures, None, time.time())


class Quiet:
    """An observer that keeps the warnings and the blocks --until added."""

    def __init__(self) -> None:
        self.warnings: list = []
        self.added = 0

    def planned(self, *a): pass
    def starting(self, *a): pass
    def finished(self, *a): pass
    def warn(self, hazard): self.warnings.append(hazard)
    def extended(self, added, note): self.added += added
    def nodes(self, busy, idle, rate): pass
