"""The command-line entry point and the one error boundary.

Commands parse arguments, call one library function and render its result. Expected
failures (UserError) print one line and exit 2; interruptions exit 130/143 after saying how
to resume; anything else is a bug: one line, or a traceback with --debug.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence

import typer
from typer.core import TyperOption

# Importing the command modules attaches their commands to `app` and `gc_app` (cli/apps.py).
from jvmlab.cli import (  # noqa: F401  # noqa: F401
    cmd_cluster,
    cmd_doctor,
    cmd_export,
    cmd_gc,
    cmd_gc_advise,
    cmd_history,
    cmd_import,
    cmd_jdks,
    cmd_minheap,
    cmd_results,
    cmd_run,
    cmd_tune,
)
from jvmlab.cli.apps import app
from jvmlab.errors import EXIT_SIGINT, Interrupted, UserError


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


def _register() -> None:
    _plain_flags_in_help()


def _on_sigterm(signum: int, _frame: object) -> None:
    raise Interrupted(signum, "terminated")


def _closed_pipe() -> int:
    """The reader went away (``jvmlab report | head -1``): end quietly, as other tools do.

    stdout is pointed at /dev/null so that the interpreter's final flush cannot complain;
    the exit code is 128 + SIGPIPE, what a shell reports for ``yes | head -1``."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 128 + signal.SIGPIPE


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI and exit with its code."""
    _register()
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        # Standalone mode: usage errors print themselves and exit 2 (SystemExit passes).
        app(args=args, prog_name="jvmlab", standalone_mode=True)
        code = 0
    except SystemExit as err:
        code = err.code if isinstance(err.code, int) else (0 if err.code is None else 1)
        if code == 1 and type(sys.stdout).__name__ == "PacifyFlushWrapper":
            # typer's own reaction to EPIPE from typer.echo: wrap stdout, exit 1. A closed
            # pipe is the reader's choice, not a failure: end like any other closed pipe.
            code = _closed_pipe()
    except UserError as err:
        print(f"jvmlab: error: {err}", file=sys.stderr)
        code = err.exit_code
    except Interrupted as err:
        print(f"jvmlab: {err}", file=sys.stderr)
        code = 128 + err.signum
    except KeyboardInterrupt:
        print("jvmlab: interrupted", file=sys.stderr)
        code = EXIT_SIGINT
    except BrokenPipeError:
        code = _closed_pipe()
    except Exception as err:  # the boundary: a bug, reported in one line unless --debug
        if debug:
            raise
        print(f"jvmlab: internal error: {type(err).__name__}: {err} (rerun with --debug for a traceback)",
              file=sys.stderr)
        code = 1
    sys.exit(code)
