"""How one run was asked for: the command-line options of `jvmlab run` as a typed record.

Apart from the loop (``runner.py``) because ``resume.py`` stores and merges these options
and the loop calls ``resume``: with the record here neither imports the other.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.model.stored import SeriesTag


@dataclass(frozen=True)
class RunOptions:
    artifacts_root: Path
    resume: bool = False
    command_line: str = ""
    collect_overrides: dict[str, bool | int | str] = field(default_factory=dict)  # collect/registry.py
    until_rel: float | None = None  # stop when every CI half-width <= this share of the baseline mean
    max_invocations: int | None = None  # measured invocations, all cells together
    budget_s: float | None = None
    metric: str | None = None  # None: the stored one on resume, else wall_s
    metric_reason: str = ""  # recorded with the metric so `report` compares the same one; "" keeps the stored
    resume_hint: str | None = None  # the command that continues it, when not `jvmlab run SPEC --resume`
    series: SeriesTag | None = None  # `--label`: the point this run is in a series over time (`history`)


def ready_artifacts(folder: Path) -> Path:
    """The artifacts folder as an absolute path, made, writable and with free space (one line
    naming the folder otherwise: every path handed to a JVM is absolute)."""
    from jvmlab.store import check_free_space

    root = folder.absolute()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UserError(f"cannot create the artifacts folder {root}: {err.strerror}; "
                        f"pass another --artifacts") from None
    if not os.access(root, os.W_OK):
        raise UserError(f"the artifacts folder {root} is not writable; pass another --artifacts")
    check_free_space(root, "artifacts")
    return root
