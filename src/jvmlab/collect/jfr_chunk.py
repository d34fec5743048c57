"""Events of one Flight Recorder chunk, read with :mod:`jvmlab.collect.jfr_binary`.

Two passes over the chunk's events: the first reads every constant pool and notes where the
wanted events are (pools may come after the events that use them: a chunk is flushed in
pieces); the second reads those events field by field, as the metadata describes them, and
resolves their references. Only the wanted event types are decoded; the rest are skipped
by their size, which is what makes this fast.

Values are shaped as ``jfr print --json`` shows them (a simple type such as a Symbol reads
as its one field; a stack trace as ``{"truncated", "frames": [{"method": {"type": {"name"},
"name"}}]}``), with numbers instead of ISO strings: timestamps in epoch seconds, spans in
seconds. So :func:`jvmlab.collect.jfr_parse.digest_events` reads both alike.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from jvmlab.collect.jfr_binary import (
    CONSTANT_POOL_EVENT,
    DOUBLE,
    FLOAT,
    HEADER_BYTES,
    ChunkHeader,
    Cursor,
    FieldType,
    JfrFormatError,
    Ref,
    TypeInfo,
    parse_header,
    read_metadata,
)

Event = tuple[str, dict[str, Any]]
_MAX_RESOLVE_DEPTH = 40


def _primitive_readers(string_id: int) -> dict[str, Callable[[Cursor], Any]]:
    """How each primitive type is encoded: integers compressed, floats raw big-endian."""
    return {
        "boolean": lambda c: c.byte() != 0,
        "byte": _signed_byte,
        "char": lambda c: chr(c.varint() & 0xFFFF),
        "short": lambda c: c.signed(16),
        "int": lambda c: c.signed(32),
        "long": lambda c: c.signed(64),
        "float": lambda c: FLOAT.unpack(c.raw(4))[0],
        "double": lambda c: DOUBLE.unpack(c.raw(8))[0],
        "java.lang.String": lambda c: c.string(string_id),
    }


def _signed_byte(cur: Cursor) -> int:
    value = cur.byte()
    return value - 256 if value > 127 else value


class ChunkReader:
    """Reads the wanted events of the chunk that spans ``data[start:end]``."""

    def __init__(self, data: bytes, start: int, end: int) -> None:
        self.data, self.start, self.end = data, start, end
        self.header: ChunkHeader = parse_header(data, start)
        self.types: dict[int, TypeInfo] = read_metadata(data, start + self.header.metadata_offset, end)
        self.by_name = {t.name: t for t in self.types.values()}
        string = self.by_name.get("java.lang.String")
        self.string_id = string.id if string else -1
        self.readers = _primitive_readers(self.string_id)
        self.pools: dict[int, dict[int, Any]] = {}
        self.resolved: dict[tuple[int, int], Any] = {}
        self.divisor = self.header.ticks_per_s / 1e9  # ticks per nanosecond, as the JDK converts

    def events(self, wanted: Collection[str]) -> list[Event]:
        """(type name, values) of the wanted event types, in the chunk's order."""
        ids = {t.id for t in self.types.values() if t.name in wanted}
        found = self._scan(ids)
        out = []
        for type_id, pos, end in found:
            cur = Cursor(self.data, pos, end)
            info = self.types[type_id]
            values = {f.name: self._field(cur, f) for f in info.fields}
            out.append((info.name, self._resolve(values, 0)))
        return out

    def _scan(self, ids: set[int]) -> list[tuple[int, int, int]]:
        """Reads every constant pool; returns (type, first field byte, end) of the wanted events."""
        found = []
        pos = self.start + HEADER_BYTES
        while pos < self.end:
            cur = Cursor(self.data, pos, self.end)
            size = cur.varint()
            if size <= 0 or pos + size > self.end:
                raise JfrFormatError(f"event at byte {pos} has size {size}, chunk ends at {self.end}")
            cur.end = pos + size
            type_id = cur.varint()
            if type_id == CONSTANT_POOL_EVENT:
                self._pools(cur)
            elif type_id in ids:
                found.append((type_id, cur.pos, pos + size))
            pos += size
        return found

    def _pools(self, cur: Cursor) -> None:
        for _ in range(3):  # start time, duration, delta to the previous pool event
            cur.varint()
        cur.byte()  # flush / checkpoint kind
        for _ in range(cur.count()):
            type_id = cur.varint()
            info = self.types.get(type_id)
            if info is None:
                raise JfrFormatError(f"constant pool of unknown type {type_id}")
            pool = self.pools.setdefault(type_id, {})
            for _ in range(cur.count()):
                key = cur.varint()
                pool[key] = self._value(cur, info)

    def _value(self, cur: Cursor, info: TypeInfo) -> Any:
        """One value of a type, inline (not a reference)."""
        reader = self.readers.get(info.name)
        if reader is not None:
            return reader(cur)
        if info.simple and len(info.fields) == 1:
            return self._field(cur, info.fields[0])
        return {f.name: self._field(cur, f) for f in info.fields}

    def _field(self, cur: Cursor, spec: FieldType) -> Any:
        if spec.array:
            return [self._one(cur, spec) for _ in range(cur.count())]
        return self._one(cur, spec)

    def _one(self, cur: Cursor, spec: FieldType) -> Any:
        if spec.pooled:
            return Ref(spec.type_id, cur.varint())
        info = self.types.get(spec.type_id)
        if info is None:
            raise JfrFormatError(f"field {spec.name} of unknown type {spec.type_id}")
        value = self._value(cur, info)
        return self._time(value, spec.unit) if spec.unit and isinstance(value, int) else value

    def _time(self, value: int, unit: str) -> float:
        """Seconds (spans) or epoch seconds (timestamps) of a field annotated with a time unit."""
        if unit == "span-ticks":
            return int(value / self.divisor) / 1e9
        if unit == "stamp-ticks":
            return (self.header.start_ns + int((value - self.header.start_ticks) / self.divisor)) / 1e9
        if unit == "epoch-ms":
            return value / 1e3
        return value * int(unit.partition(":")[2]) / 1e9  # span-ns:<ns per unit>

    def _resolve(self, value: Any, depth: int) -> Any:
        if depth > _MAX_RESOLVE_DEPTH:
            raise JfrFormatError("constant pool references nest deeper than 40 levels")
        if isinstance(value, Ref):
            key = (value.type_id, value.key)
            if key not in self.resolved:
                self.resolved[key] = None  # a cycle reads as null, as a missing entry does
                raw = self.pools.get(value.type_id, {}).get(value.key)
                self.resolved[key] = self._resolve(raw, depth + 1)
            return self.resolved[key]
        if isinstance(value, dict):
            return {k: self._resolve(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [self._resolve(v, depth + 1) for v in value]
        return value
