"""The stdout console of every command: a closed pipe is the reader's choice, not an error.

rich's own reaction to a closed pipe is ``SystemExit(1)``, which tells ``set -o pipefail``
scripts that the report failed; here it becomes a BrokenPipeError that ``main`` ends
quietly with 141 (128 + SIGPIPE), as ``yes | head -1`` does.
"""

from __future__ import annotations

from rich.console import Console


class PipeConsole(Console):
    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def stdout_console() -> Console:
    return PipeConsole()
