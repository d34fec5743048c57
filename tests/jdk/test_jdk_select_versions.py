"""A full version is a selector, and every JDK has a selector that picks exactly it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.jdk.select import select, selector_for
from jvmlab.model.jdk import JdkInfo


def _jdk(home: str, version: str, vendor: str, vendor_version: str = "") -> JdkInfo:
    feature = int(version.split(".")[0].split("+")[0])
    return JdkInfo(Path(home), version, feature, vendor, "OpenJDK 64-Bit Server VM", "HotSpot", True,
                   implementor=vendor, vendor_version=vendor_version)


FOUND = [
    _jdk("/jvm/zulu-17", "17.0.9+8-LTS", "Azul Systems, Inc.", "Zulu17.46+19-CA"),
    _jdk("/jvm/java-17-openjdk", "17.0.15+6-Debian-1deb12u1", "Debian"),
    _jdk("/jvm/java-17-old", "17.0.1+12", "Debian"),
    _jdk("/jvm/temurin-25-jdk", "25.0.3+9-LTS", "Eclipse Adoptium", "Temurin-25.0.3+9"),
]


@pytest.mark.parametrize(("selector", "home"), [
    ("17.0.15", "/jvm/java-17-openjdk"),
    ("17.0.15+6", "/jvm/java-17-openjdk"),
    ("17.0.9", "/jvm/zulu-17"),
    ("17.0.1", "/jvm/java-17-old"),  # not 17.0.15: versions match whole numbers
    ("25.0.3", "/jvm/temurin-25-jdk"),
    ("temurin-25.0.3", "/jvm/temurin-25-jdk"),
])
def test_full_versions_select(selector: str, home: str) -> None:
    assert str(select(selector, FOUND).home) == home


def test_an_unknown_full_version_lists_what_was_found() -> None:
    with pytest.raises(UserError) as err:
        select("17.0.99", FOUND)
    assert "17.0.99" in str(err.value) and "/jvm/zulu-17" in str(err.value)


def test_every_jdk_gets_a_selector_that_picks_it() -> None:
    selectors = {str(j.home): selector_for(j, FOUND) for j in FOUND}
    assert selectors["/jvm/java-17-openjdk"] == "17"  # the newest 17
    assert selectors["/jvm/zulu-17"] == "zulu-17"
    assert selectors["/jvm/temurin-25-jdk"] == "25"
    assert selectors["/jvm/java-17-old"] == "17.0.1"
    for jdk in FOUND:
        assert select(selector_for(jdk, FOUND), FOUND) is jdk
