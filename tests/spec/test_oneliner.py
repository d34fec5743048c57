"""One-liners -> specs (spec/oneliner.py): a pure function, tested without starting a process."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.plan.matrix import expand
from jvmlab.spec.load import parse_spec
from jvmlab.spec.oneliner import OneLiner, is_command, oneliner_toml, parse_assignment

BASE = Path("/work/app")


def _cells(one: OneLiner, base: Path = BASE) -> dict[str, tuple[str, ...]]:
    """Cell name -> (jvm, flags..., '|', args...) of the spec the one-liner becomes."""
    spec = parse_spec(oneliner_toml(one, base))
    return {c.name: (c.jvm, *c.flags, "|", *c.args) for c in expand(spec)}


def test_hyperfines_example_is_one_jar_workload_with_a_level_per_command() -> None:
    one = OneLiner(("java -XX:+UseG1GC -jar app.jar", "java -XX:+UseParallelGC -jar app.jar"), invocations=10)
    data = tomllib.loads(oneliner_toml(one, BASE))
    assert data["workload"] == {"jar": "app.jar"} and data["run"] == {"invocations": 10}
    assert _cells(one) == {"default cmd=UseG1GC": ("default", "-XX:+UseG1GC", "|"),
                           "default cmd=UseParallelGC": ("default", "-XX:+UseParallelGC", "|")}


def test_what_is_common_stays_in_the_workload_and_what_differs_names_the_cells() -> None:
    one = OneLiner(("java -Xmx1g -XX:-AlwaysPreTouch -cp lib/a.jar:classes Main --n 3",
                    "java -Xmx1g -XX:+AlwaysPreTouch -cp lib/a.jar:classes Main --n 3"))
    data = tomllib.loads(oneliner_toml(one, BASE))
    assert data["workload"] == {"main": "Main", "classpath": ["lib/a.jar", "classes"], "args": ["--n", "3"]}
    assert set(_cells(one)) == {"default cmd=noAlwaysPreTouch", "default cmd=AlwaysPreTouch"}


def test_different_arguments_become_level_arguments() -> None:
    one = OneLiner(("java -jar app.jar --size 1", "java -jar app.jar --size 2"))
    assert _cells(one) == {"default cmd=size-1": ("default", "|", "--size", "1"),
                           "default cmd=size-2": ("default", "|", "--size", "2")}


def test_different_programs_become_a_java_command_with_the_program_in_each_level() -> None:
    one = OneLiner(("java -Xmx1g -jar old.jar", "java -Xmx1g -jar new.jar"))
    data = tomllib.loads(oneliner_toml(one, BASE))
    assert data["workload"]["command"] == ["{java}", "{jvm_args}"]
    assert _cells(one) == {"default cmd=old.jar": ("default", "-Xmx1g", "|", "-jar", "old.jar"),
                           "default cmd=new.jar": ("default", "-Xmx1g", "|", "-jar", "new.jar")}


def test_each_command_on_its_own_java() -> None:
    j17, j25 = "/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/temurin-25-jdk-amd64"
    same = OneLiner((f"{j17}/bin/java -jar a.jar", f"{j25}/bin/java -jar a.jar"))
    assert _cells(same) == {"java-17-openjdk-amd64": ("java-17-openjdk-amd64", "|"),
                            "temurin-25-jdk-amd64": ("temurin-25-jdk-amd64", "|")}
    mixed = OneLiner((f"{j17}/bin/java -XX:+UseG1GC -jar a.jar", f"{j25}/bin/java -XX:+UseZGC -jar a.jar"))
    assert _cells(mixed) == {"java-17-openjdk-amd64 cmd=UseG1GC": ("java-17-openjdk-amd64", "-XX:+UseG1GC", "|"),
                             "temurin-25-jdk-amd64 cmd=UseZGC": ("temurin-25-jdk-amd64", "-XX:+UseZGC", "|")}


def test_jvm_and_flags_form_a_matrix_around_one_command() -> None:
    one = OneLiner(("java -Xmx64m -jar app.jar",), jvms=(("jdk17", "17"), ("jdk25", "25")),
                   flags=(("g1", "-XX:+UseG1GC"), ("serial", "-XX:+UseSerialGC")))
    cells = _cells(one)
    assert cells == {"jdk17 flags=g1": ("jdk17", "-Xmx64m", "-XX:+UseG1GC", "|"),
                     "jdk17 flags=serial": ("jdk17", "-Xmx64m", "-XX:+UseSerialGC", "|"),
                     "jdk25 flags=g1": ("jdk25", "-Xmx64m", "-XX:+UseG1GC", "|"),
                     "jdk25 flags=serial": ("jdk25", "-Xmx64m", "-XX:+UseSerialGC", "|")}


def test_scans_fill_every_combination_and_names_may_use_them() -> None:
    scan = OneLiner(("java -XX:+Use{gc}GC -jar app.jar",), lists=(("gc", ("G1", "Parallel")),))
    assert set(_cells(scan)) == {"default gc=G1", "default gc=Parallel"}  # named as hyperfine's parameters
    grid = OneLiner(("java -Xmx{m}m -jar app.jar {n}",), ranges=(("m", 64, 128, 64), ("n", 1, 2, 1)),
                    names=("heap{m}-n{n}",))
    cells = _cells(grid)
    assert len(cells) == 4 and cells["default cmd=heap128-n2"] == ("default", "-Xmx128m", "|", "2")


def test_a_non_java_command_keeps_its_program() -> None:
    one = OneLiner(("./run.sh --fast", "./run.sh --slow"))
    data = tomllib.loads(oneliner_toml(one, BASE))
    assert data["workload"] == {"command": ["./run.sh"]}
    assert set(_cells(one)) == {"default cmd=fast", "default cmd=slow"}
    matrix = OneLiner(("./run.sh --java {java} {jvm_args}",), jvms=(("a", "17"), ("b", "25")))
    data = tomllib.loads(oneliner_toml(matrix, BASE))
    assert data["workload"] == {"command": ["./run.sh", "--java", "{java}", "{jvm_args}"]}


def test_a_saved_spec_keeps_meaning_the_files_typed_in() -> None:
    one = OneLiner(("java -cp lib/x.jar Main",), hooks=(("before_each", "rm -f state/marker"),))
    data = tomllib.loads(oneliner_toml(one, BASE, spec_dir=Path("/work/specs")))
    assert data["workload"] == {"main": "Main", "classpath": ["../app/lib/x.jar"], "cwd": "../app",
                                "before_each": ["rm", "-f", "state/marker"]}


@pytest.mark.parametrize("one, words", [
    (OneLiner(("./a.sh", "./b.sh")), "different programs"),
    (OneLiner(("java -Xmx1g",)), "runs no program"),
    (OneLiner(("java -jar",)), "-jar needs a value"),
    (OneLiner(("java 'unclosed -jar a.jar",)), "cannot split"),
    (OneLiner(("rm -f x && java -jar a.jar",)), "needs a shell"),
    (OneLiner(("java -jar a.jar",), lists=(("gc", ("G1",)),)), "not used"),
    (OneLiner(("java -jar a.jar", "java -jar a.jar"), names=("one",)), "one per command"),
    (OneLiner(("java -jar a.jar {x}",), ranges=(("x", 3, 1, 1),)), "MIN <= MAX"),
    (OneLiner(("./run.sh",), flags=(("g1", "-XX:+UseG1GC"),)), "java command"),
    (OneLiner(("java -jar a.jar", "java -jar a.jar x"), names=("same", "same")), "do not tell"),
])
def test_bad_one_liners_are_one_clear_line(one: OneLiner, words: str) -> None:
    with pytest.raises(UserError, match=words):
        oneliner_toml(one, BASE)


def test_arguments_and_assignments() -> None:
    assert not is_command("heap.toml") and not is_command("missing/Spec.TOML") and is_command("java -jar a.jar")
    assert parse_assignment("jdk25=temurin-25", "--jvm") == ("jdk25", "temurin-25")
    assert parse_assignment("g1=-XX:+UseG1GC -Xmx1g", "--flags") == ("g1", "-XX:+UseG1GC -Xmx1g")
    with pytest.raises(UserError, match="NAME=VALUE"):
        parse_assignment("-XX:+UseG1GC", "--flags")
