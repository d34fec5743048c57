"""A JDK changed in the middle of a run (an upgrade) is a loud warning, between blocks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from jvmlab.execute.fake import FakeExecutor
from jvmlab.execute.runner import RunOptions, run_experiment
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

pytestmark = pytest.mark.jvm


class UpgradeAfterFirstBlock:
    """An observer that rewrites the JDK's release file once block 0 is done."""

    def __init__(self, release: Path) -> None:
        self.release = release
        self.warnings = []

    def planned(self, *a): pass
    def starting(self, cell, slot):
        if slot.block == 1 and "UPGRADED" not in self.release.read_text():
            self.release.write_text(self.release.read_text() + 'UPGRADED="yes"\n')
    def finished(self, *a): pass
    def warn(self, hazard): self.warnings.append(hazard)
    def extended(self, *a): pass


def test_a_jdk_upgraded_mid_run_is_reported(tmp_path: Path, jdk17_home: Path) -> None:
    text = f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n[run]\ninvocations = 3\nwarmup = 0\n'
    plan = prepare(parse_spec(text), text, None)
    # The fake executor runs nothing, so the cell may point at a JDK folder we can change.
    home = tmp_path / "jdk"
    (home / "lib").mkdir(parents=True)
    (home / "release").write_text((jdk17_home / "release").read_text())
    (home / "lib" / "modules").write_bytes(b"x")
    cells = tuple(dataclasses.replace(pc, jdk=dataclasses.replace(pc.jdk, home=home)) for pc in plan.cells)
    plan = dataclasses.replace(plan, cells=cells)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    observer = UpgradeAfterFirstBlock(home / "release")
    exp = run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "art"), observer, executor=FakeExecutor())
    changed = [h for h in store.hazards(exp) if h.kind == "fingerprint-changed"]
    assert len(changed) == 1 and str(home) in changed[0].detail and "after block 1" in changed[0].detail
    assert observer.warnings and observer.warnings[0].kind == "fingerprint-changed"
    assert len(store.invocations(exp)) == 3, "the run goes on; the warning says the results straddle a change"
