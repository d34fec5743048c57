"""One doctor finding: the record the POSIX, Windows and WSL checks all return.

Apart from ``doctor.py`` so that ``windows.py`` and ``wsl.py`` can build findings while
``doctor`` calls them, without a loop between the modules.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Verdict = Literal["ok", "warn", "info"]


@dataclass(frozen=True)
class Check:
    """One finding; ``data`` holds the raw numbers (bytes, counts) for JSON readers."""

    name: str
    value: str
    verdict: Verdict
    hint: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
