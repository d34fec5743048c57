"""Catalogue, cache location, cached compilation and javac selection of the built-ins."""

from __future__ import annotations

import json
import re
import subprocess
import threading
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.model.jdk import JdkInfo
from jvmlab.workloads import builtin, cache, javac
from jvmlab.workloads.builtin import list_builtins, prepare_builtin

from .conftest import JDK25_HOME, java_argv, make_jdk

EXPECTED = {"hello", "hellostream", "pretouch", "tlbsort", "chunkgen", "integral", "hold", "busy", "httpserver",
            "loadgen", "gctrouble"}


def class_major_version(path: Path) -> int:
    """Bytes 6-7 of a class file: 52 = Java 8, 61 = 17, 69 = 25."""
    data = path.read_bytes()
    assert data[:4] == b"\xca\xfe\xba\xbe"
    return int.from_bytes(data[6:8], "big")


class CountingJavac:
    """Wraps the real javac runner and counts the compilations (a spy, not a fake)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        self._lock = threading.Lock()
        self._real = javac.run_javac
        monkeypatch.setattr(javac, "run_javac", self)

    def __call__(self, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        with self._lock:
            self.calls += 1
        return self._real(argv, cwd)


def test_catalogue_lists_every_builtin_with_its_source() -> None:
    specs = list_builtins()
    assert {s.name for s in specs} == EXPECTED
    assert len(specs) == len(EXPECTED)
    sources = builtin._read_sources()
    for spec in specs:
        assert f"{spec.main_class}.java" in sources
        assert spec.description


def test_chunkgen_progress_regex_reads_cumulative_units() -> None:
    spec = builtin.get_spec("chunkgen")
    assert spec.progress_regex is not None
    match = re.search(spec.progress_regex, "progress 1234 chunks")
    assert match is not None and match.group("units") == "1234"
    assert builtin.get_spec("hello").progress_regex is None


def test_unknown_name_suggests_and_lists(tmp_path: Path) -> None:
    jdk = make_jdk(JDK25_HOME, 25)
    with pytest.raises(UserError, match=r"did you mean 'chunkgen'.*built-ins are: .*tlbsort"):
        prepare_builtin("chunkgn", jdk, cache_dir=tmp_path)


def test_too_old_runtime_is_refused(tmp_path: Path) -> None:
    old = JdkInfo(Path("/opt/jdk7"), "1.7.0", 7, "x", "x", "HotSpot", True)
    with pytest.raises(UserError, match="Java 8 or newer"):
        prepare_builtin("hello", old, cache_dir=tmp_path)


def test_cache_root_follows_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JVMLAB_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.workloads_dir(None) == tmp_path / "explicit" / "workloads"
    monkeypatch.setenv("JVMLAB_CACHE_DIR", "")
    assert cache.workloads_dir(None) == tmp_path / "xdg" / "jvmlab" / "workloads"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.workloads_dir(None) == tmp_path / "home" / ".cache" / "jvmlab" / "workloads"


def test_no_javac_anywhere_says_install_a_jdk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    jre = make_jdk(JDK25_HOME, 25, has_javac=False)
    with pytest.raises(UserError, match="install a JDK with javac"):
        prepare_builtin("hello", jre, cache_dir=tmp_path / "cache")
    assert not list((tmp_path / "cache" / "workloads").glob("*-r*"))


@pytest.mark.jvm
def test_second_prepare_reuses_the_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                         jdk17: JdkInfo, jdk25: JdkInfo) -> None:
    spy = CountingJavac(monkeypatch)
    first = prepare_builtin("tlbsort", jdk17, cache_dir=tmp_path)
    main_class = first.classpath / "JvmlabTlbSort.class"
    stamp = main_class.stat().st_mtime_ns
    again = prepare_builtin("tlbsort", jdk17, cache_dir=tmp_path)
    other = prepare_builtin("hello", jdk25, cache_dir=tmp_path)
    assert spy.calls == 1
    assert again.classpath == first.classpath == other.classpath
    assert main_class.stat().st_mtime_ns == stamp
    assert first.release == 8 and class_major_version(main_class) == 52
    assert first.classpath.parent.name == f"{first.source_hash}-r8"
    assert not list((tmp_path / "workloads").glob(".tmp-*"))


@pytest.mark.jvm
def test_concurrent_callers_compile_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                         jdk17: JdkInfo) -> None:
    spy = CountingJavac(monkeypatch)
    results: list[Path] = []
    errors: list[BaseException] = []

    def prepare() -> None:
        try:
            results.append(prepare_builtin("chunkgen", jdk17, cache_dir=tmp_path).classpath)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=prepare) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors
    assert spy.calls == 1
    assert len(results) == 4 and len(set(results)) == 1
    assert (results[0] / "JvmlabChunkGen.class").is_file()


@pytest.mark.jvm
def test_broken_build_is_replaced(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, jdk17: JdkInfo) -> None:
    digest = builtin.source_hash(builtin._read_sources())
    broken = tmp_path / "workloads" / f"{digest}-r8"
    (broken / "classes").mkdir(parents=True)
    (broken / "classes" / "JvmlabHello.class").write_bytes(b"not a class")
    spy = CountingJavac(monkeypatch)
    workload = prepare_builtin("hello", jdk17, cache_dir=tmp_path)
    assert spy.calls == 1
    assert workload.classpath == broken / "classes"
    assert class_major_version(broken / "classes" / "JvmlabBusy.class") == 52


@pytest.mark.jvm
def test_runtime_without_javac_uses_another_jdk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                jdk17: JdkInfo) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no javac on PATH: only `compilers` can serve
    jre25 = make_jdk(JDK25_HOME, 25, has_javac=False)
    workload = prepare_builtin("hello", jre25, cache_dir=tmp_path / "cache", compilers=[jdk17])
    assert workload.release == 8
    for class_file in workload.classpath.glob("*.class"):
        assert class_major_version(class_file) == 52
    build = json.loads((workload.classpath.parent / "build.json").read_text())
    assert build["origin"] == "compilers" and build["javac"] == str(jdk17.javac)
    done = subprocess.run(java_argv(jre25, workload, ()), capture_output=True, text=True,
                          timeout=60, check=False)
    assert (done.returncode, done.stdout) == (0, "Hello, jvmlab\n")


@pytest.mark.jvm
def test_javac_versions_and_release_fallback(tmp_path: Path, jdk25: JdkInfo) -> None:
    assert jdk25.javac is not None
    assert javac.javac_feature(jdk25.javac) == 25
    compiler = javac.Compiler(jdk25.javac, 25, "runtime")
    assert javac.candidate_releases(compiler, 17) == list(range(8, 18))
    (tmp_path / "A.java").write_text("public class A {}\n")
    with pytest.raises(javac.ReleaseUnsupported):  # javac 25 dropped release 7
        javac.compile_sources(compiler, 7, [Path("A.java")], Path("out"), cwd=tmp_path)
    javac.compile_sources(compiler, 11, [Path("A.java")], Path("out"), cwd=tmp_path)
    assert class_major_version(tmp_path / "out" / "A.class") == 55


def test_javac_too_old_for_runtime_is_skipped() -> None:
    compiler = javac.Compiler(Path("/x/javac"), 8, "PATH")
    assert javac.candidate_releases(compiler, 25) == [8]
    assert javac.release_options(compiler, 8) == ["-source", "1.8", "-target", "1.8"]
    assert javac.candidate_releases(javac.Compiler(Path("/x/javac"), 25, "PATH"), 8) == [8]
