"""The one error boundary's vocabulary.

Expected failures raise :class:`UserError`; ``jvmlab.cli.main`` turns it into one line on
stderr and exit code 2. Anything else is a bug and shows a traceback only with ``--debug``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

EXIT_USAGE = 2
EXIT_NO_SUCCESS = 4  # `run`: a cell had no successful invocation (as hyperfine exits non-zero); -i keeps 0
EXIT_SIGINT = 130
EXIT_SIGTERM = 143


class UserError(Exception):
    """Bad input or an unusable environment. The message says what to do next."""

    exit_code = EXIT_USAGE


class StoreError(UserError):
    """The store failed while in use (a database stopped mid-run): one line saying what and
    where; ``detail`` (the driver's whole text: SQL, parameters) is shown only with --debug."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


class Interrupted(Exception):
    """The user (or the system) asked jvmlab to stop; measured data is already stored."""

    def __init__(self, signum: int, message: str) -> None:
        super().__init__(message)
        self.signum = signum


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """Return ' (did you mean X?)' for the closest choice, or '' when nothing is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
