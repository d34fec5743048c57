"""Every path in a spec is resolved once, against the spec file's folder, and every path
jvmlab hands to a JVM is absolute: a spec run from another folder, or from a folder with
spaces, behaves exactly as `check` said, and GC logs land in the store's artifacts folder."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from cli_runner import run_jvmlab

pytestmark = pytest.mark.jvm

HELLO = "public class Hello { public static void main(String[] a) { System.out.println(\"hi\"); } }\n"


def _share(folder: Path, jdk17_home: Path, name: str = "share.toml") -> Path:
    """A spec whose classpath is relative to its own folder."""
    classes = folder / "app" / "classes"
    classes.mkdir(parents=True)
    (folder / "Hello.java").write_text(HELLO)
    subprocess.run([str(jdk17_home / "bin" / "javac"), "-d", str(classes), str(folder / "Hello.java")],
                   check=True, timeout=120)
    spec = folder / name
    spec.write_text(f'[workload]\nmain = "Hello"\nclasspath = ["app/classes"]\n[jvms]\nj = "{jdk17_home}"\n'
                    f'[run]\ninvocations = 2\nwarmup = 0\n')
    return spec


def _run(spec_arg: str, cwd: Path) -> dict:
    proc = run_jvmlab("run", spec_arg, "--store", "lab.db", "--json", "--quiet", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_spec_in_another_folder_finds_its_classpath(tmp_path: Path, jdk17_home: Path) -> None:
    _share(tmp_path / "share", jdk17_home)
    (tmp_path / "sub").mkdir()
    check = run_jvmlab("check", "../share/share.toml", cwd=tmp_path / "sub")
    assert check.returncode == 0, check.stderr
    assert str(tmp_path / "share" / "app" / "classes") in check.stdout, "check shows the resolved classpath"
    doc = _run("../share/share.toml", tmp_path / "sub")
    [cell] = doc["cells"]
    assert cell["failures"] == 0 and cell["n"] == 2


def test_a_spec_in_a_folder_with_spaces_runs(tmp_path: Path, jdk17_home: Path) -> None:
    _share(tmp_path / "dir with spaces", jdk17_home, name="my spec.toml")
    doc = _run("dir with spaces/my spec.toml", tmp_path)
    [cell] = doc["cells"]
    assert cell["failures"] == 0 and cell["n"] == 2
    assert list((tmp_path / "lab-artifacts").rglob("gc-*.log")), "GC logs in the store's artifacts folder"


def test_gc_logs_go_to_the_stores_artifacts_folder(tmp_path: Path, jdk17_home: Path) -> None:
    spec = _share(tmp_path / "share", jdk17_home)
    (tmp_path / "other").mkdir()
    doc = _run(str(spec), tmp_path / "other")
    assert not [h for h in doc["warnings"] if h["kind"] == "gc-log-missing"], doc["warnings"]
    assert list((tmp_path / "other" / "lab-artifacts").rglob("gc-*.log"))
    assert not list((tmp_path / "share").rglob("gc-*.log")), "nothing written into the spec's folder"
    rows = sqlite3.connect(tmp_path / "other" / "lab.db").execute("SELECT argv_json FROM invocation").fetchall()
    logs = [a for (argv,) in rows for a in json.loads(argv) if a.startswith("-Xlog:") and "file=" in a]
    assert logs and all(str(tmp_path / "other" / "lab-artifacts") in a for a in logs)


def test_provenance_names_the_folder_and_the_flags_jvmlab_adds(tmp_path: Path, jdk17_home: Path) -> None:
    spec = _share(tmp_path / "share", jdk17_home)
    _run(str(spec), tmp_path)
    db = sqlite3.connect(tmp_path / "lab.db")
    [(command_line,)] = db.execute("SELECT command_line FROM experiment").fetchall()
    assert command_line.startswith(f"cd {tmp_path} && jvmlab run ")
    [(options,)] = db.execute("SELECT run_options_json FROM experiment").fetchall()
    assert json.loads(options)["workdir"] == str(tmp_path / "share"), "where the JVMs started"
    [(argv,)] = db.execute("SELECT argv_json FROM cell").fetchall()
    assert any(a.startswith("-Xlog:gc") and str(tmp_path / "lab-artifacts") in a for a in json.loads(argv))
