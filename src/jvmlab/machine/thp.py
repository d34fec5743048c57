"""Huge-page flags against the OS settings that decide whether they do anything.

``-XX:+UseTransparentHugePages`` asks for THP with madvise: with the OS mode ``never`` it does
nothing; with ``always`` the heap gets huge pages anyway, so on/off compare little.
``-XX:+UseLargePages`` alone means hugetlbfs pages, which must be reserved
(HugePages_Total > 0) or the JVM falls back to small pages with only a warning.
"""

from __future__ import annotations

from jvmlab.machine.fingerprint import meminfo, thp_setting
from jvmlab.model import hazards
from jvmlab.model.hazards import Hazard

THP_FLAG = "-XX:+UseTransparentHugePages"
LARGE_FLAG = "-XX:+UseLargePages"


def _last_bool(flags: list[str], name: str) -> bool | None:
    """The last -XX:+Name / -XX:-Name wins, as in the JVM."""
    state = None
    for f in flags:
        if f == f"-XX:+{name}":
            state = True
        elif f == f"-XX:-{name}":
            state = False
    return state


def flag_hazards(flags: list[str], cell: str, thp_enabled: str | None = None,
                 hugepages_total: int | None = None) -> list[Hazard]:
    """Hazards for one cell's flags on this machine (arguments override what is read)."""
    out: list[Hazard] = []
    thp_on = _last_bool(flags, "UseTransparentHugePages")
    large_on = _last_bool(flags, "UseLargePages")
    mode = thp_enabled if thp_enabled is not None else thp_setting("enabled")
    if thp_on and mode == "never":
        out.append(Hazard(hazards.THP_MODE, f"{THP_FLAG} has no effect: the OS THP mode is 'never' "
                          f"(/sys/kernel/mm/transparent_hugepage/enabled)",
                          "as root: echo madvise > /sys/kernel/mm/transparent_hugepage/enabled", cell))
    elif thp_on is not True and mode == "always":
        out.append(Hazard(hazards.THP_MODE, "the OS THP mode is 'always': this cell's heap gets huge pages "
                          f"without {THP_FLAG}, so comparing the flag on/off shows little",
                          "as root: echo madvise > /sys/kernel/mm/transparent_hugepage/enabled", cell))
    if large_on and not thp_on:
        total = hugepages_total if hugepages_total is not None else meminfo().get("HugePages_Total")
        if total == 0:
            out.append(Hazard(hazards.FLAG_NOT_IN_EFFECT, f"{LARGE_FLAG}: no hugetlbfs pages are reserved "
                              "(HugePages_Total = 0), so the JVM uses small pages",
                              "reserve some: echo 1024 > /proc/sys/vm/nr_hugepages (as root)", cell))
    return out
