"""`jvmlab import jmh FILES...` and `jvmlab import hyperfine FILES...`."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from jvmlab.cli.apps import app
from jvmlab.cli.storeargs import STORE_HELP

if TYPE_CHECKING:
    from jvmlab.importers.model import ImportedExperiment
    from jvmlab.model.stored import SeriesTag


def _tag(label: str | None, label_from: str | None, series: str | None, order: float | None) -> SeriesTag | None:
    from jvmlab.machine.gitlabel import series_tag

    return series_tag(label, label_from, series, order, Path.cwd())

import_app = typer.Typer(help="Turn existing result files (JMH, hyperfine) into an experiment.",
                         no_args_is_help=True)
app.add_typer(import_app, name="import")

BASELINE_HELP = "Cell name to use as the baseline (default: the first)."


LABEL_HELP = "This import's point in a series over time (a commit, a JDK build); see `jvmlab history`."
SERIES_HELP = "With --label: the series (default: the experiment's name)."
ORDER_HELP = "With --label: its place in the series (default: order of arrival)."


def _store(imported: ImportedExperiment, store: str | None, baseline: str | None,
           tag: SeriesTag | None = None) -> None:
    from jvmlab.importers.store import store_import
    from jvmlab.store import open_store

    db = open_store(store)
    exp_id = store_import(db, imported, baseline, shlex.join(["jvmlab", *sys.argv[1:]]), tag)
    typer.echo(f"imported {len(imported.runs)} invocations in {len(imported.cells)} cells as experiment "
               f"{exp_id} in {db.url}; see `jvmlab report {exp_id}`")
    for note in imported.unknown:
        typer.echo(f"  unknown: {note}")


def _import_command(kind: str, files_help: str, doc: str) -> None:
    """``jvmlab import KIND``: the two importers take the same options and store alike."""

    def command(
        files: list[Path] = typer.Argument(..., help=files_help),
        store: str | None = typer.Option(None, "--store", help=STORE_HELP),
        name: str | None = typer.Option(None, "--name", help="Experiment name."),
        baseline: str | None = typer.Option(None, "--baseline", help=BASELINE_HELP),
        label: str | None = typer.Option(None, "--label", help=LABEL_HELP),
        label_from: str | None = typer.Option(None, "--label-from", help="'git': label with the current commit."),
        series: str | None = typer.Option(None, "--series", help=SERIES_HELP),
        order: float | None = typer.Option(None, "--order", help=ORDER_HELP),
    ) -> None:
        if kind == "jmh":
            from jvmlab.importers.jmh import import_jmh as read
        else:
            from jvmlab.importers.hyperfine import import_hyperfine as read

        tag = _tag(label, label_from, series, order)
        _store(read(files, name), store, baseline, tag)

    command.__doc__ = doc
    import_app.command(kind)(command)


_import_command("jmh", "JMH JSON results (-rf json).",
                "Import JMH JSON results: a cell per JDK + flags, an invocation per fork, a metric per benchmark.")
_import_command("hyperfine", "hyperfine --export-json files.",
                "Import hyperfine JSON: a cell per command, an invocation per run (wall time, exit code).")
