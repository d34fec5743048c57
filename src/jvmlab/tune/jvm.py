"""Measuring real JVMs for the tuner, with the store as the only memory.

Each distinct configuration is a cell added to the running experiment (a new ``idx``);
each invocation is stored with its block and position. On `--resume` the history is read
back and an invocation already stored for (block, position, configuration) is returned
instead of run again. Flags are checked once per distinct JDK + flags with the same check
`run` uses; a refusal or a failed launch is an infeasible trial, never a crash.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from jvmlab.errors import UserError
from jvmlab.execute.load import BUSY_SHARE, LoadWatch
from jvmlab.jdk.flags import check_flags
from jvmlab.machine.fingerprint import changes, fingerprint
from jvmlab.model.collected import Collected
from jvmlab.model.process import InvocationPlan, Status
from jvmlab.plan.prepare import Plan
from jvmlab.store.protocol import Store
from jvmlab.tune.model import Metrics
from jvmlab.tune.space import TUNABLE_METRICS


def _metrics_of(row: Any) -> Metrics:
    return {m: float(getattr(row, m)) for m in TUNABLE_METRICS if getattr(row, m, None) is not None}


class FlagChecker:
    """Flag checks only (what `tune` does before anything is stored or measured)."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.checked: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}

    def _cell(self, jvm: str) -> Any:
        for pc in self.plan.cells:
            if pc.cell.jvm == jvm:
                return pc
        raise UserError(f"[tune] JDK {jvm!r} is not in [jvms]")

    def rejected(self, jvm: str, flags: tuple[str, ...]) -> str | None:
        """The same check `run` does; the accepted flags (unlocks added) are what runs."""
        try:
            check = check_flags(self._cell(jvm).jdk, list(flags))
        except UserError as err:
            return str(err)
        self.checked[(jvm, flags)] = tuple(check.flags)
        return None


class JvmMeasurer(FlagChecker):
    """Runs one configuration of the plan's workload as a fresh JVM (``executor.run``)."""

    def __init__(self, plan: Plan, store: Store, experiment_id: int, artifacts: Path, executor: Any) -> None:
        super().__init__(plan)
        self.store, self.exp, self.artifacts, self.executor = store, experiment_id, artifacts, executor
        self.cells: dict[str, int] = {c.levels.get("config", c.name): c.id for c in store.cells(experiment_id)}
        self.next_idx = max((c.idx for c in store.cells(experiment_id)), default=-1) + 1
        by_id = {v: k for k, v in self.cells.items()}
        self.history: dict[tuple[int, int, str], Metrics | str] = {}
        for inv in store.invocations(experiment_id):
            key = (inv.block, inv.position, by_id.get(inv.cell_id, ""))
            self.history[key] = _metrics_of(inv) if inv.status == str(Status.OK) else (inv.reason or inv.status)
        self.fingerprint = store.experiment(experiment_id).fingerprint
        self.said: set[str] = set()
        self.replayed = 0
        self.measured = 0
        self.watch = LoadWatch()
        self.watch.start()

    def block_hazards(self) -> list[str]:
        """Busy (other processes' CPU share in the block) and fingerprint changes since the
        experiment started (a JDK upgraded or THP switched mid-run), each change said once."""
        out = []
        share = self.watch.other_share()
        self.watch.start()
        if share is not None and share > BUSY_SHARE:
            out.append(f"machine busy: other processes used {share:.0%} of the CPU during the block")
        for change in changes(self.fingerprint, fingerprint(self.plan.jdk_homes)):
            if change not in self.said:
                self.said.add(change)
                out.append(f"machine changed: {change}")
        return out

    def measure(self, jvm: str, flags: tuple[str, ...], block: int, position: int) -> Metrics | str:
        key = f"{jvm}|{' '.join(flags)}"
        if (block, position, key) in self.history:
            self.replayed += 1
            return self.history[(block, position, key)]
        pc = self._cell(jvm)
        cell_id = self._cell_id(key, jvm, pc, flags, self.checked.get((jvm, flags)) or flags)
        artifacts = self.artifacts / f"exp-{self.exp}" / f"cell-{cell_id}" / f"b{block}"
        artifacts.mkdir(parents=True, exist_ok=True)
        run_flags = self.checked.get((jvm, flags)) or flags
        argv = pc.launch.argv(pc.jdk, list(run_flags), pc.cell.args, artifacts_dir=artifacts)
        spec = self.plan.spec
        plan = InvocationPlan(argv=tuple(argv), env={**os.environ, **spec.workload.env, "JAVA_HOME": str(pc.jdk.home)},
                              cwd=self.plan.workdir or Path.cwd(), timeout_s=spec.workload.timeout or spec.run.timeout,
                              artifacts_dir=artifacts, ready_regex=spec.workload.ready,
                              output_cap_bytes=spec.collect.output_cap_bytes)
        result = self.executor.run(plan, [])
        self.measured += 1
        self.store.record_invocation(self.exp, cell_id, block=block, position=position, result=result,
                                     collected=Collected(), argv=argv, artifacts_dir=str(artifacts))
        if result.status != Status.OK or result.measures is None:
            return result.reason or str(result.status)
        m = result.measures
        out = {"wall_s": m.wall_s, "user_s": m.user_s, "sys_s": m.sys_s, "max_rss_bytes": m.max_rss_bytes,
               "ready_s": m.ready_s}
        return {k: float(v) for k, v in out.items() if v is not None}

    def _cell_id(self, key: str, jvm: str, pc: Any, flags: tuple[str, ...], run_flags: tuple[str, ...]) -> int:
        """The configuration's cell, added to the running experiment the first time it runs."""
        if key not in self.cells:
            self.cells[key] = self.store.add_cell(
                self.exp, idx=self.next_idx, name=f"t{self.next_idx}", jvm=jvm, jdk={"home": str(pc.jdk.home)},
                levels={"config": key}, requested_flags=list(flags), flags=list(run_flags), final_flags={},
                argv=None)
            self.next_idx += 1
        return self.cells[key]
