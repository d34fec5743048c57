"""ZGC's per-cycle heap table (``-Xlog:gc+heap``, JDK 15+) and its capacity lines.

Why: the cycle's summary line (``Garbage Collection (Warmup) 916M(11%)->246M(3%)``) gives
the heap before and after, but not the committed capacity nor the peak use during the
cycle, which only the table holds (columns Mark Start, Mark End, Relocate Start, Relocate
End, High, Low)::

    GC(0) Min Capacity: 8192M(100%)
    GC(0) Max Capacity: 8192M(100%)
    GC(0) Soft Max Capacity: 8192M(100%)
    GC(0)                Mark Start          Mark End   ...   High               Low
    GC(0)  Capacity:     8192M (100%)       8192M (100%) ...  8192M (100%)       8192M (100%)
    GC(0)      Used:      916M (11%)        1000M (12%)  ...  1000M (12%)         246M (3%)

Generational ZGC (JDK 21+) prints one such table per generation (``Y:``/``O:`` prefix),
then per-generation tables of four columns, which are not whole-heap figures and are skipped.
"""

from __future__ import annotations

import re

_SETTING = re.compile(r"^(?:[YO]: )?(?P<what>Min|Initial|Max|Soft Max) Capacity: (?P<mb>\d+(?:\.\d+)?)M")
_ROW = re.compile(r"^(?:[YO]: )? *(?P<row>Capacity|Used): +(?P<cols>.*)$")
_COL = re.compile(r"(\d+)M \(")
_SETTING_KEYS = {"Min": "heap_min_mb", "Initial": "heap_initial_mb", "Max": "heap_max_mb",
                 "Soft Max": "heap_soft_max_mb"}
_PENDING_LIMIT = 16
_HEAP_COLUMNS = 6  # Mark Start, Mark End, Relocate Start, Relocate End, High, Low


def setting(msg: str) -> tuple[str, float] | None:
    """(``heap_settings_mb`` key, MB) of a ``Min/Initial/Max/Soft Max Capacity:`` line."""
    m = _SETTING.match(msg)
    return None if m is None else (_SETTING_KEYS[m["what"]], float(m["mb"]))


class CycleTables:
    """Per GC id: [committed max, used at mark start, used at relocate end, used high]."""

    def __init__(self) -> None:
        self._by_gid: dict[int, list[float | None]] = {}

    def row(self, gid: int, msg: str) -> bool:
        """Fold a ``Capacity:`` or ``Used:`` row; False if ``msg`` is not a whole-heap row."""
        m = _ROW.match(msg)
        if m is None:
            return False
        cols = [float(c) for c in _COL.findall(m["cols"])]
        if len(cols) != _HEAP_COLUMNS:
            return False
        entry = self._by_gid.get(gid)
        if entry is None:
            entry = self._by_gid[gid] = [None, None, None, None]
            if len(self._by_gid) > _PENDING_LIMIT:
                self._by_gid.pop(next(iter(self._by_gid)))
        if m["row"] == "Capacity":
            entry[0] = max(cols) if entry[0] is None else max(entry[0], max(cols))
        else:
            entry[1] = cols[0] if entry[1] is None else entry[1]  # the first generation's mark start
            entry[2] = cols[3]
            entry[3] = cols[4] if entry[3] is None else max(entry[3], cols[4])
        return True

    def take(self, gid: int) -> tuple[float | None, float | None, float | None, float | None]:
        """(committed max, before, after, peak used) of cycle ``gid``, all None if no table."""
        committed, before, after, peak = self._by_gid.pop(gid, None) or (None, None, None, None)
        return committed, before, after, peak
