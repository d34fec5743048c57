"""CDS and AOT-cache preparation on real JVMs: made, used, and failures that are errors."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.machine import archive_run, archives
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
    with pytest.raises(UserError, match=r"did not write|exited"):
        archives.make_archive(pc, archives.CDS, path, run_context(plan), log_dir=tmp_path)


def test_classes_folder_is_an_error_for_cds(make_plan, tmp_path: Path) -> None:
    """Without jvmlab's jar, CDS refuses class folders: the check must report it, not ignore it."""
    plan = make_plan("")
    path = tmp_path / "x.jsa"
    with pytest.raises(UserError, match="cell 'jdk17'"):
        archives.make_archive(plan.cells[0], archives.CDS, path, run_context(plan))


def _jar_cell(pc, tmp_path: Path):
    """The cell's built-in workload as an executable jar (`-jar`, no main class given)."""
    import zipfile

    from jvmlab.plan.workload import Launch

    folder = Path(pc.launch.classpath[0])
    jar = tmp_path / "app.jar"
    with zipfile.ZipFile(jar, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", f"Manifest-Version: 1.0\r\nMain-Class: {pc.launch.main_class}\r\n\r\n")
        for p in folder.rglob("*.class"):
            zf.write(p, p.relative_to(folder).as_posix())
    return replace(pc, launch=Launch(kind="jar", jar=str(jar)))


def test_jar_check_wants_the_applications_own_classes(make_plan, tmp_path: Path) -> None:
    """The JDK's default CDS archive serves JDK classes from a "shared objects file" with
    no archive of ours at all: that must not count as evidence for a `jar` workload."""
    pc = _jar_cell(make_plan("", jvms={"jdk25": JDK25_HOME}).cells[0], tmp_path)
    ctx = archives.RunContext(cwd=tmp_path, env={}, timeout_s=60, notify=lambda _: None)
    with pytest.raises(UserError, match="none of the application's classes came from it"):
        archives._check_used(pc, [], tmp_path / "none.aot", ctx, archives.AOT, tmp_path / "none.aot")


def test_jar_aot_cache_is_recorded_with_its_evidence(make_plan, tmp_path: Path) -> None:
    pc = _jar_cell(make_plan("", jvms={"jdk25": JDK25_HOME}).cells[0], tmp_path)
    lines: list[str] = []
    ctx = archives.RunContext(cwd=tmp_path, env={}, timeout_s=60, notify=lines.append)
    (tmp_path / "aot").mkdir()
    record = archives.make_archive(pc, archives.AOT, tmp_path / "aot" / "app.aot", ctx, log_dir=tmp_path).record
    assert record is not None and record.kind == archives.AOT and record.steps == ("train",)
    assert record.size_bytes == (tmp_path / "aot" / "app.aot").stat().st_size > 0
    assert record.train_s > 0 and record.check_s > 0
    assert 1 <= record.app_classes_from_archive <= record.app_classes_loaded
    assert record.evidence.startswith("JvmlabHello source: shared objects file")
    assert all(Path(log).is_file() for log in record.logs)
    assert lines[0].startswith("preparing the aot-cache of cell") and "trained in" in lines[-1]


def test_a_long_training_run_says_it_is_still_going(make_plan, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(archive_run, "HEARTBEAT_S", 0.05)
    monkeypatch.setattr(archive_run, "POLL_S", 0.02)
    plan = make_plan('[factors.cds]\nappcds = ["@cds-archive"]\n', workload="busy")
    lines: list[str] = []
    env = build_environment(plan, tmp_path)
    ctx = replace(run_context(plan), notify=lines.append)
    pc = env._jar_classpaths(list(plan.cells))[0]  # CDS archives classes from jars only
    archives.make_archive(pc, archives.CDS, tmp_path / "busy.jsa", ctx)
    assert any("archive train run still going" in line for line in lines), lines


def test_environment_keeps_the_record_on_the_cell(make_plan, tmp_path: Path) -> None:
    from jvmlab.plan.prepare import archive_document

    plan = make_plan('[factors.cds]\ndefault = []\nappcds = ["@cds-archive"]\n')
    ready = build_environment(plan, tmp_path).setup(plan)
    doc = archive_document(ready.cells)
    assert doc is not None and doc.to_json()["schema"] == "jvmlab.archives/1"
    (entry,) = doc.archives
    assert entry.cell == "jdk17 cds=appcds" and entry.kind == archives.CDS
    assert entry.evidence.startswith("JvmlabHello source: shared objects file (top)")
