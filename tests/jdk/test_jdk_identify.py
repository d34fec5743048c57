"""Identification: parsing what a JDK says about itself, and probing real JDKs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.jdk.cache import JdkCache
from jvmlab.jdk.identify import (
    feature_of,
    identify,
    java_home_of,
    normalize_home,
    parse_properties,
    read_release,
    vm_kind_of,
)
from jvmlab.model.jdk import JdkInfo, version_key

# Abridged real output of `java -XshowSettings:properties -version` (Temurin 25).
PROPERTIES = """Property settings:
    file.encoding = UTF-8
    java.class.path = 
    java.home = /usr/lib/jvm/temurin-25-jdk-amd64
    java.library.path = /usr/java/packages/lib
        /usr/lib64
        /lib64
    java.runtime.version = 25.0.3+9-LTS
    java.specification.version = 25
    java.vendor = Eclipse Adoptium
    java.vendor.version = Temurin-25.0.3+9
    java.vm.name = OpenJDK 64-Bit Server VM

openjdk version "25.0.3" 2026-04-21 LTS
"""


def test_parse_properties_reads_keys_and_skips_continuation_lines() -> None:
    props = parse_properties(PROPERTIES)
    assert props["java.home"] == "/usr/lib/jvm/temurin-25-jdk-amd64"
    assert props["java.vendor.version"] == "Temurin-25.0.3+9"
    assert props["java.library.path"] == "/usr/java/packages/lib"
    assert props["java.class.path"] == ""
    assert "/usr/lib64" not in props


@pytest.mark.parametrize(
    ("spec", "runtime", "feature"),
    [("1.8", "1.8.0_392-b08", 8), ("17", "17.0.15+6", 17), ("25", "25.0.3+9-LTS", 25), ("", "11.0.2+9", 11)],
)
def test_feature_of(spec: str, runtime: str, feature: int) -> None:
    assert feature_of(spec, runtime) == feature


@pytest.mark.parametrize(
    ("vm", "vendor", "vendor_version", "kind"),
    [
        ("OpenJDK 64-Bit Server VM", "Debian", "", "HotSpot"),
        ("Java HotSpot(TM) 64-Bit Server VM", "Oracle Corporation", "", "HotSpot"),
        ("Eclipse OpenJ9 VM", "IBM Corporation", "", "OpenJ9"),
        ("Java HotSpot(TM) 64-Bit Server VM", "Oracle Corporation", "Oracle GraalVM 21.0.2+13.1", "GraalVM"),
        ("OpenJDK 64-Bit Server VM", "GraalVM Community", "GraalVM CE 21.0.2+13.1", "GraalVM"),
        ("Some Other VM", "Acme", "", "unknown"),
    ],
)
def test_vm_kind_of(vm: str, vendor: str, vendor_version: str, kind: str) -> None:
    assert vm_kind_of(vm, vendor, vendor_version) == kind


def _fake_java(bin_dir: Path) -> None:
    bin_dir.mkdir(parents=True)
    java = bin_dir / "java"
    java.write_text("#!/bin/sh\nexit 1\n")
    java.chmod(0o755)


def test_jdk8_jre_home_maps_to_the_jdk(tmp_path: Path) -> None:
    _fake_java(tmp_path / "jdk8" / "bin")
    _fake_java(tmp_path / "jdk8" / "jre" / "bin")
    assert normalize_home(tmp_path / "jdk8" / "jre", fallback=tmp_path) == (tmp_path / "jdk8").resolve()


def test_release_file_is_parsed(tmp_path: Path) -> None:
    (tmp_path / "release").write_text('IMPLEMENTOR="Eclipse Adoptium"\nJAVA_VERSION="25.0.3"\nODD LINE\n')
    assert read_release(tmp_path) == {"IMPLEMENTOR": "Eclipse Adoptium", "JAVA_VERSION": "25.0.3"}


def test_java_home_of_accepts_home_or_binary_and_rejects_others(tmp_path: Path) -> None:
    _fake_java(tmp_path / "jdk" / "bin")
    home = (tmp_path / "jdk").resolve()
    assert java_home_of(tmp_path / "jdk") == home
    assert java_home_of(tmp_path / "jdk" / "bin" / "java") == home
    assert java_home_of(tmp_path) is None
    assert java_home_of(tmp_path / "missing") is None


def test_broken_java_is_a_user_error(tmp_path: Path) -> None:
    _fake_java(tmp_path / "broken" / "bin")
    with pytest.raises(UserError, match="did not start"):
        identify(tmp_path / "broken", cache=JdkCache(tmp_path / "cache"))


def test_not_a_jdk_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not a JDK"):
        identify(tmp_path)


def test_version_key_orders_jdk8_with_the_rest() -> None:
    def info(version: str, feature: int) -> JdkInfo:
        return JdkInfo(Path("/x"), version, feature, "v", "vm", "HotSpot", True)

    versions = [info("17.0.15+6", 17), info("1.8.0_392-b08", 8), info("17.0.9+9", 17), info("25.0.3+9-LTS", 25)]
    ordered = [j.version for j in sorted(versions, key=version_key)]
    assert ordered == ["1.8.0_392-b08", "17.0.9+9", "17.0.15+6", "25.0.3+9-LTS"]


@pytest.mark.jvm
def test_identify_real_jdk17(jdk17: JdkInfo) -> None:
    assert jdk17.feature == 17
    assert jdk17.version.startswith("17.")
    assert jdk17.vm_kind == "HotSpot"
    assert jdk17.has_javac and jdk17.javac is not None and os.access(jdk17.javac, os.X_OK)
    assert {"G1", "Parallel", "Serial", "Epsilon"} <= set(jdk17.gcs)  # Epsilon needs the unlock
    assert "CMS" not in jdk17.gcs  # removed in 14


@pytest.mark.jvm
def test_identify_real_temurin25(jdk25: JdkInfo) -> None:
    assert jdk25.feature == 25
    assert jdk25.vendor == "Eclipse Adoptium"
    assert jdk25.implementor == "Eclipse Adoptium"
    assert jdk25.vendor_version.startswith("Temurin-25")
    assert {"G1", "Parallel", "Serial", "ZGC", "Epsilon"} <= set(jdk25.gcs)
    assert JdkInfo.from_json(jdk25.to_json()) == jdk25


@pytest.mark.parametrize(
    ("returncode", "stderr", "option", "started"),
    [
        (0, "OpenJDK 64-Bit Server VM warning: Ignoring option UseConcMarkSweepGC; support was removed in 14.0",
         "-XX:+UseConcMarkSweepGC", False),
        (1, "Unrecognized VM option 'UseShenandoahGC'", "-XX:+UseShenandoahGC", False),
        (0, "[warning][cds] Archived heap is not supported with this collector", "-XX:+UseZGC", True),
        (0, "", "-Xgcpolicy:gencon", True),
    ],
)
def test_gc_probe_verdict(returncode: int, stderr: str, option: str, started: bool) -> None:
    from jvmlab.jdk.identify import _gc_started
    from jvmlab.jdk.proc import JavaRun

    assert _gc_started(JavaRun(("java",), returncode, "", stderr), option) is started
