"""`jvmlab run 'java ...' ...`: one-liners stored and reported like a spec run (issue 32), on
real JVMs; bad one-liners are one line and exit 2."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from jvmlab.store import open_store
from testing_jdks import JDK17_HOME, JDK25_HOME, need

HELLO = 'public class Hello { public static void main(String[] a) { System.out.println("hello " + a.length); } }\n'


def _jar(folder: Path) -> None:
    """folder/app.jar, an executable jar built with JDK 17 for Java 8+."""
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "Hello.java").write_text(HELLO)
    bin_ = need(JDK17_HOME) / "bin"
    subprocess.run([str(bin_ / "javac"), "--release", "8", "-d", str(folder / "classes"),
                    str(folder / "src" / "Hello.java")], check=True, capture_output=True, timeout=120)
    subprocess.run([str(bin_ / "jar"), "--create", "--file", str(folder / "app.jar"), "--main-class", "Hello",
                    "-C", str(folder / "classes"), "."], check=True, capture_output=True, timeout=120)


@pytest.mark.jvm
def test_jdk_by_flags_matrix_around_one_command_is_stored_and_reported_like_a_spec(tmp_path: Path) -> None:
    need(JDK25_HOME)
    _jar(tmp_path)
    args = ["run", "java -Xmx64m -jar app.jar one", "--jvm", f"jdk17={JDK17_HOME}", "--jvm", f"jdk25={JDK25_HOME}",
            "--flags", "g1=-XX:+UseG1GC", "--flags", "serial=-XX:+UseSerialGC", "--invocations", "2",
            "--warmup", "0", "--store", "lab.db", "--json", "--quiet"]
    proc = run_jvmlab(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    names = {"jdk17 flags=g1", "jdk17 flags=serial", "jdk25 flags=g1", "jdk25 flags=serial"}
    assert {c["name"] for c in summary["cells"]} == names
    assert all(c["n"] == 2 and c["failures"] == 0 for c in summary["cells"])
    assert len(summary["comparisons"]) == 3  # each cell against the baseline, as for a spec

    db = open_store(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = db.latest_experiment()
    assert exp.spec_path is not None and Path(exp.spec_path).is_file()  # a spec file, for resume
    cells = {c.id: c for c in db.cells(exp.id)}
    for inv in db.invocations(exp.id):
        cell = cells[inv.cell_id]
        home = JDK17_HOME if cell.name.startswith("jdk17") else JDK25_HOME
        assert inv.status == "ok" and inv.argv[0] == str(home / "bin" / "java")
        gc = "-XX:+UseG1GC" if cell.name.endswith("g1") else "-XX:+UseSerialGC"
        assert "-Xmx64m" in inv.argv and gc in inv.argv
        assert inv.argv[-3:] == ["-jar", str(tmp_path / "app.jar"), "one"]

    report = run_jvmlab("report", "--store", "lab.db", "--json", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert {c["name"] for c in json.loads(report.stdout)["cells"]} == names

    # --save-spec gives the same experiment as a spec file, from any folder.
    saved = run_jvmlab(*args[:-6], "--save-spec", "specs/matrix.toml", cwd=tmp_path)
    assert saved.returncode == 0, saved.stderr
    check = run_jvmlab("check", str(tmp_path / "specs" / "matrix.toml"), cwd=Path("/"))
    assert check.returncode == 0, check.stderr
    assert all(name in check.stdout for name in names)


@pytest.mark.jvm
def test_hyperfines_two_commands(tmp_path: Path) -> None:
    _jar(tmp_path)
    proc = run_jvmlab("run", "java -XX:+UseSerialGC -jar app.jar", "java -XX:+UseParallelGC -jar app.jar",
                      "--invocations", "1", "--warmup", "0", "--store", "lab.db", "--json", "--quiet", cwd=tmp_path,
                      env={"JAVA_HOME": str(need(JDK17_HOME))})
    assert proc.returncode == 0, proc.stderr
    cells = json.loads(proc.stdout)["cells"]
    assert [c["name"] for c in cells] == ["default cmd=UseSerialGC", "default cmd=UseParallelGC"]
    assert all(c["n"] == 1 for c in cells)


@pytest.mark.jvm  # the JDK named by --jvm is identified (java -version)
@pytest.mark.parametrize("args, words", [
    (["missing.toml"], "no such spec file"),
    (["a.toml", "java -jar x.jar"], "one spec file, or commands"),
    (["spec.toml", "--invocations", "3"], "--invocations goes with a one-liner"),
    (["java -jar x.jar", "--hook", "before=rm x"], "the kinds are"),
    (["java -jar x.jar", "--jvm", "17"], "NAME=VALUE"),
    (["java -jar missing.jar", "--jvm", f"jdk17={JDK17_HOME}"], "missing.jar does not exist"),
    (["java -Xmx1g"], "runs no program"),
])
def test_bad_one_liners_exit_2_with_one_line(tmp_path: Path, args: list[str], words: str) -> None:
    (tmp_path / "spec.toml").write_text('[workload]\nbuiltin = "hello"\n')
    proc = run_jvmlab("run", *args, "--store", "lab.db", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert words in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
