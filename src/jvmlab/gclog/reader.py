"""Open GC log files (plain, .gz, .zip) and read them as text in big chunks.

Parsers work on chunks of whole lines (a few MB each) so that the per-line work can be
done by compiled regexes in C, which is where the speed comes from; memory stays bounded
by the chunk size whatever the file size. Bytes that are not UTF-8 are replaced, never fatal.
"""

from __future__ import annotations

import gzip
import io
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, cast

from jvmlab.errors import UserError
from jvmlab.files import check_regular

CHUNK_BYTES = 4 << 20
HEAD_BYTES = 64 << 10


def _open_binary(path: Path) -> Iterator[BinaryIO]:
    """Yield the binary streams inside one file (a zip may hold several members)."""
    check_regular(path, "GC log")  # a FIFO would block, /dev/zero never end
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
    dropping = 0  # bytes of an over-long line left out so far (0: not in one)
    while True:
        block, exc = _read(stream, chunk_bytes)
        if exc is not None:
            # A truncated .gz still yields what was readable, and says where it ended: a line
            # that no parser understands, counted and quoted as such.
            text = "".join(_chunks_of(io.BytesIO((tail if not dropping else b"") + block), chunk_bytes, keep))
            yield text + (_decode(_long_line(dropping)) + "\n" if dropping else "") + _ended_early(exc)
            return
        if not block:
            break
        if dropping:
            nl = block.find(b"\n")
            if nl < 0:
                dropping += len(block)
                continue
            block, dropping = _long_line(dropping + nl) + block[nl:], 0
        if tail:
            block = tail + block
        cut = block.rfind(b"\n")
        if cut < 0:
            if len(block) > MAX_LINE_BYTES:  # no line is this long: leave it out, up to its newline
                tail, dropping = b"", len(block)
            else:
                tail = block
            continue
        tail = block[cut + 1:]
        if len(tail) > MAX_LINE_BYTES:
            tail, dropping = b"", len(tail)
        kept = _capped(block, cut + 1)
        yield _decode(keep(block, cut + 1) if kept is None else keep(kept, len(kept)))
    if dropping:
        yield _decode(_long_line(dropping)) + "\n"
    elif tail:
        tail = _capped(tail) or tail
        yield _decode(keep(tail, len(tail))) + "\n"


def _read(stream: BinaryIO, size: int) -> tuple[bytes, BaseException | None]:
    """Up to ``size`` bytes, in pieces, so that a truncated archive gives what came before its
    end (one read of the whole size would lose it) and the error."""
    pieces: list[bytes] = []
    got = 0
    step = size if isinstance(stream, io.BufferedReader) else PIECE_BYTES  # a plain file: one read
    while got < size:
        try:
            piece = stream.read(min(step, size - got))
        except (OSError, EOFError, zipfile.BadZipFile) as exc:
            return b"".join(pieces), exc
        if not piece:
            break
        pieces.append(piece)
        got += len(piece)
    return (pieces[0] if len(pieces) == 1 else b"".join(pieces)), None


PIECE_BYTES = 64 << 10  # what a truncated archive may lose at its end
MAX_LINE_BYTES = 1 << 20  # a GC log line is under a few kB; a longer one is left out and counted
LONG_LINE = "jvmlab: a line of {n} bytes left out (longer than {cap} MiB: not a GC log line)"


def _long_line(n: int) -> bytes:
    """What stands for a line left out: one line that no parser understands, so it is counted
    (and quoted) with the lines not understood."""
    return LONG_LINE.format(n=n, cap=MAX_LINE_BYTES >> 20).encode()


def _capped(block: bytes, length: int | None = None) -> bytes | None:
    """``block[:length]`` with every line longer than MAX_LINE_BYTES replaced by
    :func:`_long_line`; None when no line is (the common case, found in a few finds per MB)."""
    length = len(block) if length is None else length
    pos, found = 0, []
    while length - pos > MAX_LINE_BYTES:
        nl = block.rfind(b"\n", pos, pos + MAX_LINE_BYTES + 1)
        if nl >= 0:
            pos = nl + 1
            continue
        end = block.find(b"\n", pos, length)
        end = length if end < 0 else end
        found.append((pos, end))
        pos = end + 1
    if not found:
        return None
    out, at = [], 0
    for start, end in found:
        out += [block[at:start], _long_line(end - start)]
        at = end
    out.append(block[at:length])
    return b"".join(out)


def _ended_early(exc: BaseException) -> str:
    return f"jvmlab: the file ends early ({exc}): a truncated archive; what came before is read\n"


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


def lines_of(chunks: Iterable[str]) -> Iterator[str]:
    """The lines of whole-line chunks (:func:`iter_chunks`), each without its newline."""
    for chunk in chunks:
        lines = chunk.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        yield from lines


