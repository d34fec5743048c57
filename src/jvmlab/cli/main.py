"""The command-line entry point and the one error boundary.

Commands parse arguments, call one library function and render its result. Expected
failures (UserError) print one line and exit 2; interruptions exit 130/143 after saying how
to resume; anything else is a bug: one line, or a traceback with --debug.
"""

from __future__ import annotations

import errno
import os
import shlex
import signal
import sys
import time
from collections.abc import Sequence

import typer
from typer.core import TyperOption
from typer.exceptions import Abort, TyperException

# Importing the command modules attaches their commands to `app` and `gc_app` (cli/apps.py).
from jvmlab.cli import (  # noqa: F401
    cmd_cluster,
    cmd_commits,
    cmd_doctor,
    cmd_export,
    cmd_gc,
    cmd_gc_advise,
    cmd_history,
    cmd_import,
    cmd_jdks,
    cmd_minheap,
    cmd_results,
    cmd_rightsize,
    cmd_run,
    cmd_tune,
)
from jvmlab.cli.apps import app
from jvmlab.errors import EXIT_SIGINT, Interrupted, StoreError, StoreLost, UserError, hide_passwords, resume_line

RESUMABLE = ("run", "tune", "minheap", "rightsize")  # commands whose --resume continues a stopped experiment
_STARTED = [0.0]  # when main() began (time.monotonic()): it marks only its own command's experiments


def _plain_flags_in_help() -> None:
    """`--json <bool>` in --help reads as if a value were expected: a flag takes none, so
    typer's rich help shows no type for it (every flag, --help itself included)."""
    if getattr(TyperOption.display_type_rich, "_jvmlab", False):
        return
    shown = TyperOption.display_type_rich

    def display_type_rich(self: TyperOption, ctx: typer.Context) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    display_type_rich._jvmlab = True  # type: ignore[attr-defined]  # a marker attribute on a function
    # Patching a method; typer types its ctx as the vendored, private typer._click.Context,
    # of which the public typer.Context used here is a subclass.
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign, assignment]


def _closed_pipe_is_no_failure() -> None:
    """rich answers a closed pipe (``jvmlab run --help | head -1``) with ``SystemExit(1)``, an
    exit code that says the command failed; raised as the BrokenPipeError it is, it ends like
    any other closed pipe here (``_closed_pipe``: 141), the help text included."""
    from rich.console import Console

    if getattr(Console.on_broken_pipe, "_jvmlab", False):
        return

    def on_broken_pipe(self: Console) -> None:
        self.quiet = True  # nothing more to write to a reader that is gone
        raise BrokenPipeError(errno.EPIPE, "the reader closed the pipe")

    on_broken_pipe._jvmlab = True  # type: ignore[attr-defined]  # a marker attribute on a function
    Console.on_broken_pipe = on_broken_pipe  # type: ignore[method-assign]


def _register() -> None:
    _plain_flags_in_help()
    _closed_pipe_is_no_failure()


def _on_sigterm(signum: int, _frame: object) -> None:
    raise Interrupted(signum, "terminated")


def _closed_pipe() -> int:
    """The reader went away (``jvmlab report | head -1``): end quietly, as other tools do.

    stdout is pointed at /dev/null so that the interpreter's final flush cannot complain;
    the exit code is 128 + SIGPIPE, what a shell reports for ``yes | head -1``."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 128 + signal.SIGPIPE


def _usage_error(err: TyperException) -> int:
    """A usage error (unknown option, a value out of range) in one line, not typer's boxed
    usage text: ``jvmlab: error: Invalid value for '--runs': 0 is not in the range x>=1. (see
    jvmlab minheap --help)``."""
    if type(err).__name__ == "NoArgsIsHelpError":  # the help was printed: nothing to add
        return err.exit_code
    ctx = getattr(err, "ctx", None)
    where = f" (see {ctx.command_path} --help)" if ctx is not None else ""
    message = " ".join(err.format_message().split())
    from jvmlab.cli.hyperfine import hint

    _say(f"jvmlab: error: {message}{hint(getattr(err, 'option_name', None))}{where}")
    return err.exit_code


def _continue_with(args: list[str]) -> str | None:
    """The command that continues a stopped ``run``, ``tune`` or ``minheap``: the same, with --resume."""
    if not args or (args[0] not in RESUMABLE and args[:2] != ["gc", "advise"]):
        return None
    again = [a for a in args if a != "--debug"]
    return resume_line("jvmlab " + shlex.join(again if "--resume" in again else [*again, "--resume"]))


def _resume_hint(args: list[str]) -> str:
    command = _continue_with(args)
    return f"; when the store is reachable again, continue with: {command}" if command else ""


def _unfinished(args: list[str]) -> str:
    """Experiments this command left ``running`` (it stopped before finishing), now marked
    ``interrupted``, said as one phrase with the command that continues them."""
    if not _has_unfinished():
        return ""
    from jvmlab.store.failures import mark_unfinished

    said = mark_unfinished(_STARTED[0])
    command = _continue_with(args)
    return "; " + "; ".join(said) + (f"; continue with: {command}" if command else "")


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI and exit with its code."""
    _register()
    _STARTED[0] = time.monotonic()  # experiments opened from now on are this command's
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        # Not standalone: usage errors come here to be said in one line (_usage_error).
        returned = app(args=args, prog_name="jvmlab", standalone_mode=False)
        code = returned if isinstance(returned, int) else 0
    except SystemExit as err:
        code = err.code if isinstance(err.code, int) else (0 if err.code is None else 1)
        if code == 1 and type(sys.stdout).__name__ == "PacifyFlushWrapper":
            # typer's own reaction to EPIPE from typer.echo: wrap stdout, exit 1. A closed
            # pipe is the reader's choice, not a failure: end like any other closed pipe.
            code = _closed_pipe()
    except Abort:
        code = _interrupted(args)
    except TyperException as err:
        code = _usage_error(err)
    except StoreError as err:
        if debug and err.detail:
            print(hide_passwords(err.detail), file=sys.stderr)
        unfinished = _unfinished([])
        _say(f"jvmlab: error: {err}{unfinished}{'' if isinstance(err, StoreLost) else _resume_hint(args)}")
        code = err.exit_code
    except UserError as err:
        _say(f"jvmlab: error: {err}{_unfinished(args)}")
        code = err.exit_code
    except Interrupted as err:
        _say(f"jvmlab: {err}{_unfinished(args)}")
        code = 128 + err.signum
    except KeyboardInterrupt:
        code = _interrupted(args)
    except BrokenPipeError:
        code = _closed_pipe()
    except Exception as err:  # the boundary: a bug, reported in one line unless --debug
        unfinished = _unfinished(args)
        if debug:
            raise
        first = (str(err).strip().splitlines() or [""])[0]  # one line, whatever the exception's text
        _say(f"jvmlab: internal error: {type(err).__name__}: {first} (rerun with --debug for a traceback)"
              f"{unfinished}")
        code = 1
    if code == EXIT_SIGINT and _has_unfinished():  # typer turns a Ctrl-C it sees into a quiet exit 130
        code = _interrupted(args)
    elif code != 0 and _has_unfinished():  # a command that exited early on its own: never left running
        from jvmlab.store.failures import mark_unfinished

        mark_unfinished(_STARTED[0])
    sys.exit(code)


def _say(text: str) -> None:
    """One line of the boundary on stderr, never with a password in it."""
    print(hide_passwords(text), file=sys.stderr)


def _has_unfinished() -> bool:
    if "jvmlab.store.failures" not in sys.modules:  # no store was opened: nothing to mark
        return False
    from jvmlab.store.failures import unfinished

    return bool(unfinished(_STARTED[0]))


def _interrupted(args: list[str]) -> int:
    """Ctrl-C that no command turned into :class:`Interrupted`: say what is stored and how to
    continue (exit 130, as a shell reports SIGINT)."""
    _say(f"jvmlab: interrupted{_unfinished(args)}")
    return EXIT_SIGINT
