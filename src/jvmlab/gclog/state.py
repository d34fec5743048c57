"""What every format's parser keeps besides its own state: the collector it saw, and the
lines it did not understand (counted, a few kept as samples, never fatal)."""

from __future__ import annotations

SAMPLE_LIMIT = 5
SAMPLE_CHARS = 200


class ParserState:
    """Base of the format parsers (unified, JDK 6-8, OpenJ9)."""

    def __init__(self) -> None:
        self.unparsed = 0
        self.samples: list[str] = []
        self.collector: str | None = None
        self.generational = False

    def not_understood(self, line: str, count: int = 1) -> None:
        """Count a line (or several) that could not be read, keeping a few as samples."""
        self.unparsed += count
        if line and len(self.samples) < SAMPLE_LIMIT:
            self.samples.append(line[:SAMPLE_CHARS])
