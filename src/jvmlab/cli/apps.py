"""The typer apps every command module attaches to.

Apart from ``main.py`` (which imports every command module to register it) so that the
command modules import this, never ``main``: no loop between ``main`` and ``cmd_*``.
"""

from __future__ import annotations

import typer

from jvmlab import __version__

app = typer.Typer(
    name="jvmlab", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    help="Measure what a JVM flag, JDK, GC or machine setting does to your program.",
    context_settings={"help_option_names": ["-h", "--help"]},
)
gc_app = typer.Typer(help="GC log tools.", no_args_is_help=True)
app.add_typer(gc_app, name="gc")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"jvmlab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(debug: bool = typer.Option(False, "--debug", help="Show tracebacks for internal errors."),
          version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                       help="Print jvmlab's version and exit.")) -> None:
    """jvmlab: fair, statistically honest JVM experiments."""
    # --debug is read by main() from argv, before typer parses anything.
