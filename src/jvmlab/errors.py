"""The one error boundary's vocabulary.

Expected failures raise :class:`UserError`; ``jvmlab.cli.main`` turns it into one line on
stderr and exit code 2. Anything else is a bug and shows a traceback only with ``--debug``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")

EXIT_USAGE = 2
EXIT_NO_SUCCESS = 4  # `run`: a cell had no successful invocation (as hyperfine exits non-zero); -i keeps 0
EXIT_SIGINT = 130


class UserError(Exception):
    """Bad input or an unusable environment. The message says what to do next."""

    exit_code = EXIT_USAGE


class StoreError(UserError):
    """The store failed while in use (a database stopped mid-run): one line saying what and
    where; ``detail`` (the driver's whole text: SQL, parameters) is shown only with --debug."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


class StoreLost(StoreError):
    """The store's file was deleted or replaced under a running command: nothing to resume in it."""


class Interrupted(Exception):
    """The user (or the system) asked jvmlab to stop; measured data is already stored."""

    def __init__(self, signum: int, message: str) -> None:
        super().__init__(message)
        self.signum = signum


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """Return ' (did you mean X?)' for the closest choice, or '' when nothing is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# scheme://USER:PASSWORD@ in a URL (a store, --optuna-storage, a cluster address): the password
# is everything from the first ':' after the user to the last '@' before the host.
_PASSWORD = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s'\"]*):[^\s'\"]*@")
PASSWORD_NOTE = ("the password is not shown: put it back in the URL, or let the driver read it from "
                 "PGPASSWORD or ~/.pgpass")


def hide_passwords(text: str) -> str:
    """Every ``scheme://USER:PASSWORD@`` in ``text`` as ``scheme://USER:***@``: no message,
    error or printed command of jvmlab shows a password."""
    return _PASSWORD.sub(lambda m: f"{m.group('head')}:***@", text)


def resume_line(command: str) -> str:
    """A command that continues a run, as printed: each URL's password left out, saying so
    (``scheme://USER@``: the driver then reads it from PGPASSWORD or ~/.pgpass)."""
    stripped = _PASSWORD.sub(lambda m: f"{m.group('head')}@", command)
    return f"{stripped} ({PASSWORD_NOTE})" if stripped != command else stripped


def parse_option(option: str, text: str, parse: Callable[[str], T]) -> T:
    """``parse(text)``; its ValueError said as a UserError naming the option (``--budget: ...``)."""
    try:
        return parse(text)
    except ValueError as err:
        raise UserError(f"{option}: {err}") from None
