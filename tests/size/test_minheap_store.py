"""The search's store side without JVMs: a fake executor whose answer is read from -Xmx;
an interrupted search resumes where it stopped, on a real SQLite file."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.errors import Interrupted
from jvmlab.model.process import InvocationPlan, ProcessMeasures, ProcessResult, Status
from jvmlab.plan.prepare import prepare
from jvmlab.sizing.minheap import MinHeapSettings, Verdict
from jvmlab.sizing.study import MinHeapRequest, load_min_heap, run_min_heap
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

MB = 1 << 20


class ThresholdExecutor:
    """OK at -Xmx >= threshold, else an OutOfMemoryError; Ctrl-C after ``stop_after`` runs."""

    def __init__(self, threshold: int, stop_after: int | None = None) -> None:
        self.threshold, self.stop_after, self.runs = threshold, stop_after, 0

    def run(self, plan: InvocationPlan, probes=()) -> ProcessResult:  # type: ignore[no-untyped-def]
        if self.stop_after is not None and self.runs >= self.stop_after:
            raise KeyboardInterrupt
        self.runs += 1
        heap = int(next(a for a in plan.argv if a.startswith("-Xmx"))[4:-1]) * 1024
        measures = ProcessMeasures(0.1, 0.1, 0.01, heap, 1, 0, 1, 1)
        if heap >= self.threshold:
            return ProcessResult(Status.OK, None, 0, None, measures, 1, 0.0)
        tail = 'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space'
        return ProcessResult(Status.FAILED, f"exit code 1: {tail}", 1, None, measures, 1, 0.0, stderr_tail=tail)


def test_interrupted_search_resumes_without_repeating_probes(tmp_path: Path, jdk17_home: Path) -> None:
    text = f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n[factors.gc]\nA = "-Da"\nB = "-Db"\n'
    plan = prepare(parse_spec(text), text, None, check_flags=False)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    request = MinHeapRequest(MinHeapSettings(8 * MB, 512 * MB, MB, repeats=3))
    with pytest.raises(Interrupted, match="--resume"):
        run_min_heap(plan, store, request, tmp_path / "a", executor=ThresholdExecutor(100 * MB, stop_after=20))
    [exp] = store.experiments()
    assert exp.status == "interrupted" and len(store.invocations(exp.id)) == 20
    rest = ThresholdExecutor(100 * MB)
    study = run_min_heap(plan, store, request, tmp_path / "a", resume=True, executor=rest)
    assert study.experiment_id == exp.id and store.experiment(exp.id).status == "done"
    full = run_min_heap(plan, SqlStore(f"sqlite:///{tmp_path / 'b.db'}"), request, tmp_path / "b",
                        executor=ThresholdExecutor(100 * MB))
    total = sum(c.result.invocations for c in full.cells)
    assert rest.runs == total - 20 and len(store.invocations(exp.id)) == total
    for cell in load_min_heap(store, exp.id).cells:
        assert (cell.result.lower_bytes, cell.result.upper_bytes) == (99 * MB, 100 * MB)
        assert {p.verdict for p in cell.result.probes} == {Verdict.PASS, Verdict.OOM}
