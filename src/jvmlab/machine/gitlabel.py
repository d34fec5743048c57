"""``run --label-from git``: the label of a point in a series is the commit checked out here.

Reads ``git rev-parse --short=12 HEAD`` in the given folder (argv list, bounded wait); a tree
with uncommitted changes gets ``+dirty`` so a measurement of edited sources never poses as the
commit's own.
"""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.model.stored import SeriesTag

GIT_TIMEOUT_S = 10.0


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S,
                              check=False)
    except FileNotFoundError:
        raise UserError("--label-from git: git is not installed here; pass --label LABEL") from None
    except subprocess.TimeoutExpired:
        raise UserError(f"--label-from git: git did not answer within {GIT_TIMEOUT_S:.0f} s; "
                        f"pass --label LABEL") from None


def git_label(cwd: Path) -> str:
    """The short commit id checked out in ``cwd`` (``+dirty`` with uncommitted changes)."""
    head = _git(["rev-parse", "--short=12", "HEAD"], cwd)
    if head.returncode != 0:
        first = (head.stderr.strip().splitlines() or ["no commit"])[0]
        raise UserError(f"--label-from git: {cwd} is not in a git work tree with a commit ({first}); "
                        f"pass --label LABEL")
    status = _git(["status", "--porcelain", "--untracked-files=no"], cwd)
    return head.stdout.strip() + ("+dirty" if status.returncode == 0 and status.stdout.strip() else "")


def label_option(label: str | None, label_from: str | None, cwd: Path) -> str | None:
    """The label a ``--label`` / ``--label-from`` pair gives (None: neither)."""
    if label is not None and label_from is not None:
        raise UserError("--label and --label-from go alone: give one of them")
    if label_from is None:
        if label is not None and not label.strip():
            raise UserError("--label: give a non-empty label (a commit id, a JDK build, a date)")
        return label.strip() if label is not None else None
    if label_from != "git":
        raise UserError(f"--label-from {label_from!r}: the only source is 'git' (the current commit)")
    return git_label(cwd)


def series_tag(label: str | None, label_from: str | None, series: str | None, order: float | None,
               cwd: Path) -> SeriesTag | None:
    """The ``--label/--label-from/--series/--order`` options as one record (None: not in a series)."""
    text = label_option(label, label_from, cwd)
    if text is None:
        if series is not None or order is not None:
            raise UserError("--series and --order need a label: add --label LABEL or --label-from git")
        return None
    if series is not None and not series.strip():
        raise UserError("--series: give a non-empty series name")
    if order is not None and not math.isfinite(order):
        raise UserError(f"--order {order}: give a finite number (its place in the series)")
    for option, value in (("--label", text), ("--series", series)):
        if value is not None and (len(value.strip()) > LABEL_CHARS or "\x00" in value):
            raise UserError(f"{option}: {len(value.strip())} characters{' with a NUL byte' if chr(0) in value else ''};"
                            f" give at most {LABEL_CHARS} (the store's column), without NUL")
    return SeriesTag(text, series.strip() if series else None, order)


LABEL_CHARS = 200  # the store's series and label columns (store/schema.py): checked before anything runs
