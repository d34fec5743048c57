"""A minimum-heap search killed between any two of its writes resumes and finishes with the
answer of an uninterrupted search, every probe stored once (a real SQLite file; the executor
is a fake whose answer is read from -Xmx, so each cut point is exact).

A probe used to be two writes (its invocation, then the search document); killed between
them, every later --resume failed with a UNIQUE-constraint error and the search never ended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jvmlab.plan.prepare import prepare
from jvmlab.sizing.minheap import MinHeapSettings
from jvmlab.sizing.study import MinHeapRequest, load_min_heap, run_min_heap
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

from .test_minheap_store import MB, ThresholdExecutor

WRITES = {"create_experiment", "add_cell", "set_baseline", "put_record", "set_run_options",
          "set_status", "record_invocation", "add_hazard", "set_spec", "put_node"}


class Killed(BaseException):
    """The process died here (not an exception jvmlab could handle)."""


class CutStore:
    """The real store, killed at its ``cut``-th write (that write does not happen)."""

    def __init__(self, inner: SqlStore, cut: int | None) -> None:
        self.inner, self.cut, self.writes = inner, cut, 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if name not in WRITES:
            return attr

        def write(*args: Any, **kwargs: Any) -> Any:
            if self.cut is not None and self.writes == self.cut:
                raise Killed(name)
            self.writes += 1
            return attr(*args, **kwargs)
        return write


@pytest.fixture(scope="module")
def plan(jdk17_home: Path):  # type: ignore[no-untyped-def]
    text = f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n[factors.gc]\nA = "-Da"\nB = "-Db"\n'
    return prepare(parse_spec(text), text, None, check_flags=False)


REQUEST = MinHeapRequest(MinHeapSettings(8 * MB, 128 * MB, 4 * MB, repeats=2))


def _answers(store: SqlStore, exp: int) -> list[tuple[str, int | None, int | None]]:
    return [(c.cell_name, c.result.lower_bytes, c.result.upper_bytes) for c in load_min_heap(store, exp).cells]


def test_a_search_killed_between_any_two_writes_resumes_and_finishes(tmp_path: Path, plan) -> None:  # type: ignore[no-untyped-def]
    reference = CutStore(SqlStore(f"sqlite:///{tmp_path / 'ref.db'}"), None)
    full = run_min_heap(plan, reference, REQUEST, tmp_path / "ref", executor=ThresholdExecutor(50 * MB))  # type: ignore[arg-type]
    expected = _answers(reference.inner, full.experiment_id)
    probes = len(reference.inner.invocations(full.experiment_id))
    assert expected == [("j gc=A", 48 * MB, 52 * MB), ("j gc=B", 48 * MB, 52 * MB)] and reference.writes > probes
    for cut in range(reference.writes):
        path = tmp_path / f"cut{cut}.db"
        with pytest.raises(Killed):
            run_min_heap(plan, CutStore(SqlStore(f"sqlite:///{path}"), cut), REQUEST,  # type: ignore[arg-type]
                         tmp_path / "a", executor=ThresholdExecutor(50 * MB))
        store = SqlStore(f"sqlite:///{path}")
        started = bool(store.experiments())
        rest = ThresholdExecutor(50 * MB)
        study = run_min_heap(plan, store, REQUEST, tmp_path / "a", resume=started, executor=rest)
        [exp] = store.experiments()
        assert store.experiment(exp.id).status == "done", cut
        assert _answers(store, study.experiment_id) == expected, cut
        stored = store.invocations(exp.id)
        assert len(stored) == probes, f"cut at write {cut}: every probe once"
        assert len({(i.cell_id, i.block) for i in stored}) == probes
