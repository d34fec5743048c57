"""The words of unified-logging pause lines: kind, cause, failure, phase names.

Kept apart from the scanner (unified.py) because these rules are about the collectors'
vocabulary, not about finding lines; each is a small pure function, tested on its own.
"""

from __future__ import annotations

from jvmlab.gclog import events as ev

_KIND_WORDS = (("Full", ev.FULL), ("Mixed", ev.MIXED), ("Remark", ev.REMARK), ("Cleanup", ev.CLEANUP),
               (("Initial Mark", "Init Mark"), ev.INITIAL_MARK), ("Degenerated", ev.DEGENERATED),
               ("Incremental", ev.YOUNG))


def pause_kind(what: str) -> str:
    """Map a pause name (after 'Pause ') to a by_kind key, by the words the log uses."""
    if what.startswith("Young"):
        return ev.MIXED if "(Mixed)" in what else ev.YOUNG
    return next((kind for words, kind in _KIND_WORDS if what.startswith(words)), ev.OTHER)


def cause_and_failure(what: str) -> tuple[str | None, str | None]:
    """(cause, failure) of a pause named ``what``: the cause is the last parenthesised words
    of a Young/Mixed/Full pause, unless those report an evacuation failure (JDK 17+), in
    which case the cause is the group before it."""
    if not what.startswith(("Young", "Mixed", "Full")):
        return None, None
    cause = last_parens(what)
    if cause is not None and cause.startswith("Evacuation Failure"):
        rest = what.rstrip()[: -len(cause) - 2].rstrip()
        return last_parens(rest), "to-space exhausted"
    return cause, None


def bare_phase(what: str) -> str:
    """A phase name without its qualifiers: ``marking (unload classes)`` -> ``marking``."""
    cut = what.find(" (")
    return what if cut < 0 else what[:cut]


def last_parens(text: str) -> str | None:
    """The text inside the last balanced parentheses at the end: the GC cause."""
    text = text.rstrip()
    if not text.endswith(")"):
        return None
    opening = text.rfind("(")
    if opening >= 0 and text.find(")", opening) == len(text) - 1:
        return text[opening + 1:-1]  # no nesting (the common case): no character loop
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                return text[i + 1:-1]
    return None


_G1_TYPES = ("Young (Normal)", "Young (Concurrent Start)", "Young (Prepare Mixed)", "Young (Mixed)",
             "Young (Initial Mark)")
_SHENANDOAH_PAUSES = ("Init Mark", "Final Mark", "Init Update Refs", "Final Update Refs", "Final Roots",
                      "Init Evac", "Final Evac", "Degenerated GC")
_ZGC_PAUSES = ("Mark Start", "Mark End", "Relocate Start")


def collector_of_pause(what: str) -> str | None:
    """The collector a pause's own words identify (after ``Pause ``), for a log without its
    ``Using ...`` header line (a rotated file); None when several collectors use the words
    (``Young (Allocation Failure)`` is Parallel, Serial or CMS)."""
    if " (G1 " in what or what.startswith(_G1_TYPES):
        return "G1"
    if what.startswith(_SHENANDOAH_PAUSES):
        return "Shenandoah"
    if what.startswith(_ZGC_PAUSES):
        return "ZGC"
    if what.startswith(("Full (Ergonomics)", "Young (Ergonomics)")):
        return "Parallel"  # the adaptive size policy's cause
    if what.startswith("Initial Mark"):
        return "CMS"  # G1's JDK 9-10 initial mark names its G1 cause, caught above
    return None
