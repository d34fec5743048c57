"""Help texts reach the terminal whole: typer renders them as rich markup, which eats `[tune]`."""

from __future__ import annotations

from collections.abc import Iterator

import click
import typer
from rich.text import Text

from jvmlab.cli.main import _register, app


def _commands(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
    yield path, command
    # typer's groups are of its own vendored click, no `click.Group`: a test that asked
    # isinstance(click.Group) saw the root alone and let "(as in [jvms])" lose its word
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, f"{path} {name}")


def _every_command() -> list[tuple[str, click.Command]]:
    found = list(_commands(typer.main.get_command(app), "jvmlab"))
    assert len(found) > 20 and "jvmlab gc advise" in dict(found)  # every command, sub-commands included
    return found


def test_no_help_text_loses_a_bracketed_word_to_markup() -> None:
    _register()
    eaten = []
    for path, command in _every_command():
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


_HELP_INTO_CLOSED_PIPES = r'''
import json, os, sys
import typer
from jvmlab.cli.apps import app
from jvmlab.cli.main import _register, main

_register()


def walk(command, path):
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from walk(sub, [*path, name])


saved_fd, saved_out, codes = os.dup(1), sys.stdout, {}
for path in walk(typer.main.get_command(app), []):
    for reader in ("closed", "devnull"):
        if reader == "closed":  # `jvmlab X --help | head -1`: the reader is gone before the rest is written
            r, w = os.pipe()
            os.close(r)
        else:
            w = os.open(os.devnull, os.O_WRONLY)
        os.dup2(w, 1)
        os.close(w)
        try:
            main([*path, "--help"])
        except SystemExit as err:
            codes[f"{' '.join(path) or '(root)'} | {reader}"] = err.code
        os.dup2(saved_fd, 1)
        sys.stdout = saved_out
os.write(saved_fd, json.dumps(codes).encode())
'''


def test_help_of_every_command_into_a_closed_pipe_exits_141_not_1() -> None:
    """`jvmlab X --help | head -1` for every command (issue 45: rich said exit 1, a failure)."""
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _HELP_INTO_CLOSED_PIPES], capture_output=True, text=True,
                          timeout=120, check=False)
    codes = json.loads(proc.stdout)
    assert len(codes) > 40 and "gc advise | closed" in codes, proc.stderr
    assert {k: v for k, v in codes.items() if v != (141 if k.endswith("closed") else 0)} == {}
