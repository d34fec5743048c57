"""Reading a file a user named, bounded: a regular file only, and at most so many bytes.

A FIFO named as a spec, a store or an import blocked forever; ``/dev/zero`` ran until
MemoryError. Every file jvmlab reads because a user named it is opened here without
blocking (``O_NONBLOCK``: opening a FIFO for reading then returns at once), checked to be a
regular file on the descriptor itself (no race with a rename), and read up to a limit.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from jvmlab.errors import UserError

MAX_SPEC_BYTES = 1 << 20  # a spec (TOML) is a few kB; a megabyte is not a spec
MAX_JSON_BYTES = 64 << 20  # an import (hyperfine, JMH JSON): a million runs fit in far less


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a plain file"


def not_regular(path: Path | str, what: str, mode: int) -> UserError:
    """The one line for a path that exists but is not a regular file."""
    return UserError(f"{what} {path}: not a regular file ({_kind(mode)}); give a file")


def check_regular(path: Path | str, what: str) -> None:
    """Refuse a path that exists and is not a regular file (a FIFO, a device, a folder);
    a missing path is left to the caller (``no such file`` said its own way)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise not_regular(path, what, mode)


def open_regular(path: Path | str, what: str) -> int:
    """A descriptor of ``path`` opened for reading, never blocking on a FIFO; a path that is not
    a regular file is refused in one line. The caller closes it (``os.fdopen``)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UserError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{what} {path}: not a regular file (a folder); give a file") from None
    except OSError as err:
        raise UserError(f"{what} {path}: cannot read: {err.strerror or err}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise not_regular(path, what, mode)
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return fd


def read_bounded(path: Path | str, what: str, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; anything else one line."""
    fd = open_regular(path, what)
    with os.fdopen(fd, "rb") as file:
        try:
            data = file.read(max_bytes + 1)
        except OSError as err:
            raise UserError(f"{what} {path}: cannot read: {err.strerror or err}") from None
    if len(data) > max_bytes:
        raise UserError(f"{what} {path}: larger than {_size(max_bytes)}, more than any {what} needs; "
                        f"is it the right file?")
    return data


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def json_refusal(err: Exception) -> str:
    """Why ``json.loads`` (or ``tomllib``) gave up other than on syntax, as a phrase: arrays nested past the
    recursion limit, or an integer of more digits than Python converts (4300)."""
    if isinstance(err, RecursionError):
        return "nested too deep (past the recursion limit)"
    text = str(err)
    if "digits" in text:  # "Exceeds the limit (4300 digits) for integer string conversion ..."
        return "an integer of more than 4300 digits"
    return text.splitlines()[0] if text else type(err).__name__
