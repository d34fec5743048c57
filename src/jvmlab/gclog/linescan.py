"""The compiled line pre-filter for unified logs (``linescan.c``), with the pure-Python
path as the fallback.

Why: in a detailed unified log (``-Xlog:gc*``) about 95% of the lines are per-phase
details no figure needs; the parser's compiled regexes still have to walk them, which
was two thirds of its time. A few dozen lines of C drop those lines from each raw block
at over 1 GB/s before the bytes are decoded, and the unchanged Python parser reads the
rest. The filter keeps a superset of what the parser reads and the block boundaries stay
the same, so the summaries are identical (tested on the whole shared corpus). One
theoretical difference: the parser looks for a restarted JVM's header lines in the 256K
characters before its ``GC(0)``; in filtered text that window spans more of the original
lines, so a header printed further back (after over 256 KB of GC-id detail lines) would be
read by the compiled path only.

Built once with the system C compiler into the cache (keyed by the source's hash), loaded
with ctypes. Without a compiler, or with ``JVMLAB_GCLOG_NATIVE=0``, :func:`prefilter`
returns None and every line goes to the Python parser.
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading
from collections.abc import Callable
from pathlib import Path

from jvmlab.native import build

SOURCE = Path(__file__).with_name("linescan.c")
ENV_SWITCH = "JVMLAB_GCLOG_NATIVE"

Filter = Callable[[bytes, int], bytes]  # (block, length) -> the kept lines of block[:length]


@functools.cache
def _library_path() -> Path | None:
    """The built shared library (built on first use); None without a working C compiler."""
    return build(SOURCE, "gclog", "linescan.so", [["-shared", "-fPIC"]])


@functools.cache
def _native() -> Filter | None:
    path = _library_path()
    if path is None:
        return None
    try:
        fn = ctypes.CDLL(str(path)).jvmlab_gclog_filter
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_long
    fn.argtypes = [ctypes.c_char_p, ctypes.c_long, ctypes.c_char_p]

    local = threading.local()  # one output buffer per thread: ctypes releases the GIL in the call

    def keep_lines(block: bytes, length: int) -> bytes:
        if block.find(b"\r", 0, length) >= 0:
            return block[:length]  # bare CR line ends are not lines to the C scanner: keep all
        out = getattr(local, "out", None)
        if out is None or len(out) < length:
            out = local.out = ctypes.create_string_buffer(length)  # reused: no zeroing megabytes per block
        return ctypes.string_at(out, fn(block, length, out))

    return keep_lines


def prefilter() -> Filter | None:
    """The compiled filter, or None for the pure-Python path (no compiler, or switched off
    with ``JVMLAB_GCLOG_NATIVE=0``)."""
    if os.environ.get(ENV_SWITCH, "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    return _native()
