"""Spec records of the per-invocation hooks: ``setup``, ``before_each``, ``after_each``,
``cleanup`` in ``[workload]`` (and in ``[server]`` for a server). Each is a command run
outside the measured process (docs/hooks section of the README, docs/servers.md).

A hook is an argv list, a string run by ``/bin/sh -c`` when its table says ``shell = true``,
or a table ``{ command = ..., shell = ..., timeout = ... }``. A string in a table without
``shell = true`` is refused: jvmlab never runs a shell unless asked.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, model_validator

from jvmlab.errors import did_you_mean
from jvmlab.spec.flags import Seconds, Strict

HOOK_KINDS = ("setup", "before_each", "after_each", "cleanup")
PLACEHOLDERS = ("java", "cell", "invocation_dir")  # filled per invocation (model/hooks.py)
# ``{name}`` as jvmlab writes a placeholder; not ``${name}``, a shell's variable in a shell hook
_PLACEHOLDER = re.compile(r"(?<!\$)\{([a-z][a-z_]*)\}")


class Hook(Strict):
    """One hook command: an argv list, or a shell string with ``shell = true``; ``timeout``
    bounds it (default: the invocation's timeout)."""

    command: list[str] | str
    shell: bool = False
    timeout: Seconds | None = None

    @model_validator(mode="after")
    def _form(self) -> Hook:
        if isinstance(self.command, str):
            if not self.shell:
                raise ValueError(f"hook {self.command!r} is a string: give an argv list, or shell = true "
                                 f"to run it with /bin/sh -c")
            if not self.command.strip():
                raise ValueError("a hook's shell string is empty")
        elif not self.command or not self.command[0]:
            raise ValueError("a hook's command must be a non-empty argv list")
        words = [self.command] if isinstance(self.command, str) else self.command
        for word in words:
            for m in _PLACEHOLDER.finditer(word):
                if m.group(1) not in PLACEHOLDERS:
                    raise ValueError(f"hook {word!r}: unknown placeholder {{{m.group(1)}}}"
                                     f"{did_you_mean(m.group(1), PLACEHOLDERS)}; a hook knows "
                                     f"{', '.join('{' + p + '}' for p in PLACEHOLDERS)}")
        return self


def _hook(value: Any) -> Any:
    """``["rm", "-f", "x"]`` or ``"rm -f x"`` (shell, when the table says so) -> a Hook table."""
    if isinstance(value, (list, str)):
        return {"command": value, "shell": isinstance(value, str)}
    return value


HookValue = Annotated[Hook, BeforeValidator(_hook)]


class HookFields(Strict):
    """The four hook keys, shared by ``[workload]`` and ``[server]``.

    A bare string is a shell command only where the table says ``shell = true``
    (:func:`bare_strings_need_shell`, called by each table's own validator)."""

    setup: HookValue | None = None
    before_each: HookValue | None = None
    after_each: HookValue | None = None
    cleanup: HookValue | None = None

    def hooks(self) -> dict[str, Hook]:
        """The hooks given, by kind, in the order they run."""
        return {kind: hook for kind in HOOK_KINDS if (hook := getattr(self, kind)) is not None}


def bare_strings_need_shell(table: str, data: Any) -> Any:
    """A ``model_validator(mode="before")`` helper: a bare string hook needs ``shell = true``
    in its table (``[workload]`` or ``[server]``); ``data`` is the table as written."""
    if isinstance(data, dict) and not data.get("shell"):
        for kind in HOOK_KINDS:
            if isinstance(data.get(kind), str):
                raise ValueError(f"{kind} is a string: give an argv list, or shell = true in [{table}] "
                                 f"to run it with /bin/sh -c")
    return data
