"""`jvmlab jdks`: the JDKs found on this machine."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from jvmlab.cli.console import stdout_console
from jvmlab.cli.main import app


@app.command()
def jdks(as_json: bool = typer.Option(False, "--json", help="Print JSON (a list of JDK objects).")) -> None:
    """Find and identify JDKs (JAVA_HOME, PATH, /usr/lib/jvm, sdkman, JVMLAB_JDK_PATH, ...)."""
    from jvmlab.jdk import discover
    from jvmlab.jdk.select import selector_for

    found = discover()
    # What to write in [jvms] to get exactly this JDK.
    selectors = [selector_for(j, found) for j in found]
    if as_json:
        typer.echo(json.dumps([{**j.to_json(), "selector": s} for j, s in zip(found, selectors)], indent=2))
        return
    table = Table(header_style="bold")
    for col in ("selector", "feature", "version", "vendor", "vm", "javac", "garbage collectors", "home", "found via"):
        table.add_column(col, overflow="fold")
    for j, selector in zip(found, selectors):
        version = j.vendor_version or j.version
        table.add_row(selector, str(j.feature), version, j.vendor, j.vm_kind, "yes" if j.has_javac else "no",
                      " ".join(j.gcs), str(j.home), ", ".join(j.sources))
    stdout_console().print(table)
    if not found:
        typer.echo("no JDK found: install one, set JAVA_HOME, or add its folder to JVMLAB_JDK_PATH", err=True)
