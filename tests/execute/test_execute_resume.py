"""An interrupted --until run resumes where it stopped: the store remembers how the run was
started, no slot is stored twice, the hint repeats the options, and a resume that ends
short of the target says so. Real runner, store and flag checks; a fake executor."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.errors import Interrupted
from jvmlab.execute.fake import FakeExecutor
from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
from jvmlab.plan.prepare import prepare
from jvmlab.results.adaptive import store_precision_reached
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

pytestmark = pytest.mark.jvm

SPEC = '''
[workload]
builtin = "hello"
[jvms]
j = "{home}"
[factors.speed]
base = "-Dfake.mean_s=1.00 -Dfake.cv=0.05"
slower = "-Dfake.mean_s=1.03 -Dfake.cv=0.05"
[run]
invocations = 3
warmup = 1
seed = 11
'''


class Quiet:
    def __init__(self) -> None:
        self.warnings = []
        self.planned_args = None

    def planned(self, *a): self.planned_args = a
    def starting(self, *a): pass
    def finished(self, *a): pass
    def warn(self, hazard): self.warnings.append(hazard)
    def extended(self, *a): pass


class InterruptAfter(FakeExecutor):
    """Ctrl-C after ``calls`` invocations, as a user would press it mid-run."""

    def __init__(self, calls: int) -> None:
        super().__init__(seed=3)
        self.limit = calls

    def run(self, plan, probes=()):
        if self.calls >= self.limit:
            raise KeyboardInterrupt
        return super().run(plan, probes)


def _go(tmp_path: Path, home: Path, executor, observer=None, **options) -> int:
    text = SPEC.format(home=home)
    plan = prepare(parse_spec(text), text, tmp_path / "spec.toml")
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    return run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "art", **options),
                          observer or Quiet(), executor=executor, precision_check=store_precision_reached)


def test_interrupted_until_run_resumes_with_its_own_options(tmp_path: Path, jdk17_home: Path) -> None:
    with pytest.raises(Interrupted) as stopped:
        _go(tmp_path, jdk17_home, InterruptAfter(41), until_rel=0.015, max_invocations=400)
    hint = str(stopped.value)
    assert "--resume" in hint and "--until 1.5%" in hint and "--max-invocations 400" in hint
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    before = len(store.invocations(1, include_warmup=True))
    assert before == 41
    assert store.experiment(1).run_options.until_pct == 1.5
    # the hint's command without options would still continue the --until run
    observer = Quiet()
    exp = _go(tmp_path, jdk17_home, FakeExecutor(seed=4), observer, resume=True)
    assert exp == 1
    assert observer.planned_args[2] == before, "resume counts every stored invocation"
    rows = store.invocations(exp)
    slots = [(i.cell_id, i.block) for i in rows]
    assert len(slots) == len(set(slots)), "no slot stored twice"
    per_cell = {c.id: sum(1 for i in rows if i.cell_id == c.id) for c in store.cells(exp)}
    assert len(set(per_cell.values())) == 1, f"cells left unbalanced: {per_cell}"
    assert len(rows) > before - 2
    reached = store_precision_reached(store, exp, "wall_s", 0.015)
    stopped_short = any(h.kind == "precision-not-reached" for h in observer.warnings)
    assert reached or stopped_short
    assert store.experiment(exp).status == "done"


def test_resume_that_ends_short_of_the_target_says_so(tmp_path: Path, jdk17_home: Path) -> None:
    with pytest.raises(Interrupted):
        _go(tmp_path, jdk17_home, InterruptAfter(12), until_rel=0.001, max_invocations=40)
    observer = Quiet()
    _go(tmp_path, jdk17_home, FakeExecutor(seed=4), observer, resume=True)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    assert len(store.invocations(1)) == 40
    assert any(h.kind == "precision-not-reached" for h in observer.warnings)
