"""`jvmlab jdks`: the JDKs found on this machine."""

from __future__ import annotations

import json
from collections.abc import Callable

import typer
from rich.table import Table

from jvmlab.cli.apps import app
from jvmlab.cli.console import stdout_console
from jvmlab.model.jdk import JdkInfo

# (header, value) per shown field; the table form and the narrow form read the same list.
FIELDS: list[tuple[str, Callable[[JdkInfo], str]]] = [
    ("feature", lambda j: str(j.feature)),
    ("version", lambda j: j.vendor_version or j.version),
    ("vendor", lambda j: j.vendor),
    ("vm", lambda j: f"{j.vm_kind} ({j.jit})" if j.jit else j.vm_kind),  # "OpenJ9 (Testarossa)"
    ("javac", lambda j: "yes" if j.has_javac else "no"),
    ("garbage collectors", lambda j: " ".join(j.gcs)),
    ("home", lambda j: str(j.home)),
    ("found via", lambda j: ", ".join(j.sources)),
]


def jdk_table(found: list[JdkInfo], selectors: list[str], width: int) -> Table:
    """One row per JDK when every value fits on one line; otherwise one block per JDK
    (field name, then its value wrapped at spaces), so no word is broken in two. The first
    column is the selector to write in ``[jvms]`` to get exactly that JDK."""
    headers = ["selector", *(h for h, _ in FIELDS)]
    rows = [[sel, *(fn(j) for _, fn in FIELDS)] for j, sel in zip(found, selectors, strict=True)]
    widths = [max([len(h)] + [len(r[k]) for r in rows]) for k, h in enumerate(headers)]
    if sum(w + 3 for w in widths) + 1 <= width:
        table = Table(header_style="bold")
        for header in headers:
            table.add_column(header, no_wrap=True)
        for row in rows:
            table.add_row(*row)
        return table
    table = Table(header_style="bold", show_header=False)
    label = max(len(h) for h in headers)
    table.add_column("field", style="bold", no_wrap=True, min_width=label)
    table.add_column("value", overflow="fold")
    for row in rows:
        for k, header in enumerate(headers):
            table.add_row(header, row[k], end_section=k == len(headers) - 1)
    return table


@app.command()
def jdks(as_json: bool = typer.Option(False, "--json", help="Print JSON (a list of JDK objects).")) -> None:
    """Find and identify JDKs (JAVA_HOME, PATH, /usr/lib/jvm, sdkman, JVMLAB_JDK_PATH, ...)."""
    from jvmlab.jdk import discover
    from jvmlab.jdk.select import selector_for

    found = discover()
    # What to write in [jvms] to get exactly this JDK.
    selectors = [selector_for(j, found) for j in found]
    if as_json:
        rows = [{**j.to_json(), "selector": s} for j, s in zip(found, selectors, strict=True)]
        typer.echo(json.dumps(rows, indent=2))
        return
    stdout_console().print(jdk_table(found, selectors, stdout_console().width))
    if not found:
        typer.echo("no JDK found: install one, set JAVA_HOME, or add its folder to JVMLAB_JDK_PATH", err=True)
