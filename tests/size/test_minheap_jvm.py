"""The minimum heap of a workload with a known live set, on a real JVM, stored and resumable."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.execute.local import LocalExecutor
from jvmlab.plan.prepare import prepare
from jvmlab.sizing.minheap import MinHeapSettings, Status, Verdict
from jvmlab.sizing.study import MinHeapRequest, load_min_heap, run_min_heap
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

pytestmark = pytest.mark.jvm
MB = 1 << 20
LIVE_MB = 64

SPEC = '''[workload]
builtin = "hold"
args = ["--live-mb", "{live}", "--alloc-mb", "128"]
[jvms]
j17 = "{home}"
[factors.gc]
Serial = "-XX:+UseSerialGC -Xmx2g"
[run]
timeout = "60s"
'''


class CountingExecutor(LocalExecutor):
    def __init__(self) -> None:
        super().__init__()
        self.runs = 0

    def run(self, plan, probes=()):  # type: ignore[no-untyped-def]
        self.runs += 1
        return super().run(plan, probes)


def test_minimum_heap_of_a_64_mb_live_set(tmp_path: Path, jdk17_home: Path) -> None:
    text = SPEC.format(live=LIVE_MB, home=jdk17_home)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    request = MinHeapRequest(MinHeapSettings(16 * MB, 256 * MB, 4 * MB, repeats=2, max_probes=30))
    executor = CountingExecutor()
    study = run_min_heap(plan, store, request, tmp_path / "art", executor=executor)
    [cell] = study.cells
    r = cell.result
    assert r.status is Status.FOUND, r.note
    # the live set alone needs 64 MB; the heap around it needs less than twice that
    assert LIVE_MB * MB <= r.upper_bytes <= 2 * LIVE_MB * MB
    assert r.upper_bytes - r.lower_bytes >= 4 * MB
    assert any(p.verdict is Verdict.OOM and "OutOfMemoryError" in (p.reason or "") for p in r.probes)
    # the cell's own -Xmx2g was replaced by the probed size
    invocations = store.invocations(study.experiment_id)
    assert len(invocations) == r.invocations == executor.runs
    assert all("-Xmx2g" not in inv.argv for inv in invocations)
    # stored, read back, and a resume replays everything without starting a JVM
    assert load_min_heap(store, study.experiment_id).cells[0].result.upper_bytes == r.upper_bytes
    again = CountingExecutor()
    resumed = run_min_heap(plan, store, request, tmp_path / "art", resume=True, executor=again)
    assert again.runs == 0 and resumed.resumed_probes == r.invocations
    assert resumed.cells[0].result.upper_bytes == r.upper_bytes
    assert resumed.experiment_id == study.experiment_id


def test_probes_run_inside_the_specs_memory_limit(tmp_path: Path, jdk17_home: Path) -> None:
    from jvmlab.errors import UserError
    from jvmlab.machine import cgroup

    try:
        cgroup.find_hierarchy(["memory"])
    except UserError as err:
        pytest.skip(str(err))
    text = SPEC.format(live=16, home=jdk17_home).replace('"128"', '"64"') + '[environment]\nmemory = ["512m"]\n'
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    request = MinHeapRequest(MinHeapSettings(8 * MB, 64 * MB, 4 * MB, repeats=1, max_probes=12))
    study = run_min_heap(plan, store, request, tmp_path / "art")
    assert study.cells[0].result.status is Status.FOUND
    invocations = store.invocations(study.experiment_id)
    assert invocations and all(inv.metrics.get("cgroup.oom_kills") == 0 for inv in invocations)
