"""The most telling line of a failed process's output: what a failure's reason quotes.

A Java program that fails prints its own message and then a stack trace; the last line is
usually a stack frame (``at x.y(Z.java:1)``), which says where, not why. The reason is the
first line the program marked as an error (``ERROR: ...``, ``Error: ...``, ``FATAL ...``), else the
root cause (the last ``Caused by:``), else the exception line (``...Exception: msg``, ``Exception in
thread ...``), else a line the JVM uses for its own failures (``Could not``, ``Unrecognized``,
``Invalid``, ``fatal error``, ``SIGSEGV``), else the last line that is not a stack frame. stderr is
searched before stdout at each rank.
"""

from __future__ import annotations

import re

MAX_REASON_CHARS = 300

_FRAME = re.compile(r"^\s*(at\s+\S+\(.*\)|\.\.\.\s+\d+\s+(more|common frames omitted))\s*$")
_RANKS = (
    re.compile(r"^\s*(\[[^\]]*\]\s*)*(ERROR|Error|FATAL|Fatal)\b\s*[:\s]"),
    re.compile(r"^\s*Caused by:"),
    re.compile(r"Exception in thread|^\s*[\w$.]+(Exception|Error|Throwable)(:\s|$)"),
    re.compile(r"OutOfMemoryError|Error occurred|Could not|Unrecognized|Invalid|fatal error|SIGSEGV"),
)
_LAST_WINS = 1  # the rank whose last match is the one to quote: the root cause


def failure_reason(stderr_tail: str, stdout_tail: str = "") -> str | None:
    """The line to quote after ``exit code N:`` (stripped, at most 300 characters), or None."""
    texts = [[line.strip() for line in t.splitlines() if line.strip()] for t in (stderr_tail, stdout_tail)]
    for rank, pattern in enumerate(_RANKS):
        for lines in texts:
            hits = [line for line in lines if pattern.search(line) and not _FRAME.match(line)]
            if hits:
                return (hits[-1] if rank == _LAST_WINS else hits[0])[:MAX_REASON_CHARS]
    for lines in texts:
        plain = [line for line in lines if not _FRAME.match(line)]
        if plain:
            return plain[-1][:MAX_REASON_CHARS]
    last = texts[0] or texts[1]
    return last[-1][:MAX_REASON_CHARS] if last else None
