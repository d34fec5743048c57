"""Every relative path of a spec is resolved once, against the spec file's folder, whatever
the current folder is; the plan holds only absolute paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.plan.prepare import prepare
from jvmlab.spec.load import parse_spec

pytestmark = pytest.mark.jvm


def _prepare(spec_dir: Path, body: str, home: Path, run_from: Path, spec_arg: str):
    text = f'{body}\n[jvms]\nj = "{home}"\n'
    (spec_dir / "s.toml").write_text(text)
    old = Path.cwd()
    os.chdir(run_from)
    try:
        return prepare(parse_spec(text), text, Path(spec_arg), check_flags=False)
    finally:
        os.chdir(old)


def test_jar_and_workdir_resolve_against_the_spec_folder(tmp_path: Path, jdk17_home: Path) -> None:
    share, sub = tmp_path / "share", tmp_path / "sub"
    (share / "lib").mkdir(parents=True)
    (share / "work").mkdir()
    sub.mkdir()
    (share / "lib" / "app.jar").write_bytes(b"PK")
    plan = _prepare(share, '[workload]\njar = "lib/app.jar"\ncwd = "work"', jdk17_home, sub, "../share/s.toml")
    assert plan.spec_path == share / "s.toml"
    assert plan.workdir == share / "work"
    assert plan.cells[0].launch.jar == str(share / "lib" / "app.jar")


def test_a_relative_command_is_looked_up_where_it_will_start(tmp_path: Path, jdk17_home: Path) -> None:
    share, sub = tmp_path / "share", tmp_path / "sub"
    share.mkdir()
    sub.mkdir()
    with pytest.raises(UserError) as err:
        _prepare(share, '[workload]\ncommand = ["./run.sh", "{jvm_args}"]', jdk17_home, sub, "../share/s.toml")
    assert str(share / "run.sh") in str(err.value)
    (share / "run.sh").write_text("#!/bin/sh\n")
    plan = _prepare(share, '[workload]\ncommand = ["./run.sh", "{jvm_args}"]', jdk17_home, sub, "../share/s.toml")
    assert plan.workdir == share


def test_a_missing_cwd_is_one_line(tmp_path: Path, jdk17_home: Path) -> None:
    with pytest.raises(UserError) as err:
        _prepare(tmp_path, '[workload]\nbuiltin = "hello"\ncwd = "nowhere"', jdk17_home, tmp_path, "s.toml")
    assert "cwd nowhere" in str(err.value) and str(tmp_path / "nowhere") in str(err.value)
