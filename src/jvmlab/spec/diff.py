"""What changed between two spec texts, in a few words: ``[run] invocations: 10 -> 20``.

`--resume` that finds no experiment of the spec it is given says this of the experiment it
would have continued (execute/experiment.py), rather than only that none matched."""

from __future__ import annotations

import json
import tomllib
from typing import Any

MAX_SAID = 4  # the first changes; the rest counted


def _flat(table: Any, prefix: str = "") -> dict[str, Any]:
    """Dotted keys of a TOML document's leaves (a list or an inline value is one leaf)."""
    out: dict[str, Any] = {}
    if isinstance(table, dict):
        for key, value in table.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, dict) and value:
                out.update(_flat(value, name))
            else:
                out[name] = value
    return out


def _where(key: str) -> str:
    """``run.invocations`` -> ``[run] invocations``; a top-level key stays as it is."""
    table, _, leaf = key.rpartition(".")
    return f"[{table}] {leaf}" if table else leaf


def _text(value: Any) -> str:
    said = json.dumps(value, ensure_ascii=False, default=str)
    return said if len(said) <= 60 else said[:57] + "..."


def spec_changes(old: str, new: str) -> list[str]:
    """The differences from ``old`` to ``new``, one phrase each (at most MAX_SAID, then how many
    more); ["the spec is not TOML"] when either cannot be read."""
    try:
        before, after = _flat(tomllib.loads(old)), _flat(tomllib.loads(new))
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return ["the spec text differs (not readable as TOML)"]
    said = []
    for key in [*before, *(k for k in after if k not in before)]:
        if key not in after:
            said.append(f"{_where(key)} removed (was {_text(before[key])})")
        elif key not in before:
            said.append(f"{_where(key)} added ({_text(after[key])})")
        elif before[key] != after[key]:
            said.append(f"{_where(key)}: {_text(before[key])} -> {_text(after[key])}")
    if not said:
        return ["only comments or layout differ"]
    more = len(said) - MAX_SAID
    return said[:MAX_SAID] + ([f"{more} more"] if more > 0 else [])
