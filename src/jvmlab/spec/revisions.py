"""``[revisions]``: commits of a git repository as a factor (docs/bisect.md).

Each level is a revision (``main``, ``HEAD``, a tag, a sha) checked out in a worktree of its own
and built there once, before any JVM of the experiment starts; the workload's relative paths
then mean the spec's folder inside each revision's worktree.

    [revisions]
    repo = "."                          # default: the repository of the spec's folder
    build = ["javac", "-d", "out", "src/Main.java"]   # or a string, split without a shell
    levels = ["main", "HEAD"]           # or a table: { base = "main", head = "HEAD" }
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, field_validator, model_validator

from jvmlab.spec.flags import Seconds, Strict

REVISION_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def _levels(value: Any) -> Any:
    """``["main", "HEAD"]`` -> ``{"main": "main", "HEAD": "HEAD"}`` (a name per revision)."""
    if isinstance(value, list):
        return {level_name(str(rev)): str(rev) for rev in value}
    return value


def level_name(rev: str) -> str:
    """A revision's level name when the spec gives none: the revision as typed, with every
    character outside ``A-Za-z0-9_.-`` made ``-`` (``feature/x`` -> ``feature-x``)."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", rev.strip()) or "rev"
    return name if REVISION_NAME.match(name) else f"r{name}"


class Revisions(Strict):
    """The ``[revisions]`` table: where, how to build, which revisions."""

    repo: str | None = None  # default: the repository holding the spec's folder
    # the folder (in the checkout) whose place in the repository the spec's relative paths mean
    # in each worktree; default: the spec's folder (a one-liner's: the folder it was typed in)
    paths_from: str | None = None
    build: list[str] | str | None = None  # none: nothing to build (a script or a checked-in jar)
    shell: bool = False  # a string build command goes to a shell only when asked
    build_timeout: Seconds = 1800.0
    levels: Annotated[dict[str, str], BeforeValidator(_levels)]

    @field_validator("levels")
    @classmethod
    def _some(cls, value: dict[str, str]) -> dict[str, str]:
        if not value:
            raise ValueError("levels = [] names no revision: give at least one (main, HEAD, a tag, a sha)")
        for name, rev in value.items():
            if not REVISION_NAME.match(name):
                raise ValueError(f"revision name {name!r} must be letters, digits, _ . -")
            if not rev.strip() or rev.strip().startswith("-"):
                raise ValueError(f"revision {rev!r} of {name!r} is not a revision (a branch, tag or sha)")
        return value

    @model_validator(mode="after")
    def _build(self) -> Revisions:
        if isinstance(self.build, list) and not self.build:
            raise ValueError("build = [] is empty: give the build's argv, or leave the key out")
        if self.shell and not isinstance(self.build, str):
            raise ValueError("shell = true goes with a build command given as one string")
        return self
