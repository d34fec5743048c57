"""A fake executor whose results are read from its arguments (after hyperfine's mock
executor): deterministic statistics for tests and benchmarks, no process started.

A JVM flag ``-Dfake.mean_s=1.25`` sets the cell's true mean wall time and
``-Dfake.cv=0.05`` its coefficient of variation (log-normal noise); ``-Dfake.exit=3``
makes it fail. The noise is seeded by the seed given and a per-executor counter, so a run
is reproducible. Real runs never use this.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence

import numpy as np

from jvmlab.model.probe import Probe
from jvmlab.model.process import InvocationPlan, ProcessMeasures, ProcessResult, Status

_PROP = re.compile(r"^-Dfake\.(?P<key>[a-z_]+)=(?P<value>.+)$")


class FakeExecutor:
    name = "fake"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.calls = 0

    def run(self, plan: InvocationPlan, probes: Sequence[Probe] = ()) -> ProcessResult:
        self.calls += 1
        props = {m["key"]: m["value"] for arg in plan.argv if (m := _PROP.match(arg))}
        mean_s = float(props.get("mean_s", "1.0"))
        cv = float(props.get("cv", "0.05"))
        sigma = math.sqrt(math.log1p(cv * cv))
        wall_s = float(mean_s * self.rng.lognormal(-sigma * sigma / 2, sigma))
        code = int(props.get("exit", "0"))
        measures = ProcessMeasures(wall_s=wall_s, user_s=wall_s * 0.8, sys_s=wall_s * 0.1,
                                   max_rss_bytes=64 << 20, minor_faults=1000, major_faults=0,
                                   vol_ctx_switches=10, invol_ctx_switches=1)
        status = Status.OK if code == 0 else Status.FAILED
        return ProcessResult(status, None if code == 0 else f"exit code {code}", code, None, measures,
                             None, time.time())
