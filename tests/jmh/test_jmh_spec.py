"""The `jmh` workload key: validation and the command line it becomes."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from jvmlab.errors import UserError
from jvmlab.plan.workload import resolve_launch
from jvmlab.spec.model import Workload


def test_jmh_takes_benchmarks_params_and_a_classpath() -> None:
    w = Workload(jmh="b.jar", classpath="lib/*", benchmarks=["Hello"], params={"size": [1, 10], "fast": True})
    assert w.kind == "jmh" and w.params == {"size": ["1", "10"], "fast": ["true"]}
    assert w.classpath == ["lib/*"]


def test_benchmarks_without_jmh_and_two_kinds_are_refused() -> None:
    with pytest.raises(ValidationError, match="go with jmh"):
        Workload(jar="a.jar", benchmarks=["x"])
    with pytest.raises(ValidationError, match="exactly one"):
        Workload(jar="a.jar", jmh="b.jar")


def test_the_launch_gives_the_fork_the_flags_and_the_harness_none(tmp_path: Path, jdk17) -> None:
    import zipfile

    jar = tmp_path / "benchmarks.jar"
    with zipfile.ZipFile(jar, "w") as z:
        z.writestr("org/openjdk/jmh/Main.class", b"")
    launch = resolve_launch(Workload(jmh="benchmarks.jar", benchmarks=["Hello"], args=["-i", "2"]), jdk17, tmp_path)
    argv = launch.argv(jdk17, ["-XX:+UseSerialGC"], (), artifacts_dir=tmp_path / "b0")
    assert argv[:5] == [str(jdk17.java), "-Djmh.ignoreLock=true", "-cp", str(jar), "org.openjdk.jmh.Main"]
    assert argv[-2:] == ["-jvmArgs", "-XX:+UseSerialGC"]
    assert f"{tmp_path}/b0/jmh-result.json" in argv
    relative = launch.argv(jdk17, [], (), artifacts_dir=Path("art/b1"))
    assert f"{Path.cwd()}/art/b1/jmh-result.json" in relative and "-jvmArgs" not in relative
    zipfile.ZipFile(tmp_path / "empty.jar", "w").close()
    with pytest.raises(UserError, match="not on the classpath"):
        resolve_launch(Workload(jmh="empty.jar"), jdk17, tmp_path)
    with pytest.raises(UserError, match="-f is set by jvmlab"):
        resolve_launch(Workload(jmh="benchmarks.jar", args=["-f", "3"]), jdk17, tmp_path)
