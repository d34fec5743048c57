"""`[revisions]` read from a spec and from a one-liner, and the factor it adds to the matrix (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.machine.gitrev import BuildCommand
from jvmlab.plan.matrix import expand, find_baseline
from jvmlab.spec.load import parse_spec
from jvmlab.spec.oneliner import OneLiner, oneliner_toml

BASE = '[workload]\nmain = "Main"\nclasspath = ["out"]\n[jvms]\na = "17"\nb = "25"\n'


def test_levels_as_a_list_are_named_after_the_revisions_and_as_a_table_by_their_keys() -> None:
    spec = parse_spec(BASE + '[revisions]\nlevels = ["main", "HEAD~3", "feature/x"]\n', "t")
    assert spec.revisions is not None
    assert spec.revisions.levels == {"main": "main", "HEAD-3": "HEAD~3", "feature-x": "feature/x"}
    named = parse_spec(BASE + '[revisions]\nlevels = { base = "main", head = "HEAD" }\n', "t")
    assert named.revisions is not None and named.revisions.levels == {"base": "main", "head": "HEAD"}


@pytest.mark.parametrize(("table", "says"), [
    ('levels = []', "names no revision"),
    ('levels = ["--all"]', "is not a revision"),
    ('levels = { "a b" = "main" }', "must be letters"),
    ('levels = ["main"]\nbuild = []', r"build = \[\] is empty"),
    ('levels = ["main"]\nbuild = ["make"]\nshell = true', "shell = true goes with"),
    ('levels = ["main"]\nbulid = "make"', "bulid"),
])
def test_a_bad_revisions_table_is_one_line(table: str, says: str) -> None:
    with pytest.raises(UserError, match=says):
        parse_spec(BASE + "[revisions]\n" + table + "\n", "t")


def test_revision_is_a_reserved_factor_name() -> None:
    with pytest.raises(UserError, match="revision"):
        parse_spec(BASE + '[factors.revision]\nx = "-Xmx1g"\n', "t")


def test_revisions_combine_with_jvms_and_name_the_baseline() -> None:
    spec = parse_spec(BASE + '[revisions]\nlevels = ["main", "HEAD"]\n[matrix]\nbaseline = { jvm = "b", '
                      'revision = "HEAD" }\n', "t")
    cells = expand(spec, ["main", "HEAD"])
    assert [c.name for c in cells] == ["a revision=main", "a revision=HEAD", "b revision=main", "b revision=HEAD"]
    assert find_baseline(spec, cells, ["main", "HEAD"]).name == "b revision=HEAD"


def test_a_build_string_is_split_without_a_shell_unless_asked() -> None:
    assert BuildCommand.of("javac -d 'out dir' Main.java").argv == ("javac", "-d", "out dir", "Main.java")
    assert BuildCommand.of("make && cp a b", shell=True).argv == ("/bin/sh", "-c", "make && cp a b")
    assert BuildCommand.of(["./gradlew", "jar"]).argv == ("./gradlew", "jar")
    assert BuildCommand.of(None) is None
    with pytest.raises(UserError, match="build command"):
        BuildCommand.of("javac 'unclosed")


def test_a_one_liner_over_revisions_keeps_its_paths_relative_to_the_folder_typed_in(tmp_path: Path) -> None:
    one = OneLiner(("java -cp out Main",), revisions=("main", "HEAD"), build="javac -d out src/Main.java")
    text = oneliner_toml(one, tmp_path, tmp_path / "elsewhere", absolute=True)
    spec = parse_spec(text, "one-liner")
    assert spec.workload.classpath == ["out"]  # means the typed folder inside each worktree
    assert spec.revisions is not None and spec.revisions.repo == str(tmp_path)
    assert spec.revisions.paths_from == str(tmp_path)
    assert spec.revisions.levels == {"main": "main", "HEAD": "HEAD"}
    assert spec.revisions.build == "javac -d out src/Main.java" and not spec.revisions.shell
    with pytest.raises(UserError, match="--build goes with --revisions"):
        oneliner_toml(OneLiner(("java -cp out Main",), build="make"), tmp_path)
