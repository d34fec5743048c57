"""CDS and AOT-cache preparation on real JVMs: made, used, and failures that are errors."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.machine import archives
from jvmlab.machine.environment import build_environment, run_context

from .conftest import JDK17_HOME, JDK25_HOME

pytestmark = pytest.mark.jvm


def loaded_from(pc, extra: list[str]) -> str:
    argv = pc.launch.argv(pc.jdk, [*pc.flags, "-Xlog:class+load=info", *extra])
    out = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    return next(line for line in out.stdout.splitlines() if " JvmlabHello " in line)


def test_cds_archive_is_made_and_used_per_cell(make_plan, tmp_path: Path) -> None:
    plan = make_plan('[factors.cds]\ndefault = []\nappcds = ["@cds-archive"]\n')
    env = build_environment(plan, tmp_path)
    ready = env.setup(plan)
    cells = {pc.cell.level("cds"): pc for pc in ready.cells}
    (archive,) = env.archives.values()
    assert archive.path.is_file() and archive.path.parent == tmp_path / "cds"
    assert cells["appcds"].flags == (f"-XX:SharedArchiveFile={archive.path}",)
    assert cells["default"].flags == ()
    assert cells["default"].launch.classpath == cells["appcds"].launch.classpath  # both from the same jar
    assert "source: shared objects file (top)" in loaded_from(cells["appcds"], [])
    assert "shared objects file" not in loaded_from(cells["default"], [])


def test_aot_cache_on_jdk25(make_plan, tmp_path: Path) -> None:
    plan = make_plan('[environment]\nprepare = "aot-cache"\n', jvms={"jdk25": JDK25_HOME})
    env = build_environment(plan, tmp_path)
    (cell,) = env.setup(plan).cells
    (archive,) = env.archives.values()
    assert archive.kind == archives.AOT and cell.flags == (f"-XX:AOTCache={archive.path}",)
    assert "source: shared objects file" in loaded_from(cell, ["-XX:AOTMode=on"])


def test_aot_cache_on_jdk17_is_an_error_naming_the_cell(make_plan, tmp_path: Path) -> None:
    plan = make_plan('[factors.cds]\naot = ["@aot-cache"]\n', jvms={"old": JDK17_HOME})
    with pytest.raises(UserError, match=r"cell 'old cds=aot'.*JDK 24\+"):
        build_environment(plan, tmp_path).setup(plan)


def test_archive_the_jvm_cannot_write_is_an_error(make_plan, tmp_path: Path) -> None:
    plan = make_plan("")
    pc = plan.cells[0]
    jar = archives.jar_of_folder(Path(pc.launch.classpath[0]), tmp_path / "jars")
    pc = replace(pc, launch=replace(pc.launch, classpath=(str(jar),)))
    (tmp_path / "cds").mkdir()
    path = tmp_path / "cds" / "missing-folder" / "x.jsa"  # the JVM cannot create the folder
    with pytest.raises(UserError, match="did not write|exited"):
        archives.make_archive(pc, archives.CDS, path, run_context(plan), log_dir=tmp_path)


def test_classes_folder_is_an_error_for_cds(make_plan, tmp_path: Path) -> None:
    """Without jvmlab's jar, CDS refuses class folders: the check must report it, not ignore it."""
    plan = make_plan("")
    path = tmp_path / "x.jsa"
    with pytest.raises(UserError, match="cell 'jdk17'"):
        archives.make_archive(plan.cells[0], archives.CDS, path, run_context(plan))
