"""Help texts reach the terminal whole: typer renders them as rich markup, which eats `[tune]`."""

from __future__ import annotations

from collections.abc import Iterator

import click
import typer
from rich.text import Text

from jvmlab.cli.main import _register, app


def _commands(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
    yield path, command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _commands(sub, f"{path} {name}")


def test_no_help_text_loses_a_bracketed_word_to_markup() -> None:
    _register()
    eaten = []
    for path, command in _commands(typer.main.get_command(app), "jvmlab"):
        texts = [("help", command.help or "")]
        texts += [(param.name or "?", getattr(param, "help", None) or "") for param in command.params]
        for where, text in texts:
            if Text.from_markup(text).plain != text.replace("\\[", "["):
                eaten.append(f"{path} ({where}): {text[:80]}")
    assert eaten == [], "escape [ as \\[ in these help texts"


def test_tune_help_names_its_section() -> None:
    from typer.testing import CliRunner

    out = CliRunner().invoke(app, ["tune", "--help"], prog_name="jvmlab", terminal_width=200).output
    assert "Search the [tune] space" in out
