"""Tables that fit the terminal without losing a column or a cell name.

A rich table wider than the console is cut: no-wrap columns push the rest out of sight
and a wrapping column (the cell name) can shrink to nothing. Here the columns after the
key column (the cell name, repeated in each part) are packed into as many stacked tables
as the width needs; every part after the first says it continues the first. Nothing is
dropped, in a pipe (80 columns) as in a wide terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.console import JustifyMethod
from rich.table import Table

CELL_OVERHEAD = 3  # one space of padding each side and one border per column
TABLE_OVERHEAD = 1  # the closing border
MIN_KEY_WIDTH = 12


@dataclass(frozen=True)
class Column:
    """One column: its header and its rendered values, one per row."""

    header: str
    values: list[str] = field(default_factory=list)
    justify: JustifyMethod = "right"

    @property
    def width(self) -> int:
        return max([len(self.header)] + [len(v) for v in self.values])


def pack(widths: Sequence[int], available: int) -> list[list[int]]:
    """Indexes of columns grouped in order so each group's widths (plus overhead) fit
    ``available``; a column too wide on its own gets a group of its own."""
    groups: list[list[int]] = []
    current: list[int] = []
    used = 0
    for k, w in enumerate(widths):
        need = w + CELL_OVERHEAD
        if current and used + need > available:
            groups.append(current)
            current, used = [], 0
        current.append(k)
        used += need
    if current:
        groups.append(current)
    return groups


def fitted_tables(key: Column, columns: Sequence[Column], width: int, title: str | None = None,
                  key_cap: int = 28) -> list[Table]:
    """The key column plus ``columns``, split into stacked tables that fit ``width``."""
    key_width = min(key.width, max(MIN_KEY_WIDTH, key_cap))
    available = width - TABLE_OVERHEAD - (key_width + CELL_OVERHEAD)
    groups = pack([c.width for c in columns], available) or [[]]
    tables = []
    for part, group in enumerate(groups):
        used = sum(columns[k].width + CELL_OVERHEAD for k in group)
        room = width - TABLE_OVERHEAD - used - CELL_OVERHEAD
        shown_title = title
        if len(groups) > 1:
            label = f"part {part + 1} of {len(groups)}" + ("" if part == 0 else ", continued")
            shown_title = f"{title} ({label})" if title else label.capitalize()
        table = Table(title=shown_title, header_style="bold")
        table.add_column(key.header, overflow="fold", min_width=min(key.width, max(MIN_KEY_WIDTH, min(room, key_cap))),
                         max_width=max(MIN_KEY_WIDTH, room))
        for k in group:
            col = columns[k]
            fits = col.width <= available
            table.add_column(col.header, justify=col.justify, no_wrap=fits, overflow="fold")
        for row, name in enumerate(key.values):
            table.add_row(name, *[columns[k].values[row] for k in group])
        tables.append(table)
    return tables
