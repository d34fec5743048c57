"""``run``'s ``-L`` and ``-P``, each repeatable as hyperfine's (every combination).

click keeps only an option's last value, and typer has no list of tuples: a second ``-L``
silently replaced the first, whose ``{NAME}`` then ran literally. The command class takes them
out of the arguments before click parses the rest; the command reads them with :func:`scans`.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperCommand

from jvmlab.errors import UserError

ARITY = {"-L": 2, "--parameter-list": 2, "-P": 3, "--parameter-scan": 3}
_KEY = "jvmlab.scans"


class ScanCommand(TyperCommand):
    """A command whose ``-L NAME VALUES`` and ``-P NAME MIN MAX`` may repeat."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        rest: list[str] = []
        found: list[tuple[str, tuple[str, ...]]] = []
        i = 0
        while i < len(args):
            arity = ARITY.get(args[i])
            if args[i] == "--":
                rest += args[i:]
                break
            if arity is not None and i + arity < len(args):
                found.append((args[i], tuple(args[i + 1:i + 1 + arity])))
                i += arity + 1
                continue
            rest.append(args[i])  # a short -L/-P: click says what is missing
            i += 1
        ctx.meta[_KEY] = found
        return super().parse_args(ctx, rest)


def scans(ctx: typer.Context) -> tuple[list[tuple[str, str]], list[tuple[str, int, int]]]:
    """The ``-L`` (NAME, VALUES) and ``-P`` (NAME, MIN, MAX) given, in order."""
    lists: list[tuple[str, str]] = []
    ranges: list[tuple[str, int, int]] = []
    for option, values in ctx.meta.get(_KEY, []):
        if ARITY[option] == 2:
            lists.append((values[0], values[1]))
            continue
        try:
            ranges.append((values[0], int(values[1]), int(values[2])))
        except ValueError:
            raise UserError(f"{option} {' '.join(values)}: MIN and MAX are whole numbers") from None
    return lists, ranges
