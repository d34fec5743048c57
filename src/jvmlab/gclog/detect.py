"""Recognise a log's format from its first 64 kB, and group files into logs.

Rotated sets (``gc.log``, ``gc.log.0``, ``gc.log.1``, ``gc.log.2.current``, each maybe
``.gz``/``.zip``) share a base name and are read as one log, ordered by the first
timestamp each file states (rotation numbers wrap, timestamps do not); files with no
timestamp keep their rotation number order, the live file (no number or ``.current``) last.
"""

from __future__ import annotations

import re
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.gclog.reader import read_head

UNIFIED = "unified"
LEGACY = "hotspot-legacy"
J9 = "openj9-xml"
ZING = "zing"  # Azul Zing / Prime -Xloggc log with its [GCHH : ...] header

_UNIFIED_LINE = re.compile(r"^\[[^\]\n]*\](?:\[[^\]\n]*\])*[ \t]*\S", re.MULTILINE)
_UNIFIED_GC = re.compile(r"^(?:\[[^\]\n]*\])+[ \t]*(?:GC\(\d+\)|Using |Version: |Safepoint |"
                         r"Allocation Stall|Heap |Initializing |Total time for which)", re.MULTILINE)
_LEGACY = re.compile(r"\[(?:GC|Full GC)[ (\-\[\d]|\[(?:ParNew|PSYoungGen|DefNew|CMS-concurrent-)|"
                     # JDK 8 Shenandoah: its phases, or only its exit statistics (a log cut at shutdown)
                     r"\[Pause (?:Init|Final|Degenerated|Full)|^Shenandoah Heap$|^GC STATISTICS:$|"
                     r"^CommandLine flags: |Total time for which application threads", re.MULTILINE)
_ZING_HEADER = re.compile(r"^(?:\S+: )?\d+[.,]\d+: \[GCHH : ", re.MULTILINE)
_ROTATED = re.compile(r"^(?P<base>.+?)(?:\.(?P<n>\d+))?(?P<cur>\.current)?(?:\.gz|\.zip)?$")
_FIRST_UPTIME = re.compile(r"^\[(?:[^\]\n]*\]\[)*?(?P<up>\d+[.,]\d+)s\]|^(?:\S+: )?(?P<lup>\d+[.,]\d+): \[",
                           re.MULTILINE)
_OTHER_FORMATS = (
    (re.compile(r"^\[(?:INFO |memory |[^\]]*\]\[memory)", re.MULTILINE), "a JRockit GC log"),
    (re.compile(r"^gc \d+ @\d", re.MULTILINE), "a Go gctrace"),
    (re.compile(r"<AF\[\d+\]: |^\s*<GC\(\d+\)", re.MULTILINE), "a pre-J9 IBM GC log"),
)


def detect_format(path: Path, head: str | None = None) -> str:
    """Return UNIFIED, LEGACY, J9 or ZING; raise UserError naming the file otherwise."""
    text = read_head(path) if head is None else head
    if "<verbosegc" in text or ("<?xml" in text[:200] and ("<gc-op" in text or "<af " in text)):
        return J9
    if _ZING_HEADER.search(text):
        return ZING
    unified_lines = len(_UNIFIED_LINE.findall(text))
    if unified_lines and _UNIFIED_GC.search(text):
        return UNIFIED
    if _LEGACY.search(text):
        return LEGACY
    if unified_lines >= 3:
        return UNIFIED  # a unified log with no GC tags yet: summarised, with zero events
    for pattern, what in _OTHER_FORMATS:
        if pattern.search(text):
            raise UserError(f"{path}: looks like {what}, which jvmlab cannot read; "
                            f"log with -Xlog:gc* (JDK 9+) or -XX:+PrintGCDetails (JDK 8)")
    if not text.strip():
        raise UserError(f"{path}: file is empty; point jvmlab at the log the JVM wrote "
                        f"(-Xlog:gc*:file=gc.log)")
    raise UserError(f"{path}: not a GC log (no JDK unified, JDK 6-8 or OpenJ9 GC lines in "
                    f"its first 64 kB); pass the file written by -Xlog:gc* or -XX:+PrintGCDetails")


def rotation_key(path: Path) -> tuple[str, int, bool]:
    """(base name, rotation number or -1, is-live-file) of a possibly rotated log file."""
    m = _ROTATED.match(path.name)
    assert m is not None
    n = m["n"]
    return str(path.parent / m["base"]), int(n) if n is not None else -1, bool(m["cur"]) or n is None


def first_uptime(head: str) -> float | None:
    m = _FIRST_UPTIME.search(head)
    if m is None:
        return None
    return float((m["up"] or m["lup"]).replace(",", "."))


def group_rotated(paths: list[Path], heads: dict[Path, str]) -> list[list[Path]]:
    """Group files of one rotated set together, each group in reading order."""
    groups: dict[str, list[Path]] = {}
    for path in paths:
        groups.setdefault(rotation_key(path)[0], []).append(path)
    ordered: list[list[Path]] = []
    for members in groups.values():
        members = list(dict.fromkeys(members))
        starts = {p: first_uptime(heads.get(p, "")) for p in members}
        if len(members) > 1 and all(v is not None for v in starts.values()):
            members.sort(key=lambda p: (starts[p], rotation_key(p)[1]))
        else:
            members.sort(key=lambda p: (rotation_key(p)[2], rotation_key(p)[1]))
        ordered.append(members)
    return ordered
