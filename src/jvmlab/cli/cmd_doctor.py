"""`jvmlab doctor`: machine settings that change JVM measurements, with verdicts and hints."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from jvmlab.cli.apps import app
from jvmlab.cli.console import stdout_console

STYLE = {"ok": "green", "warn": "yellow", "info": "cyan"}


@app.command()
def doctor(as_json: bool = typer.Option(False, "--json", help="Print the checks as JSON.")) -> None:
    """Check THP, huge pages, overcommit, swap, cgroup limits, CPU, load, tmpfs and perf counters."""
    from jvmlab.machine.doctor import doctor_json, run_doctor

    checks = run_doctor()
    if as_json:
        typer.echo(json.dumps(doctor_json(checks), indent=2))
        return
    table = Table(title="jvmlab doctor", show_lines=False)
    for column in ("check", "value", "verdict", "hint"):
        table.add_column(column, overflow="fold")
    for c in checks:
        table.add_row(c.name, c.value, f"[{STYLE[c.verdict]}]{c.verdict}[/]", c.hint)
    stdout_console().print(table)
