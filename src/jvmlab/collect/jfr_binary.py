"""A reader of the Flight Recorder binary format (version 2, JDK 11+), for the events we digest.

Why our own: ``jfr print --json`` costs a JVM start and about a second per invocation (and
writes megabytes of JSON we parse again); this reads the same file in Python in a fraction
of that. It follows the format as the JDK writes it (``jdk.jfr.internal.consumer``:
``ChunkHeader``, ``MetadataReader``, ``ConstantPoolReader``, ``ParserFactory``):

- a file is a sequence of self-contained *chunks*; a chunk is a 68-byte header (magic
  ``FLR\\0``, version, size, offsets of the last constant pool and metadata events, start
  in epoch nanoseconds and in ticks, ticks per second, flags) followed by events;
- every event is ``size, type id, fields...``; integers (except the header) are unsigned
  LEB128 varints ("compressed integers"), floats and doubles are big-endian raw bytes;
- the *metadata* event (type 0) holds a string table and an element tree describing every
  type: its fields in order, which are arrays, which are constant-pool references, and
  annotations such as ``@Timespan(TICKS)``;
- *constant pool* events (type 1) map (type, key) to values (stack traces, methods,
  classes, symbols, strings...), which events and other pool entries reference by key,
  possibly before the pool that defines them appears: so pools are read first, values
  resolved afterwards.

Anything this reader does not understand raises :class:`JfrFormatError`; the caller then
reads that chunk with the JDK's tool instead (:mod:`jvmlab.collect.jfr_read`).
Values come out as ``jfr print --json`` would show them, in plain numbers: timestamps in
epoch seconds, time spans in seconds, references resolved to nested dicts.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

MAGIC = b"FLR\0"
HEADER_BYTES = 68
METADATA_EVENT, CONSTANT_POOL_EVENT = 0, 1
_COMPRESSED_INTS = 1  # bit of the header's flag byte
_SPAN_NS = {"NANOSECONDS": 1, "MICROSECONDS": 1_000, "MILLISECONDS": 1_000_000, "SECONDS": 1_000_000_000}
DOUBLE, FLOAT = struct.Struct(">d"), struct.Struct(">f")
_HEADER = struct.Struct(">4sHHqqqqqqqI")
_METADATA_CACHE: dict[bytes, dict[int, TypeInfo]] = {}
_METADATA_CACHE_SIZE = 8
_CACHE_LOCK = threading.Lock()


class JfrFormatError(ValueError):
    """The bytes are not a chunk this reader understands (truncated, another version...)."""


@dataclass(frozen=True)
class ChunkHeader:
    """The fixed header of one chunk; offsets are from the chunk's first byte."""

    major: int
    minor: int
    size_bytes: int
    constant_pool_offset: int
    metadata_offset: int
    start_ns: int  # epoch nanoseconds
    duration_ns: int
    start_ticks: int
    ticks_per_s: int
    flags: int


@dataclass
class FieldType:
    """One field of a type: its name, type id, and how it is encoded."""

    name: str
    type_id: int
    array: bool
    pooled: bool
    unit: str | None = None  # "span-ticks", "stamp-ticks", "span-ns:<ns per unit>", "epoch-ms"


@dataclass
class TypeInfo:
    """A type of the metadata: an event, a pooled type or a primitive."""

    id: int
    name: str
    super_type: str | None
    simple: bool = False  # a wrapper of its one field (Symbol, FrameType...): read as that field
    fields: list[FieldType] = field(default_factory=list)


@dataclass(frozen=True)
class Ref:
    """A reference into a constant pool, resolved once all pools of the chunk are read."""

    type_id: int
    key: int


def parse_header(data: bytes | memoryview, at: int) -> ChunkHeader:
    """The header of the chunk at ``at``; raises JfrFormatError when it is not a whole chunk."""
    if len(data) - at < HEADER_BYTES:
        raise JfrFormatError(f"{len(data) - at} bytes left at {at}: not a whole chunk header")
    magic, major, minor, size, cp, meta, start_ns, dur_ns, ticks, tps, flags = _HEADER.unpack_from(data, at)
    if magic != MAGIC:
        raise JfrFormatError(f"no FLR magic at byte {at}: not a Flight Recording")
    header = ChunkHeader(major, minor, size, cp, meta, start_ns, dur_ns, ticks, tps, flags)
    if major != 2:
        raise JfrFormatError(f"format version {major}.{minor} (this reader reads 2.x, JDK 11+)")
    if not (HEADER_BYTES <= cp < size and HEADER_BYTES <= meta < size) or at + size > len(data) or tps <= 0:
        raise JfrFormatError(f"chunk at byte {at} is unfinished or cut (size {size}, pools at {cp}, "
                             f"metadata at {meta}, file {len(data)} bytes)")
    if not flags & _COMPRESSED_INTS:
        raise JfrFormatError("chunk without compressed integers")
    return header


def chunk_spans(data: bytes | memoryview) -> Iterator[tuple[int, int]]:
    """(start, end) byte offsets of the chunks of a file, from their headers' sizes."""
    at = 0
    while at < len(data):
        if len(data) - at < HEADER_BYTES or bytes(data[at:at + 4]) != MAGIC:
            raise JfrFormatError(f"no chunk header at byte {at}")
        size = struct.unpack_from(">q", data, at + 8)[0]
        if size < HEADER_BYTES or at + size > len(data):
            raise JfrFormatError(f"chunk at byte {at} claims {size} bytes, file has {len(data) - at}")
        yield at, at + size
        at += size


class Cursor:
    """Reads compressed integers, raw floats and encoded strings from a byte buffer."""

    __slots__ = ("data", "end", "pos")

    def __init__(self, data: bytes, pos: int, end: int) -> None:
        self.data, self.pos, self.end = data, pos, end

    def varint(self) -> int:
        """An unsigned LEB128 integer, at most 9 bytes (the 9th has 8 value bits), as the JDK writes."""
        pos = self.pos
        if pos < self.end:  # most are one or two bytes: no loop for those (the reader's hot path)
            first = self.data[pos]
            if first < 0x80:
                self.pos = pos + 1
                return first
            if pos + 1 < self.end:
                second = self.data[pos + 1]
                if second < 0x80:
                    self.pos = pos + 2
                    return (first & 0x7F) | (second << 7)
        return self._long_varint()

    def _long_varint(self) -> int:
        data, pos = self.data, self.pos
        result = shift = 0
        for i in range(9):
            if pos >= self.end:
                raise JfrFormatError(f"integer runs past the end at byte {pos}")
            byte = data[pos]
            pos += 1
            if i == 8:
                result |= byte << 56
                break
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        self.pos = pos
        return result

    def count(self) -> int:
        """A count of items that follow: each takes at least a byte, so more than the bytes left
        is a broken file (and would make a loop over them run for ages)."""
        value = self.varint()
        if value > self.end - self.pos:
            raise JfrFormatError(f"count {value} at byte {self.pos} exceeds the {self.end - self.pos} bytes left")
        return value

    def signed(self, bits: int) -> int:
        """A varint as a two's-complement integer of ``bits`` bits (int, long, short)."""
        value = self.varint() & ((1 << bits) - 1)
        return value - (1 << bits) if value >> (bits - 1) else value

    def byte(self) -> int:
        if self.pos >= self.end:
            raise JfrFormatError(f"byte past the end at {self.pos}")
        value = self.data[self.pos]
        self.pos += 1
        return value

    def raw(self, n: int) -> bytes:
        if self.pos + n > self.end or n < 0:
            raise JfrFormatError(f"{n} bytes past the end at {self.pos}")
        value = self.data[self.pos:self.pos + n]
        self.pos += n
        return value

    def string(self, string_type: int) -> str | Ref | None:
        """An encoded string: null, empty, a pool reference, UTF-8, chars or Latin-1."""
        tag = self.byte()
        if tag == 0:
            return None
        if tag == 1:
            return ""
        if tag == 2:
            return Ref(string_type, self.varint())
        if tag == 3:
            return self.raw(self.varint()).decode("utf-8", "replace")
        if tag == 4:
            return "".join(chr(self.varint() & 0xFFFF) for _ in range(self.count()))
        if tag == 5:
            return self.raw(self.varint()).decode("latin-1")
        raise JfrFormatError(f"unknown string encoding {tag} at byte {self.pos - 1}")


def read_metadata(data: bytes, start: int, end: int) -> dict[int, TypeInfo]:
    """The types of a chunk from its metadata event at ``start`` (types by id)."""
    cur = Cursor(data, start, end)
    size = cur.varint()
    cur.end = min(end, start + size)
    if cur.varint() != METADATA_EVENT:
        raise JfrFormatError(f"no metadata event at byte {start}")
    for _ in range(3):  # start time, duration, metadata id
        cur.varint()
    body = bytes(data[cur.pos:cur.end])
    with _CACHE_LOCK:  # probes may finish in several threads
        cached = _METADATA_CACHE.get(body)
    if cached is not None:  # the same bytes describe the same types (types are not changed after)
        return cached
    types = _read_types(cur)
    with _CACHE_LOCK:
        if len(_METADATA_CACHE) >= _METADATA_CACHE_SIZE:
            _METADATA_CACHE.pop(next(iter(_METADATA_CACHE)))
        _METADATA_CACHE[body] = types
    return types


def _read_types(cur: Cursor) -> dict[int, TypeInfo]:
    """The string table and the element tree of a metadata event, as types by id."""
    strings = [cur.string(-1) for _ in range(cur.count())]
    if any(not isinstance(s, str | None) for s in strings):
        raise JfrFormatError("metadata strings reference a constant pool")
    root = _element(cur, strings, 0)
    classes = [e for e in _walk(root) if e[0] == "class"]
    by_name = {attrs.get("name"): int(attrs.get("id", -1)) for _, attrs, _ in classes}
    units = {by_name.get("jdk.jfr.Timespan"): "span", by_name.get("jdk.jfr.Timestamp"): "stamp"}
    types: dict[int, TypeInfo] = {}
    for _, attrs, children in classes:
        info = TypeInfo(int(attrs["id"]), attrs["name"], attrs.get("superType"), attrs.get("simpleType") == "true")
        for name, fattrs, fchildren in children:
            if name == "field":
                info.fields.append(FieldType(fattrs["name"], int(fattrs["class"]), fattrs.get("dimension") == "1",
                                             fattrs.get("constantPool") == "true", _unit(fchildren, units)))
        types[info.id] = info
    return types


Element = tuple[str, dict[str, str], list[Any]]


def _element(cur: Cursor, strings: list[Any], depth: int) -> Element:
    if depth > 64:
        raise JfrFormatError("metadata nested deeper than 64 levels")
    try:
        name = strings[cur.varint()]
        attrs = {strings[cur.varint()]: strings[cur.varint()] for _ in range(cur.count())}
    except (IndexError, TypeError):
        raise JfrFormatError("metadata refers to a string it does not hold") from None
    children = [_element(cur, strings, depth + 1) for _ in range(cur.count())]
    return name, attrs, children


def _walk(element: Element) -> Iterator[Element]:
    yield element
    for child in element[2]:
        yield from _walk(child)


def _unit(children: list[Element], units: dict[int | None, str]) -> str | None:
    """How a field's number reads as time, from its @Timespan/@Timestamp annotation."""
    for name, attrs, _ in children:
        kind = units.get(int(attrs.get("class", -1))) if name == "annotation" else None
        value = attrs.get("value")
        if kind == "span":
            return "span-ticks" if value == "TICKS" else (f"span-ns:{_SPAN_NS[value]}" if value in _SPAN_NS else None)
        if kind == "stamp":
            return "stamp-ticks" if value == "TICKS" else ("epoch-ms" if value == "MILLISECONDS_SINCE_EPOCH" else None)
    return None


def forget_metadata() -> None:
    """Empty the cache of metadata already read (benches time a cold read with it)."""
    with _CACHE_LOCK:
        _METADATA_CACHE.clear()
