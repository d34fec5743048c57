"""Parse ``-XX:+PrintFlagsFinal`` tables (JDK 8 and JDK 9+ layouts).

JDK 9+::

     size_t MaxHeapSize                              = 268435456                                 {product} {command line}

JDK 8 has no origin column and marks changed values with ``:=``::

        uintx MaxHeapSize                              := 268435456                           {product}

For JDK 8 the origin is therefore "changed" (":=") or "default" ("=").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE = re.compile(
    r"^\s*(?P<type>[A-Za-z_]\w*)\s+(?P<name>[A-Za-z_]\w*)\s+(?P<op>:?=)"
    r"(?P<value>.*?)\s*(?P<tags>(?:\{[^{}]*\}\s*)+)$"
)
_TAG = re.compile(r"\{([^{}]*)\}")

ORIGIN_DEFAULT = "default"
ORIGIN_CHANGED_JDK8 = "changed"  # JDK 8 only says a value is not the default, not why


@dataclass(frozen=True)
class FlagRow:
    """One row of the table; ``kind`` is e.g. "product", "diagnostic", "C2 product"."""

    type: str
    name: str
    value: str
    kind: str
    origin: str


def parse_flags_final(text: str) -> dict[str, FlagRow]:
    """Rows by flag name; lines that are not table rows (banner, headers) are ignored."""
    rows: dict[str, FlagRow] = {}
    for line in text.splitlines():
        row = parse_row(line)
        if row is not None:
            rows[row.name] = row
    return rows


def parse_row(line: str) -> FlagRow | None:
    match = _LINE.match(line.rstrip())
    if match is None:
        return None
    tags = _TAG.findall(match.group("tags"))
    if len(tags) >= 2:  # JDK 9+: {kind} {origin}
        kind, origin = tags[0].strip(), tags[-1].strip()
    else:  # JDK 8: {kind} only
        kind = tags[0].strip()
        origin = ORIGIN_CHANGED_JDK8 if match.group("op") == ":=" else ORIGIN_DEFAULT
    return FlagRow(match.group("type"), match.group("name"), match.group("value").strip(), kind, origin)
