"""Finding the lines of a unified log that the parser reads, with compiled regexes over
whole chunks (the scan half of unified.py; the compiled pre-filter, linescan.c, keeps a
superset of exactly these lines).
"""

from __future__ import annotations

import re

# Lines with a GC id. The scan anchors on ") " right after the id and the words that follow
# (every line of a detailed log has "GC(n)", so anchoring on "GC(" tried a match on each
# line: measured twice as slow); the id itself is read back from the text before the match.
_GC_LINE = re.compile(
    r"\) (?P<m>(?:[yYO]: )?(?:Pause |Concurrent )[^\n]*\d(?:ms|s)[ \t]*$|"
    r"(?:Garbage|Minor|Major) Collection [^\n]*|(?:PSYoungGen|DefNew|ParNew): [^\n]*|To-space exhausted|"
    r"(?:[YO]: )?(?:(?:Min|Max|Soft Max) Capacity: | *(?:Capacity|Used): )[^\n]*)",  # ZGC's heap table
    re.MULTILINE)
# Lines without a GC id, each searched only when its keyword occurs in the chunk. Header
# lines (collector, version, heap sizes, mode) are printed when a JVM starts, before its
# first GC: they are looked for only in the text before a chunk's first GC line and before
# each "GC(0)" (a restart in concatenated logs), which keeps whole-chunk scans for the
# lines that recur all through a log.
_HEADER_LINES = (
    ("Using ", re.compile(r"(?P<m>Using (?:G1|Parallel|Serial|Shenandoah|The Z|Concurrent Mark|Epsilon)[^\n]*)")),
    ("Version: ", re.compile(r"(?P<m>Version: [^\n]*)")),
    ("Heap ", re.compile(r"(?P<m>Heap (?:Min|Initial|Max) Capacity: [^\n]*|Heap [Rr]egion [Ss]ize: [^\n]*)")),
    ("Mode: ", re.compile(r"(?P<m>Mode: [^\n]*)")),
    ("Capacity: ", re.compile(r"(?P<m>(?:Min|Initial|Max) Capacity: [^\n]*)")),  # ZGC (JDK 17+)
)
_RECURRING_LINES = (
    ("Allocation Stall (", re.compile(r"(?P<m>Allocation Stall \([^\n]*)")),
    ("Relocation Stall (", re.compile(r"(?P<m>Relocation Stall \([^\n]*)")),
    ('Safepoint "', re.compile(r"(?P<m>Safepoint \"[^\n]*)")),
    ("Total time for which", re.compile(r"(?P<m>Total time for which [^\n]*)")),
    ("<total>", re.compile(r"(?P<m>\d+ of +\d+ ms [^\n]*<total>)")),
    ("Trigger", re.compile(r"(?P<m>Trigger(?: \([^)\n]*\))?: [^\n]*)")),  # why a Shenandoah cycle starts
)
_SHENANDOAH_ONLY = ("<total>", "Trigger")
_SAFEPOINT_NEEDLES = ('Safepoint "', "Total time for which")
_ZGC_NEEDLES = ("Allocation Stall (", "Relocation Stall (")
_NO_SAFEPOINT_LINES = tuple((n, rx) for n, rx in _RECURRING_LINES if n not in _SAFEPOINT_NEEDLES)
_HEADER_WINDOW = 256 << 10  # header lines come within this many characters before GC(0)


def header_spans(chunk: str) -> list[tuple[int, int]]:
    """Where header lines can be: before the first GC line, and before each GC(0)."""
    first = chunk.find("GC(")
    spans = [(0, len(chunk) if first < 0 else first)]
    pos = chunk.find("GC(0) ", max(first, 0))
    while pos >= 0:
        spans.append((max(spans[-1][1], pos - _HEADER_WINDOW), pos))
        pos = chunk.find("GC(0) ", pos + 6)
    return spans


def plain_matches(chunk: str, recurring: tuple[tuple[str, re.Pattern[str]], ...] = _RECURRING_LINES,
                  spans: list[tuple[int, int]] | None = None) -> list[tuple[int, re.Match[str]]]:
    """Matches of the lines without a GC id, with their positions. ``recurring`` is the
    subset of recurring line kinds worth looking for (each costs one pass over the chunk)."""
    found = [(m.start(), m) for needle, rx in recurring if needle in chunk for m in rx.finditer(chunk)]
    for start, end in header_spans(chunk) if spans is None else spans:
        if end > start:
            found.extend((m.start(), m) for needle, rx in _HEADER_LINES
                         if chunk.find(needle, start, end) >= 0 for m in rx.finditer(chunk, start, end))
    return found


# A line that starts with neither a decorator block nor is blank: not understood.
_BAD_LINE = re.compile(r"\n[^\[\n]")
