"""The stdout console of every command, and an experiment's report on it.

A closed pipe is the reader's choice, not an error: rich's own reaction to it is
``SystemExit(1)``, which tells ``set -o pipefail`` scripts that the report failed; the error
boundary (``cli/main.py``, ``_closed_pipe_is_no_failure``) makes every rich console raise the
BrokenPipeError it is instead, which ``main`` ends quietly with 141 (128 + SIGPIPE), as
``yes | head -1`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console

if TYPE_CHECKING:
    from jvmlab.report.summary import Summary
    from jvmlab.results.why import WhyRecords


def stdout_console() -> Console:
    return Console()


def show_report(summary: Summary, why_records: WhyRecords, as_json: bool = False,
                console: Console | None = None) -> None:
    """An experiment's report: its JSON on stdout, or its tables and why part (on ``console``,
    default stdout)."""
    if as_json:
        import json

        import typer

        from jvmlab.report.nodes import nodes_part
        from jvmlab.report.why import why_json

        typer.echo(json.dumps({**summary.to_json(), **why_json(summary, why_records), **nodes_part(summary)},
                              indent=2, default=str))
        return
    from jvmlab.report.terminal import render
    from jvmlab.report.why import render_why

    console = console or stdout_console()
    render(summary, console)
    render_why(summary, why_records, console)
