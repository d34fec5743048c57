"""HookedExecutor's rules with real hook processes around the fake executor: setup once per
cell, cleanup once per set-up cell, a failing hook fails its invocation, timeouts are bounded."""

from __future__ import annotations

import os
import time
from pathlib import Path

from jvmlab.execute.fake import FakeExecutor
from jvmlab.execute.hooks import HookedExecutor
from jvmlab.model.hooks import SHELL, HookCommand, InvocationHooks
from jvmlab.model.process import InvocationPlan, Status


def _plan(tmp: Path, cell: str, block: int, *hooks: HookCommand) -> InvocationPlan:
    folder = tmp / cell / f"b{block}"
    folder.mkdir(parents=True, exist_ok=True)
    filled = tuple(h.filled("/no/java", cell, folder.parent if h.kind in ("setup", "cleanup") else folder)
                   for h in hooks)
    return InvocationPlan(argv=("java",), env=dict(os.environ), cwd=tmp, timeout_s=10, artifacts_dir=folder,
                          hooks=InvocationHooks(cell, tmp, filled))


def _sh(kind: str, text: str, timeout_s: float = 10) -> HookCommand:
    return HookCommand(kind, (*SHELL, text), timeout_s, shell=True)


def test_setup_once_per_cell_and_cleanup_once_at_the_end(tmp_path: Path) -> None:
    hooks = (_sh("setup", "echo {cell} >> setups.txt"), _sh("before_each", "echo b >> each.txt"),
             _sh("cleanup", "echo {cell} >> cleanups.txt"))
    executor = HookedExecutor(FakeExecutor())
    for block in range(3):
        for cell in ("a", "b"):
            assert executor.run(_plan(tmp_path, cell, block, *hooks)).status == Status.OK
    assert not (tmp_path / "cleanups.txt").exists()
    executor.close()
    assert (tmp_path / "setups.txt").read_text().split() == ["a", "b"]
    assert (tmp_path / "each.txt").read_text().split() == ["b"] * 6
    assert sorted((tmp_path / "cleanups.txt").read_text().split()) == ["a", "b"]


def test_a_failed_setup_fails_every_invocation_of_its_cell_and_is_not_retried(tmp_path: Path) -> None:
    hooks = (_sh("setup", "echo tried >> tries.txt; echo no disk; exit 4"), _sh("cleanup", "echo c >> clean.txt"))
    executor = HookedExecutor(FakeExecutor())
    results = [executor.run(_plan(tmp_path, "a", block, *hooks)) for block in range(3)]
    assert [r.status for r in results] == [Status.START_FAILED] * 3
    assert all("setup hook" in (r.reason or "") and "code 4: no disk" in (r.reason or "") for r in results)
    assert (tmp_path / "tries.txt").read_text().split() == ["tried"]
    assert executor.close() == [] and (tmp_path / "clean.txt").read_text().split() == ["c"]


def test_after_each_failing_fails_the_invocation_and_keeps_its_measures(tmp_path: Path) -> None:
    result = HookedExecutor(FakeExecutor()).run(_plan(tmp_path, "a", 0, _sh("after_each", "exit 2")))
    assert result.status == Status.FAILED and "after_each hook" in (result.reason or "")
    assert result.measures is not None


def test_a_hook_past_its_timeout_is_killed_with_its_children(tmp_path: Path) -> None:
    t0 = time.monotonic()
    hook = _sh("before_each", "sleep 30 & sleep 30; echo never", timeout_s=0.5)
    result = HookedExecutor(FakeExecutor()).run(_plan(tmp_path, "a", 0, hook))
    assert time.monotonic() - t0 < 10
    assert result.status == Status.START_FAILED and "did not finish within 0.5 s" in (result.reason or "")


def test_a_failing_cleanup_is_a_hazard(tmp_path: Path) -> None:
    executor = HookedExecutor(FakeExecutor())
    executor.run(_plan(tmp_path, "a", 0, _sh("cleanup", "echo gone wrong; exit 1")))
    problems = executor.close()
    assert len(problems) == 1 and problems[0].kind == "hook-failed" and "gone wrong" in problems[0].detail
    assert problems[0].cell == "a"


def test_without_hooks_the_inner_executor_alone_runs(tmp_path: Path) -> None:
    inner = FakeExecutor()
    plan = InvocationPlan(argv=("java",), env={}, cwd=tmp_path, timeout_s=10, artifacts_dir=tmp_path)
    assert HookedExecutor(inner).run(plan).status == Status.OK and inner.calls == 1
