"""Reading a recording's events: our own reader per chunk, the JDK's ``jfr print`` for a chunk
it cannot read.

Why per chunk: a chunk is self-contained (its own metadata and constant pools), so a chunk
our reader does not understand (a future format version, a new encoding, a cut file) can be
written to a file of its own and read by the cell JDK's ``jfr`` tool, while the other
chunks are read in Python. Every chunk read the slow way is named in
:attr:`RecordingEvents.fallbacks`, which the collector turns into a warning.
"""

from __future__ import annotations

import struct
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jvmlab.collect.jfr_binary import JfrFormatError, chunk_spans
from jvmlab.collect.jfr_chunk import ChunkReader
from jvmlab.collect.jfr_parse import EVENTS, events_by_type, print_json

ByType = dict[str, list[dict[str, Any]]]


@dataclass
class RecordingEvents:
    """The wanted events of a recording by type; which chunks needed ``jfr print`` and why."""

    by_type: ByType = field(default_factory=dict)
    chunks: int = 0
    fallbacks: list[str] = field(default_factory=list)

    def add(self, by_type: ByType) -> None:
        for name, values in by_type.items():
            self.by_type.setdefault(name, []).extend(values)


def read_recording(recording: Path, tool: Path | None,
                   chunk_reader: Callable[[bytes, int, int], ByType] | None = None) -> RecordingEvents:
    """The events of :data:`EVENTS` in ``recording``; ``tool`` (the JDK's ``jfr``) reads the
    chunks our reader cannot (ValueError when it is needed and missing or fails).
    ``chunk_reader`` replaces :func:`read_chunk` (tests use one that refuses a chunk)."""
    chunk_reader = chunk_reader or read_chunk
    data = recording.read_bytes()
    out = RecordingEvents()
    try:
        spans = list(chunk_spans(data))
    except JfrFormatError as err:
        out.fallbacks.append(f"the file: {err}")
        out.add(_with_tool(tool, recording, str(err)))
        out.chunks = 1
        return out
    for start, end in spans:
        out.chunks += 1
        try:
            out.add(chunk_reader(data, start, end))
        except JfrFormatError as err:
            out.fallbacks.append(f"chunk at byte {start}: {err}")
            out.add(_chunk_with_tool(tool, data[start:end], recording, str(err)))
    return out


def read_chunk(data: bytes, start: int, end: int) -> ByType:
    """The wanted events of one chunk, with our reader (raises JfrFormatError)."""
    by_type: ByType = {}
    try:
        events = ChunkReader(data, start, end).events(EVENTS)
    except (IndexError, KeyError, TypeError, ValueError, struct.error, RecursionError) as err:
        if isinstance(err, JfrFormatError):
            raise
        raise JfrFormatError(f"unreadable ({type(err).__name__}: {err})") from None
    for name, values in events:
        by_type.setdefault(name, []).append(values)
    return by_type


def read_with_tool(tool: Path, recording: Path) -> ByType:
    """The wanted events as the JDK's ``jfr print --json`` reads them (the reference)."""
    return events_by_type(print_json(tool, recording))


def _with_tool(tool: Path | None, recording: Path, why: str) -> ByType:
    if tool is None:
        raise ValueError(f"our reader cannot read it ({why}) and there is no jfr tool to fall back on")
    return read_with_tool(tool, recording)


def _chunk_with_tool(tool: Path | None, chunk: bytes, recording: Path, why: str) -> ByType:
    """One chunk written to a file of its own next to the recording and read by ``jfr print``."""
    with tempfile.TemporaryDirectory(prefix="jfr-chunk-", dir=recording.parent) as folder:
        path = Path(folder) / "chunk.jfr"
        path.write_bytes(chunk)
        return _with_tool(tool, path, why)
