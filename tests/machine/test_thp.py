"""Huge-page flags against the OS settings."""

from __future__ import annotations

from jvmlab.machine import fingerprint, thp
from jvmlab.model import hazards

MEMINFO = "MemTotal:       24684096 kB\nHugePages_Total:       0\nHugepagesize:       2048 kB\n"


def test_meminfo_parses_kilobytes_and_counts() -> None:
    info = fingerprint.meminfo(MEMINFO)
    assert info == {"MemTotal": 24684096 * 1024, "HugePages_Total": 0, "Hugepagesize": 2 << 20}


def kinds(flags: list[str], mode: str, pages: int = 0) -> list[str]:
    return [h.kind for h in thp.flag_hazards(flags, "c", thp_enabled=mode, hugepages_total=pages)]


def test_thp_flag_with_mode_never_is_a_hazard() -> None:
    assert kinds(["-XX:+UseTransparentHugePages"], "never") == [hazards.THP_MODE]
    assert kinds(["-XX:+UseTransparentHugePages"], "madvise") == []
    assert kinds(["-XX:+UseTransparentHugePages", "-XX:-UseTransparentHugePages"], "never") == []


def test_mode_always_makes_the_off_cell_huge_anyway() -> None:
    assert kinds([], "always") == [hazards.THP_MODE]
    assert kinds(["-XX:+UseTransparentHugePages"], "always") == []


def test_large_pages_without_hugetlbfs_pages_are_not_in_effect() -> None:
    assert kinds(["-XX:+UseLargePages"], "madvise", pages=0) == [hazards.FLAG_NOT_IN_EFFECT]
    assert kinds(["-XX:+UseLargePages"], "madvise", pages=512) == []
    assert kinds(["-XX:+UseLargePages", "-XX:+UseTransparentHugePages"], "madvise", pages=0) == []
