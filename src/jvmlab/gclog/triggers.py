"""Shenandoah's ``Trigger:`` lines, the reason a concurrent cycle started, as a cause name.

Why: Shenandoah pauses carry no cause (``Pause Init Mark``); the heuristics print why the
next cycle starts on a line of its own, with the figures of the moment::

    Trigger: Free (812M) is below minimum threshold (819M)
    Trigger: Learning 3 of 5. Free (5732M) is below initial threshold (5734M)
    Trigger: Average GC time (598.35 ms) is above the time for allocation rate (33355 KB/s) ...

The figures are dropped so that cycles started for the same reason count together in
``collections_by_cause`` (``Free is below minimum threshold``). Generational mode's
``Trigger (Young):`` names the generation; the cause is counted without it.
"""

from __future__ import annotations

import re

_FIGURES = re.compile(r"\s*\([^()]*\d[^()]*\)")  # "(812M)", "(margin of error = 1.80)"; not "(System.gc())"
_LEARNING = re.compile(r"^Learning \d+ of \d+\.\s*")
_TRIGGER = re.compile(r"^Trigger(?: \([^)]*\))?: (?P<why>.+)$")


def trigger_cause(msg: str) -> str | None:
    """The cause named by a ``Trigger: ...`` line (figures removed), None if not one."""
    m = _TRIGGER.match(msg.strip())
    if m is None:
        return None
    why = m["why"].strip()
    learning = _LEARNING.match(why)
    why = _FIGURES.sub("", why[learning.end():] if learning else why).strip().rstrip(".")
    why = re.sub(r"\s+", " ", why)
    if learning:
        why = f"Learning: {why}"
    return why or None
