"""`check` validates heap flags without committing or touching the heap, and says when a
heap is larger than the machine's memory. Real JVMs; the launcher is wrapped by a script
that records its argv and then runs the real java."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.jdk.flags import check_flags
from jvmlab.model.jdk import JdkInfo
from testing_jdks import JDK17_HOME, make_jdk

pytestmark = pytest.mark.jvm


def _recording_jdk(tmp_path: Path) -> tuple[JdkInfo, Path]:
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    log = tmp_path / "argv.log"
    java = home / "bin" / "java"
    java.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{log}"\nexec "{JDK17_HOME}/bin/java" "$@"\n')
    java.chmod(0o755)
    jdk = make_jdk(JDK17_HOME, 17)
    return JdkInfo(home=home, version=jdk.version, feature=17, vendor="test", vm=jdk.vm, vm_kind="HotSpot",
                   has_javac=False), log


def _machine_bytes() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def test_pre_touch_is_checked_but_never_done(tmp_path: Path) -> None:
    jdk, log = _recording_jdk(tmp_path)
    check = check_flags(jdk, ["-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch"])
    argv = log.read_text().splitlines()
    assert "-XX:+AlwaysPreTouch" in argv, "the user's flag is parsed by the JVM"
    assert argv.index("-XX:-AlwaysPreTouch") > argv.index("-XX:+AlwaysPreTouch"), "and then switched off"
    assert check.flags == ("-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch"), "the cell keeps its own flags"
    assert check.final_values["AlwaysPreTouch"] == "true" and check.origins["AlwaysPreTouch"] == "command line"


def test_an_initial_heap_larger_than_the_machine_is_refused_in_one_line(tmp_path: Path) -> None:
    jdk, _ = _recording_jdk(tmp_path)
    gib = _machine_bytes() * 2 // (1 << 30)
    with pytest.raises(UserError) as err:
        check_flags(jdk, [f"-Xms{gib}g", f"-Xmx{gib}g", "-XX:+AlwaysPreTouch"])
    assert f"-Xms{gib}g" in str(err.value) and "machine's memory" in str(err.value)


def test_a_maximum_heap_larger_than_the_machine_is_a_warning(tmp_path: Path) -> None:
    jdk, _ = _recording_jdk(tmp_path)
    gib = _machine_bytes() * 2 // (1 << 30)
    check = check_flags(jdk, [f"-Xmx{gib}g"])
    assert any(f"-Xmx{gib}g" in w and "machine's memory" in w for w in check.heap_warnings), check.heap_warnings
    assert not any("machine's memory" in w for w in check.warnings), "the JVM's own warnings stay its own"
