"""Issue 13, item 3: the plan carries each cell's invocation template and the schedule, read from
the spec once; archive preparation is a typed field, and the older ``@cds-archive`` level
spelling is parsed into it. Real JDK discovery, no JVM run (flags not checked)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.execute.slots import build_slot, slot_artifacts
from jvmlab.model.documents import CellIdentityDocument
from jvmlab.plan.grow import align, cell_identity
from jvmlab.plan.prepare import prepare
from jvmlab.plan.schedule import Slot
from jvmlab.plan.template import ArchivePrep
from jvmlab.spec.load import parse_spec

SPEC = '''
[workload]
builtin = "hello"
timeout = "45s"
env = {{ A = "1" }}
[jvms]
j = "{home}"
[factors.cds]
default = ""
appcds = "@cds-archive -Xshare:auto"
[factors.lang]
en = {{ flags = "", env = {{ LANG = "C" }} }}
[run]
invocations = 4
warmup = 2
seed = 7
timeout = "90s"
'''


def _plan(tmp_path: Path, home: Path, text: str = SPEC):
    text = text.format(home=home)
    return prepare(parse_spec(text), text, tmp_path / "spec.toml", check_flags=False)


def test_the_template_holds_what_the_runner_used_to_read_from_the_spec(tmp_path: Path, jdk17_home: Path) -> None:
    plan = _plan(tmp_path, jdk17_home)
    default, appcds = plan.cells
    t = appcds.template
    assert t is not None
    assert t.cwd == tmp_path and t.timeout_s == 45.0  # the workload's timeout wins over [run]'s
    assert t.env == {"A": "1", "LANG": "C"}
    assert t.prepare == ArchivePrep("cds-archive", "level")
    assert default.prepare is None
    assert appcds.flags == ("-Xshare:auto",), "the pseudo-flag never reaches a JVM"
    assert appcds.cell.flags == ("@cds-archive", "-Xshare:auto"), "the requested flags are kept as written"
    shape = plan.shape
    assert (shape.invocations, shape.warmup, shape.seed) == (4, 2, 7)
    assert len(shape.slots(len(plan.cells))) == (4 + 2) * 2


def test_a_slot_is_built_from_the_template(tmp_path: Path, jdk17_home: Path) -> None:
    plan = _plan(tmp_path, jdk17_home)
    pc = plan.cells[1]
    artifacts = slot_artifacts(tmp_path / "art", 1, pc.cell.index, Slot(1, 0, 0))
    work = build_slot(pc, Slot(1, 0, 0), [], artifacts)
    inv = work.invocation
    assert inv.cwd == tmp_path and inv.timeout_s == 45.0 and inv.artifacts_dir == artifacts
    assert inv.env["A"] == "1" and inv.env["LANG"] == "C" and inv.env["JAVA_HOME"] == str(pc.jdk.home)
    assert inv.argv[0] == str(pc.jdk.java) and "-Xshare:auto" in inv.argv
    assert not any(a.startswith("@") for a in inv.argv)
    assert artifacts.is_dir() and artifacts.name == "b0"


def test_the_spec_wide_preparation_is_typed_too(tmp_path: Path, jdk17_home: Path) -> None:
    text = SPEC.replace('appcds = "@cds-archive -Xshare:auto"', 'other = "-Xshare:auto"') + \
        '[environment]\nprepare = "aot-cache"\n'
    plan = _plan(tmp_path, jdk17_home, text)
    assert {pc.prepare for pc in plan.cells} == {ArchivePrep("aot-cache", "spec")}


@pytest.mark.parametrize("level, message", [
    ("@cds-archiv", "unknown preparation @cds-archiv"),
    ("@cds-archive @aot-cache", "pick one per cell"),
])
def test_a_bad_preparation_mark_is_one_line_at_plan_time(tmp_path: Path, jdk17_home: Path, level: str,
                                                          message: str) -> None:
    text = SPEC.replace("@cds-archive -Xshare:auto", level)
    with pytest.raises(UserError, match=message):
        _plan(tmp_path, jdk17_home, text)


class _Stored:
    def __init__(self, idx: int, name: str, flags: list[str]) -> None:
        self.idx, self.name, self.requested_flags = idx, name, flags


def test_align_keeps_stored_indices_and_numbers_new_cells_after_them(tmp_path: Path, jdk17_home: Path) -> None:
    plan = _plan(tmp_path, jdk17_home)  # cells: cds=default (0), cds=appcds (1)
    appcds = plan.cells[1]
    stored = [_Stored(0, appcds.cell.name, list(appcds.cell.flags))]
    growth = align(plan, stored, CellIdentityDocument({0: cell_identity(appcds)}), 5)
    assert [pc.cell.name for pc in growth.plan.cells] == [appcds.cell.name, plan.cells[0].cell.name]
    assert [pc.cell.index for pc in growth.plan.cells] == [0, 1]
    assert growth.new_cells == (1,)
    assert growth.plan.cells[growth.plan.baseline_index].cell.name == plan.cells[plan.baseline_index].cell.name


def test_align_refuses_a_changed_template(tmp_path: Path, jdk17_home: Path) -> None:
    plan = _plan(tmp_path, jdk17_home)
    identity = cell_identity(plan.cells[0])
    assert identity.template is not None
    identity = replace(identity, template={**identity.template, "timeout_s": 30.0})
    stored = [_Stored(0, plan.cells[0].cell.name, list(plan.cells[0].cell.flags))]
    with pytest.raises(UserError, match=r"changes its cell 'j cds=default lang=en' \(template timeout_s: 30.0 -> 45.0"):
        align(plan, stored, CellIdentityDocument({0: identity}), 5)


def test_a_level_asks_for_its_preparation_by_a_typed_key(tmp_path: Path, jdk17_home: Path) -> None:
    text = SPEC.replace('appcds = "@cds-archive -Xshare:auto"',
                        'appcds = {{ flags = "-Xshare:auto", prepare = "cds-archive" }}')
    plan = _plan(tmp_path, jdk17_home, text)
    appcds = plan.cells[1]
    assert appcds.prepare == ArchivePrep("cds-archive", "level") and appcds.flags == ("-Xshare:auto",)
    both = SPEC.replace('appcds = "@cds-archive -Xshare:auto"',
                        'appcds = {{ flags = "@aot-cache", prepare = "cds-archive" }}')
    with pytest.raises(UserError, match="pick one per cell"):
        _plan(tmp_path, jdk17_home, both)


def test_align_without_stored_identities_compares_the_requested_flags(tmp_path: Path, jdk17_home: Path) -> None:
    """An experiment stored before identities were kept (or a migrated version-1 store)."""
    plan = _plan(tmp_path, jdk17_home)
    name = plan.cells[0].cell.name
    assert align(plan, [_Stored(0, name, list(plan.cells[0].cell.flags))], None, 3).new_cells == (1,)
    with pytest.raises(UserError, match=r"changes its cell .*flags: \['-Xmx1g'\] -> \[\]"):
        align(plan, [_Stored(0, name, ["-Xmx1g"])], None, 3)
