"""Open GC log files (plain, .gz, .zip) and read them as text in big chunks.

Parsers work on chunks of whole lines (a few MB each) so that the per-line work can be
done by compiled regexes in C, which is where the speed comes from; memory stays bounded
by the chunk size whatever the file size. Bytes that are not UTF-8 are replaced, never fatal.
"""

from __future__ import annotations

import gzip
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, cast

from jvmlab.errors import UserError

CHUNK_BYTES = 4 << 20
HEAD_BYTES = 64 << 10


def _open_binary(path: Path) -> Iterator[BinaryIO]:
    """Yield the binary streams inside one file (a zip may hold several members)."""
    try:
        if path.name.endswith(".gz"):
            # GzipFile/ZipExtFile are binary streams though typeshed does not call them BinaryIO
            yield cast(BinaryIO, gzip.open(path, "rb"))  # noqa: SIM115 - closed by the caller
        elif path.name.endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                members = sorted(i.filename for i in archive.infolist()
                                 if not i.is_dir() and not i.filename.startswith("__MACOSX/"))
                for name in members:
                    with archive.open(name) as member:
                        yield cast(BinaryIO, member)
        else:
            yield open(path, "rb")  # noqa: SIM115 - closed by the caller
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        raise UserError(f"cannot read {path}: {exc}; check the path and that the file is "
                        f"a complete plain, .gz or .zip log") from exc


Keep = Callable[[bytes, int], bytes]  # (block, length) -> the lines of block[:length] to read


def iter_chunks(path: Path, chunk_bytes: int = CHUNK_BYTES, keep: Keep | None = None) -> Iterator[str]:
    """Yield the text of ``path`` in pieces that each end at a line boundary.

    Line endings are normalised to ``\\n``. Streams of a multi-member zip are read in
    name order, as one text. ``keep`` (the compiled pre-filter) drops lines from each raw
    block before it is decoded; the blocks stay the same, only shorter. It is given the
    whole buffer and the length to read, which saves copying megabytes per block.
    """
    for stream in _open_binary(path):
        with stream:
            yield from _chunks_of(stream, chunk_bytes, keep or _all)


def _all(block: bytes, length: int) -> bytes:
    return block if length == len(block) else block[:length]


def _chunks_of(stream: BinaryIO, chunk_bytes: int, keep: Keep) -> Iterator[str]:
    tail = b""
    while True:
        try:
            block = stream.read(chunk_bytes)
        except (OSError, EOFError, zipfile.BadZipFile):
            # A truncated .gz still yields what was readable; say nothing fatal.
            if tail:
                yield _decode(keep(tail, len(tail)))
            return
        if not block:
            break
        if tail:
            block = tail + block
        cut = block.rfind(b"\n")
        if cut < 0:
            tail = block
            continue
        tail = block[cut + 1:]
        yield _decode(keep(block, cut + 1))
    if tail:
        yield _decode(keep(tail, len(tail))) + "\n"


def _decode(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_head(path: Path, limit: int = HEAD_BYTES) -> str:
    """The first ``limit`` bytes of the (decompressed) text, for format detection."""
    for stream in _open_binary(path):
        with stream:
            try:
                return _decode(stream.read(limit))
            except (OSError, EOFError, zipfile.BadZipFile) as exc:
                raise UserError(f"cannot read {path}: {exc}; is the archive complete?") from exc
    return ""


def iter_lines(path: Path) -> Iterator[str]:
    """Lines without their newline, for the line-oriented (legacy, XML) parsers."""
    for chunk in iter_chunks(path):
        lines = chunk.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        yield from lines


