"""The minecraft scenario: clear skips, and the real Minestom server generating chunks."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from jvmlab.model.jdk import JdkInfo
from jvmlab.scenarios import minecraft
from jvmlab.scenarios.model import ScenarioSkipped

JDK25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64")


def jdk(feature: int, home: Path = Path("/nonexistent")) -> JdkInfo:
    return JdkInfo(home=home, version=str(feature), feature=feature, vendor="t", vm="OpenJDK 64-Bit Server VM",
                   vm_kind="HotSpot", has_javac=True)


def test_without_a_jdk25_it_skips_saying_so() -> None:
    with pytest.raises(ScenarioSkipped, match=r"needs a JDK 25\+.*found: JDK 17"):
        minecraft.pick_jdk([jdk(17)])
    assert minecraft.pick_jdk([jdk(17), jdk(25)]).feature == 25


def test_without_maven_it_skips_saying_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no mvn on it
    with pytest.raises(ScenarioSkipped, match="needs Maven"):
        minecraft.build(jdk(25), root=tmp_path)


@pytest.mark.jvm
@pytest.mark.slow
def test_minestom_generates_chunks_without_listening() -> None:
    if not (JDK25 / "bin" / "java").is_file() or shutil.which("mvn") is None:
        pytest.skip("needs JDK 25 and Maven")
    try:
        folder = minecraft.build(jdk(25, JDK25))  # cached after the first build
    except ScenarioSkipped as skipped:
        pytest.skip(str(skipped))
    cp = f"{folder / 'target' / 'jvmlab-minestom-1.jar'}:{folder / 'target' / 'lib' / '*'}"
    out = subprocess.run([str(JDK25 / "bin" / "java"), "-Xmx512m", "-cp", cp, minecraft.MAIN, "--seconds", "3"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    counts = [int(n) for n in re.findall(r"^progress (\d+) chunks$", out, re.M)]
    assert counts and counts[-1] > 0 and counts == sorted(counts)
    assert f"jvmlab-metric name=chunks value={counts[-1]} unit=count" in out
