"""The driver protocol (execute/driver.py) through the real session and store, with the fake
executor: a search driver asks for slots from its own loop, names their folders, reads each
result before it is stored (what it adds is stored with it), takes the results back, and its
failures are answers, not failures the budget counts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from jvmlab.execute.blocks import LocalBlocks
from jvmlab.execute.driver import DriverCell, SearchDriver
from jvmlab.execute.fake import FakeExecutor
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import SilentObserver
from jvmlab.execute.session import Session
from jvmlab.execute.slots import SlotWork
from jvmlab.model.collected import Collected
from jvmlab.model.process import ProcessResult, Status
from jvmlab.plan.prepare import prepare
from jvmlab.plan.schedule import Slot
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

pytestmark = pytest.mark.jvm

SPEC = '[workload]\nbuiltin = "hello"\n[jvms]\nj = "{home}"\n[run]\ninvocations = 2\nwarmup = 0\n'


class Failing(SearchDriver):
    """Runs the plan's cell with a flag that makes the fake fail, in folders of its own name."""

    failures_are_data = True

    def __init__(self, cell: DriverCell) -> None:
        super().__init__()
        self.own = cell

    def cell(self, index: int) -> DriverCell | None:
        return self.own if index == self.own.cell.cell.index else None

    def folder(self, slot: Slot) -> str:
        return f"try-{slot.block}"

    def judge(self, work: SlotWork, result: ProcessResult, collected: Collected) -> Collected:
        collected.metrics["driver.read"] = 1.0
        return collected


def test_a_search_driver_plugs_in_without_setting_a_session_field(tmp_path: Path, jdk17_home: Path) -> None:
    text = SPEC.format(home=jdk17_home)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    session = Session(store, plan, RunOptions(artifacts_root=tmp_path / "art"), SilentObserver(),
                      FakeExecutor(seed=1))
    with session.opened() as state:
        pc = session.plan.cells[0]
        failing = replace(pc, flags=(*pc.flags, "-Dfake.exit=3"))
        driver = Failing(DriverCell(failing, state.cell_ids[0], []))
        for block in range(7):  # more failures in a row than the budget allows a cell (5)
            driver.ask([Slot(0, block, 0)])
            session.drive(driver, LocalBlocks(session))
            taken = driver.take(0, block)
            assert taken is not None and taken[0].status == Status.FAILED, "a failure is the driver's answer"
        assert not state.budget.cell_stopped(0) and state.budget.failures == 0
    rows = store.invocations(state.experiment_id)
    assert len(rows) == 7 and all(r.metrics["driver.read"] == 1.0 for r in rows), "judged before stored"
    assert sorted(Path(r.artifacts_dir or "").name for r in rows) == [f"try-{b}" for b in range(7)]
    assert store.experiment(state.experiment_id).status == "done"
