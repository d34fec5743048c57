"""The figures other GC analyzers report besides pauses, folded from the event stream.

Concurrent phases by name, collections by cause and failure, heap maxima (whole heap,
young and old generation), first and last event, last pause, and the distinct event
types. Constant memory: counters keyed by the log's own words (a few dozen at most).
Every figure is ``None`` in JSON when the log does not hold it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jvmlab.gclog import events as ev
from jvmlab.gclog.events import GcEvent

_MAX_KEYS = 200  # bound on distinct names kept (a damaged log cannot grow memory)


def rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _bump(table: dict[str, list[float]], key: str, ms: float | None) -> None:
    entry = table.get(key)
    if entry is None:
        if len(table) >= _MAX_KEYS:
            return
        entry = table[key] = [0, 0.0, 0.0]
    entry[0] += 1
    entry[1] += ms or 0.0
    entry[2] = max(entry[2], ms or 0.0)


def _max(current: float | None, value: float | None) -> float | None:
    if value is None:
        return current
    return value if current is None or value > current else current


def type_label(name: str, kind: str, cause: str | None) -> str:
    """An event's type for counting distinct types: its name (else kind) without the cause."""
    name = name or kind
    if cause and name.endswith(f"({cause})"):
        name = name[: -len(cause) - 2].rstrip()
    return name


@dataclass
class Figures:
    """Accumulates the non-pause figures of one log."""

    phases: dict[str, list[float]] = field(default_factory=dict)
    causes: dict[str, list[float]] = field(default_factory=dict)
    failures: dict[str, list[float]] = field(default_factory=dict)
    types: set[str] = field(default_factory=set)
    heap_committed_max: float | None = None
    heap_used_max: float | None = None
    heap_after_max: float | None = None
    young_max: float | None = None
    old_max: float | None = None
    first_t: float | None = None
    last_t: float | None = None
    last_pause: GcEvent | None = None
    _seen: set[tuple[str, str, str | None]] = field(default_factory=set)

    def add(self, e: GcEvent) -> None:
        """Fold one event (any type) into the figures; called for every event, so kept lean."""
        t = e.t_s
        if t is not None:
            if self.first_t is None or t < self.first_t:
                self.first_t = t
            if self.last_t is None or t > self.last_t:
                self.last_t = t
        typ = e.type
        if typ == ev.PHASE:
            _bump(self.phases, e.name, e.duration_ms)
        elif typ == ev.PAUSE or typ == ev.CYCLE:
            self._collection(e)
        if typ != ev.SAFEPOINT:
            key = (typ, e.name, e.cause)
            if key not in self._seen and len(self._seen) < _MAX_KEYS * 5:
                self._seen.add(key)
                if len(self.types) < _MAX_KEYS:
                    self.types.add(f"{typ}:{type_label(e.name, e.kind, e.cause)}")

    def _collection(self, e: GcEvent) -> None:
        if e.type == ev.PAUSE:
            self.last_pause = e
            if e.cause and e.kind in ev.COLLECTION_STARTS:
                _bump(self.causes, e.cause, e.duration_ms)
        elif e.cause:
            _bump(self.causes, e.cause, e.duration_ms)
        if e.failure:
            _bump(self.failures, e.failure, e.duration_ms)
        before, after = e.heap_before_mb, e.heap_after_mb
        if before is None and after is None:
            return
        self.heap_committed_max = _max(self.heap_committed_max, e.heap_committed_mb)
        self.heap_used_max = _max(_max(_max(self.heap_used_max, before), after), e.heap_peak_mb)
        self.heap_after_max = _max(self.heap_after_max, after)
        yb, ya = e.young_before_mb, e.young_after_mb
        if yb is None and ya is None:
            return
        self.young_max = _max(self.young_max, yb)
        if yb is not None and before is not None:
            self.old_max = _max(self.old_max, before - yb)
        if ya is not None and after is not None:
            self.old_max = _max(self.old_max, after - ya)

    def to_json(self, heap_max_setting_mb: float | None) -> dict[str, Any]:
        """The keys this module adds to one ``logs[]`` entry (docs/gclog.md)."""
        lp = self.last_pause
        return {
            "concurrent_phases": _table(self.phases),
            "collections_by_cause": _table(self.causes),
            "failures": _table(self.failures),
            "heap_max_mb": {
                "setting": rounded(heap_max_setting_mb),
                "committed": rounded(self.heap_committed_max),
                "used": rounded(self.heap_used_max),
                "after_gc": rounded(self.heap_after_max),
                "young_used": rounded(self.young_max),
                "old_used": rounded(self.old_max),
            },
            "first_event_s": rounded(self.first_t),
            "last_event_s": rounded(self.last_t),
            "last_pause": None if lp is None else {
                "t_s": rounded(lp.t_s), "duration_ms": rounded(lp.duration_ms), "kind": lp.kind, "name": lp.name},
            "event_types": {"count": len(self.types), "names": sorted(self.types)} if self.types else None,
        }


def _table(table: dict[str, list[float]]) -> dict[str, dict[str, float | None]] | None:
    if not table:
        return None
    rows = sorted(table.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return {k: {"count": int(v[0]), "total_ms": rounded(v[1]), "max_ms": rounded(v[2])} for k, v in rows}
