"""The hooks of one invocation, as the executor gets them: commands run outside the measured
process (``setup`` once per cell before its first invocation, ``before_each``, ``after_each``,
``cleanup`` once per cell after its last). Built from the spec in ``plan/template.py``, run by
``execute/hooks.py``.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from pathlib import Path

SHELL = ("/bin/sh", "-c")
JAVA = "{java}"
CELL = "{cell}"
INVOCATION_DIR = "{invocation_dir}"


@dataclass(frozen=True)
class HookCommand:
    """One hook: its argv (a shell hook: ``/bin/sh -c TEXT``), bounded by ``timeout_s``."""

    kind: str  # setup, before_each, after_each, cleanup
    argv: tuple[str, ...]
    timeout_s: float
    origin: str = "workload"  # the table it came from: "workload" or "server"
    shell: bool = False

    def filled(self, java: str, cell: str, invocation_dir: Path) -> HookCommand:
        """The placeholders ``{java}``, ``{cell}``, ``{invocation_dir}`` replaced (shell-quoted
        inside a shell string, so a cell name with spaces stays one word)."""
        values = {JAVA: java, CELL: cell, INVOCATION_DIR: str(invocation_dir)}
        if self.shell:
            text = self.argv[-1]
            for key, value in values.items():
                text = text.replace(key, shlex.quote(value))
            return replace(self, argv=(*SHELL, text))
        out = []
        for part in self.argv:
            for key, value in values.items():
                part = part.replace(key, value)
            out.append(part)
        return replace(self, argv=tuple(out))

    def shown(self) -> str:
        """As a person reads it: the shell text, or the argv joined shell-style."""
        return self.argv[-1] if self.shell else shlex.join(self.argv)


@dataclass(frozen=True)
class InvocationHooks:
    """One invocation's hooks, placeholders filled; ``cell`` keys the once-per-cell ones."""

    cell: str
    cwd: Path
    commands: tuple[HookCommand, ...]

    def of(self, kind: str) -> tuple[HookCommand, ...]:
        return tuple(c for c in self.commands if c.kind == kind)
