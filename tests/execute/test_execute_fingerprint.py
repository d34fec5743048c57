"""A JDK changed in the middle of a run (an upgrade) is a loud warning, between blocks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from jvmlab.execute.fake import FakeExecutor
from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
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
    assert len(changed) == 1 and str(home) in changed[0].detail and "after block 2" in changed[0].detail
    assert observer.warnings and observer.warnings[0].kind == "fingerprint-changed"
    assert len(store.invocations(exp)) == 3, "the run goes on; the warning says the results straddle a change"


class SlowFake(FakeExecutor):
    """Blocks shorter than half a second are not judged for load: make each one long enough."""

    def run(self, plan, probes=()):
        import time

        time.sleep(0.55)
        return super().run(plan, probes)


class Recorder:
    def __init__(self) -> None:
        self.warnings = []

    def planned(self, *a): pass
    def starting(self, *a): pass
    def finished(self, *a): pass
    def warn(self, hazard): self.warnings.append(hazard)
    def extended(self, *a): pass


def test_a_busy_machine_is_one_summary_line_and_the_warm_up_is_named(
        tmp_path: Path, jdk17_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every block counts as busy (threshold below zero): the store keeps one hazard per block
    for the report, the live output gets one line, and no message says "block -1"."""
    import jvmlab.execute.load as load

    monkeypatch.setattr(load, "BUSY_SHARE", -1.0)
    text = f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n[run]\ninvocations = 4\nwarmup = 1\n'
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    observer = Recorder()
    exp = run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "art"), observer, executor=SlowFake())
    stored = [h for h in store.hazards(exp) if h.kind == "busy-machine"]
    told = [h for h in observer.warnings if h.kind == "busy-machine"]
    assert len(stored) == 5 and len(told) == 1
    assert "5 blocks" in told[0].detail
    assert "the warm-up" in stored[0].detail and not any("block -1" in h.detail for h in stored)
