"""Seeded series for the history tests: experiments with labels, written through the Store
protocol exactly as `run --label` leaves them (no shortcut around the store)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from jvmlab.metrics import RUN_DELAY
from jvmlab.model.collected import Collected
from jvmlab.model.process import ProcessMeasures, ProcessResult, Status
from jvmlab.model.stored import SeriesTag
from jvmlab.store.protocol import Store

# label index, cell name -> mean wall_s for that label
Level = Callable[[int, str], float]


def result(wall_s: float, status: Status = Status.OK, cpu_s: float | None = None) -> ProcessResult:
    """An invocation's measures: CPU time 0.9 of the wall (user 0.8, sys 0.1), or ``cpu_s``."""
    cpu = wall_s * 0.9 if cpu_s is None else cpu_s
    measures = ProcessMeasures(wall_s=wall_s, user_s=cpu * 8 / 9, sys_s=cpu / 9, max_rss_bytes=100 << 20,
                               minor_faults=1, major_faults=0, vol_ctx_switches=1, invol_ctx_switches=1)
    return ProcessResult(status, None if status == Status.OK else "exit code 1", 0 if status == Status.OK else 1,
                         None, measures, 1, time.time())


def seed_series(store: Store, name: str, labels: Sequence[str], cells: Sequence[str], level: Level,
                runs: int = 5, sd: float = 0.01, seed: int = 0, orders: Sequence[float | None] | None = None,
                series: str | None = None, delay: Level | None = None, cpu: Level | None = None) -> list[int]:
    """One experiment per label, ``runs`` invocations per cell, wall_s ~ N(level, sd); with
    ``delay``, each invocation's run-queue delay (``sched.run_delay_s``) for that label too; with
    ``cpu``, CPU time ~ N(cpu, sd) of its own (else 0.9 of the wall)."""
    rng = np.random.default_rng(seed)
    ids = []
    for i, label in enumerate(labels):
        exp = store.create_experiment(name=name, spec_text="[workload]\nbuiltin='hello'\n", spec_hash=f"h{i}",
                                      spec_path=None, fingerprint={"hostname": "box"}, seed=1,
                                      command_line="jvmlab run", jvmlab_version="0", artifacts_dir="/tmp")
        for k, cell in enumerate(cells):
            cell_id = store.add_cell(exp, idx=k, name=cell, jvm="default", jdk={}, levels={}, requested_flags=[],
                                     flags=[], final_flags={}, argv=None)
            for block in range(runs):
                wall = float(level(i, cell) + rng.normal(0, sd))
                cpu_s = float(cpu(i, cell) + rng.normal(0, sd)) if cpu else None
                store.record_invocation(exp, cell_id, block=block, position=k, result=result(wall, cpu_s=cpu_s),
                                        collected=Collected(metrics={"workload.ops_s": 1.0 / wall, **(
                                            {RUN_DELAY: delay(i, cell)} if delay else {})}), argv=["java"],
                                        artifacts_dir=None)
        store.set_series(exp, SeriesTag(label, series, orders[i] if orders else None), name)
        store.set_status(exp, "done", finished=True)
        ids.append(exp)
    return ids
