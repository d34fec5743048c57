"""The pieces of the JFR binary format, on bytes written by hand."""

from __future__ import annotations

import struct

import pytest

from jvmlab.collect.jfr_binary import Cursor, JfrFormatError, Ref, chunk_spans, parse_header


def cursor(raw: bytes) -> Cursor:
    return Cursor(raw, 0, len(raw))


@pytest.mark.parametrize("raw,value", [(b"\x00", 0), (b"\x7f", 127), (b"\x80\x01", 128), (b"\xe5\x8e\x26", 624485),
                                       (b"\x85\x80\x80\x00", 5),  # padded to a fixed width, as the JDK pads sizes
                                       (b"\xff" * 8 + b"\xff", (1 << 64) - 1)])  # 9th byte: all 8 bits
def test_compressed_integers(raw: bytes, value: int) -> None:
    cur = cursor(raw)
    assert cur.varint() == value and cur.pos == len(raw)


def test_signed_views_of_compressed_integers() -> None:
    minus_one = b"\xff" * 8 + b"\xff"
    assert cursor(minus_one).signed(64) == -1
    assert cursor(b"\xff\xff\xff\xff\x0f").signed(32) == -1  # an int masked to 32 bits
    assert cursor(b"\xfe\xff\x03").signed(16) == -2
    assert cursor(b"\x05").signed(32) == 5


def test_strings_in_every_encoding() -> None:
    raw = (b"\x00" + b"\x01" + b"\x02\x2a" + b"\x03\x04" + "é€".encode()[:4]
           + b"\x04\x02\x68\xe9\x01" + b"\x05\x02\x68\xe9")
    cur = cursor(raw)
    assert cur.string(7) is None
    assert cur.string(7) == ""
    assert cur.string(7) == Ref(7, 42)
    assert cur.string(7) == "é\ufffd"  # 4 bytes of UTF-8: é and a cut €
    assert cur.string(7) == "hé"  # chars as compressed integers
    assert cur.string(7) == "hé"  # Latin-1
    with pytest.raises(JfrFormatError, match="string encoding 9"):
        cursor(b"\x09").string(7)


def test_reading_past_the_end_is_a_format_error() -> None:
    with pytest.raises(JfrFormatError):
        cursor(b"\x80\x80").varint()
    with pytest.raises(JfrFormatError):
        cursor(b"\x03\x10ab").string(1)
    with pytest.raises(JfrFormatError, match="exceeds"):
        cursor(b"\x7f\x00").count()


def header(major: int = 2, size: int = 100, cp: int = 80, meta: int = 90, flags: int = 1) -> bytes:
    raw = struct.pack(">4sHHqqqqqqqI", b"FLR\0", major, 0, size, cp, meta, 1, 2, 3, 1_000_000_000, flags)
    return raw + b"\0" * (size - len(raw))


def test_chunk_headers() -> None:
    parsed = parse_header(header(), 0)
    assert (parsed.size_bytes, parsed.constant_pool_offset, parsed.metadata_offset, parsed.ticks_per_s) == (
        100, 80, 90, 1_000_000_000)
    assert list(chunk_spans(header() + header(size=120))) == [(0, 100), (100, 220)]
    with pytest.raises(JfrFormatError, match=r"version 1\.0"):
        parse_header(header(major=1), 0)
    with pytest.raises(JfrFormatError, match="unfinished or cut"):
        parse_header(header(cp=0), 0)  # a chunk still being written has no pool offset yet
    with pytest.raises(JfrFormatError, match="compressed"):
        parse_header(header(flags=0), 0)
    with pytest.raises(JfrFormatError, match="not a Flight Recording"):
        parse_header(b"PK\3\4" + header()[4:], 0)
    with pytest.raises(JfrFormatError, match="claims"):
        list(chunk_spans(header()[:90]))


def test_a_fallback_is_a_warning_naming_the_chunk_and_why() -> None:
    from pathlib import Path

    from jvmlab.collect.jfr import fallback_warnings
    from jvmlab.model import hazards

    assert fallback_warnings(Path("/a/recording.jfr"), []) == []
    (warning,) = fallback_warnings(Path("/a/recording.jfr"), ["chunk at byte 9: format version 3.0"])
    assert warning.kind == hazards.JFR_READER_FALLBACK == "jfr-reader-fallback"
    assert "1 chunk(s) of recording.jfr" in warning.detail and "format version 3.0" in warning.detail
