"""Selection: by feature, vendor-feature, "default" and path; clear errors otherwise."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from jdk_test_paths import JDK17_HOME, JDK17_SYMLINK, TEMURIN25_HOME

from jvmlab.errors import UserError
from jvmlab.jdk.cache import JdkCache
from jvmlab.jdk.identify import java_home_of
from jvmlab.jdk.select import matches_vendor, select
from jvmlab.model.jdk import JdkInfo


def _jdk(home: str, version: str, vendor: str, vendor_version: str = "", implementor: str = "") -> JdkInfo:
    feature = int(version.split(".")[0].split("+")[0])
    return JdkInfo(
        Path(home), version, feature, vendor, "OpenJDK 64-Bit Server VM", "HotSpot", True,
        implementor=implementor or vendor, vendor_version=vendor_version,
    )


SYNTHETIC = [
    _jdk("/jvm/zulu-17", "17.0.9+8-LTS", "Azul Systems, Inc.", "Zulu17.46+19-CA"),
    _jdk("/jvm/java-17-openjdk", "17.0.15+6-Debian-1deb12u1", "Debian"),
    _jdk("/jvm/amazon-corretto-21", "21.0.4+7-LTS", "Amazon.com Inc.", "Corretto-21.0.4.7.1"),
    _jdk("/jvm/temurin-25-jdk", "25.0.3+9-LTS", "Eclipse Adoptium", "Temurin-25.0.3+9"),
    _jdk("/jvm/graalvm-jdk-21", "21.0.2+13-LTS-jvmci-23.1-b30", "Oracle Corporation", "Oracle GraalVM 21.0.2+13.1"),
]


@pytest.mark.parametrize(
    ("selector", "home"),
    [
        ("17", "/jvm/java-17-openjdk"),  # newest 17 wins over the older Zulu
        ("zulu-17", "/jvm/zulu-17"),
        ("ZULU-17", "/jvm/zulu-17"),
        ("openjdk-17", "/jvm/java-17-openjdk"),
        ("corretto-21", "/jvm/amazon-corretto-21"),
        ("graalvm-21", "/jvm/graalvm-jdk-21"),
        ("temurin-25", "/jvm/temurin-25-jdk"),
        ("temurin", "/jvm/temurin-25-jdk"),
        ("21", "/jvm/amazon-corretto-21"),  # 21.0.4 is newer than GraalVM's 21.0.2
    ],
)
def test_select_synthetic(selector: str, home: str) -> None:
    assert select(selector, SYNTHETIC).home == Path(home)


def test_vendor_labels_in_messages() -> None:
    with pytest.raises(UserError, match=r"21 Corretto at .*, 25 Temurin at .*, 21 Oracle GraalVM at"):
        select("99", SYNTHETIC)


def test_vendor_match_does_not_confuse_builds() -> None:
    temurin, graal = SYNTHETIC[3], SYNTHETIC[4]
    assert matches_vendor(temurin, "adoptium") and not matches_vendor(temurin, "corretto")
    assert not matches_vendor(graal, "openjdk") and not matches_vendor(temurin, "openjdk")


@pytest.mark.parametrize("selector", ["21", "nonsense-99", "zulu-25"])
def test_no_match_lists_what_was_found(selector: str) -> None:
    with pytest.raises(UserError) as caught:
        select(selector, SYNTHETIC[:2])
    message = str(caught.value)
    assert f'no JDK matches "{selector}"' in message
    assert "(found: 17 Zulu at /jvm/zulu-17, 17 Debian at /jvm/java-17-openjdk)" in message
    assert "JVMLAB_JDK_PATH" in message
    assert "\n" not in message


def test_vendor_typo_gets_a_suggestion() -> None:
    with pytest.raises(UserError, match="did you mean 'temurin'"):
        select("temurn-25", SYNTHETIC)


def test_unreadable_selector() -> None:
    with pytest.raises(UserError, match="cannot read JDK selector"):
        select("two words", SYNTHETIC)


@pytest.mark.jvm
def test_select_on_the_real_machine(found: list[JdkInfo], jdk17: JdkInfo, jdk25: JdkInfo) -> None:
    assert select("17", found).home == JDK17_HOME
    assert select("temurin-25", found).home == TEMURIN25_HOME
    assert select("25", found).home == TEMURIN25_HOME
    with pytest.raises(UserError, match=r'no JDK matches "21" \(found: .*17 Debian at /usr/lib/jvm/java-17'):
        select("21", found)
    with pytest.raises(UserError, match='no JDK matches "nonsense-99"'):
        select("nonsense-99", found)


@pytest.mark.jvm
def test_select_by_path(found: list[JdkInfo], jdk17: JdkInfo, jdk25: JdkInfo, shared_cache: JdkCache) -> None:
    assert select(str(TEMURIN25_HOME), found) == select("temurin-25", found)
    assert select(str(TEMURIN25_HOME / "bin" / "java"), found).home == TEMURIN25_HOME
    if JDK17_SYMLINK.is_dir():
        assert select(str(JDK17_SYMLINK), found).home == JDK17_HOME
    # Not discovered (empty list): identified on the spot.
    assert select(str(TEMURIN25_HOME), [], cache=shared_cache).feature == 25


def test_select_bad_path(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="is not a JDK"):
        select(str(tmp_path), [])


@pytest.mark.jvm
def test_default_is_java_home_then_path(found: list[JdkInfo], jdk25: JdkInfo, tmp_path: Path) -> None:
    assert select("default", found, env={"JAVA_HOME": str(TEMURIN25_HOME)}).home == TEMURIN25_HOME
    on_path = shutil.which("java")
    if on_path is None:
        pytest.skip("no java on PATH")
    expected = java_home_of(on_path)
    assert select("default", found, env={"PATH": str(Path(on_path).parent)}).home == expected
    with pytest.raises(UserError, match="no default JDK"):
        select("default", found, env={"PATH": str(tmp_path)})
    with pytest.raises(UserError, match="fix or unset JAVA_HOME"):
        select("default", found, env={"JAVA_HOME": str(tmp_path)})
