"""`run --label/--series/--order` through the one loop: the experiment it opens is a point of
a series (issue 36 item 1), on a new run and on --resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.execute.fake import FakeExecutor
from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
from jvmlab.model.stored import SeriesTag
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

pytestmark = pytest.mark.jvm  # prepare() identifies the real JDK


class Quiet:
    def planned(self, *a): pass
    def starting(self, *a): pass
    def finished(self, *a): pass
    def warn(self, hazard): pass
    def extended(self, *a): pass


def test_the_opened_experiment_carries_its_label_series_and_order(tmp_path: Path, jdk17_home: Path) -> None:
    def spec(invocations: int) -> str:
        return (f'name = "nightly-spec"\n[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n'
                f'[run]\ninvocations = {invocations}\nwarmup = 0\n')

    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    art = tmp_path / "art"

    def run(text: str, tag: SeriesTag | None, resume: bool = False) -> int:
        plan = prepare(parse_spec(text), text, None)
        options = RunOptions(artifacts_root=art, resume=resume, series=tag)
        return run_experiment(plan, store, options, Quiet(), executor=FakeExecutor())

    first = run(spec(2), SeriesTag("abc123"))
    second = run(spec(3), SeriesTag("def456", "jdks", 7.0))
    plain = run(spec(4), None)
    got = store.experiment(first)
    assert (got.series, got.label, got.label_order) == ("nightly-spec", "abc123", None)
    got = store.experiment(second)
    assert (got.series, got.label, got.label_order) == ("jdks", "def456", 7.0)
    assert store.experiment(plain).series is None and store.series_names() == {"nightly-spec": 1, "jdks": 1}
    resumed = run(spec(4), SeriesTag("abc124"), resume=True)  # the newest experiment of this spec
    assert resumed == plain and store.experiment(plain).label == "abc124"
    assert run(spec(4), None, resume=True) == plain and store.experiment(plain).label == "abc124"
