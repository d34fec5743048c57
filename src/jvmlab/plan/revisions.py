"""Revisions as a factor: what the plan needs of each checked-out revision.

``machine/gitrev.py`` checks each revision of ``[revisions]`` out in a worktree of its own and
builds it there; it hands the plan one :class:`RevisionTree` per revision. The plan adds the
factor ``revision`` (one level per revision that built) and resolves each cell's workload in
its revision's copy of the spec's folder. A revision whose build failed makes no cell: it is
kept in the ``revisions`` document with its reason and said as a hazard (the matrix goes on).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.model.documents import RevisionRecord, RevisionsDocument


@dataclass(frozen=True)
class RevisionTree:
    """One revision checked out (and built) beside the user's checkout."""

    record: RevisionRecord
    worktree: Path | None  # None: the worktree is gone (removed) or was never made
    spec_dir: Path | None  # the spec's folder inside the worktree: the base of its relative paths

    @property
    def level(self) -> str:
        return self.record.level

    @property
    def usable(self) -> bool:
        return self.record.built and self.spec_dir is not None


@dataclass(frozen=True)
class RevisionSet:
    """Every revision of the factor, in the spec's order, and how they were made."""

    repo: Path
    build: tuple[str, ...]
    trees: tuple[RevisionTree, ...]

    @property
    def usable(self) -> tuple[RevisionTree, ...]:
        return tuple(t for t in self.trees if t.usable)

    @property
    def failed(self) -> tuple[RevisionTree, ...]:
        return tuple(t for t in self.trees if not t.record.built)

    def levels(self) -> list[str]:
        """The factor's levels: the revisions that built (none built: one line, nothing runs)."""
        levels = [t.level for t in self.usable]
        if not levels:
            reasons = "; ".join(f"{t.level} ({t.record.sha[:12]}): {t.record.build_error}" for t in self.failed)
            raise UserError(f"no revision built, nothing to measure: {reasons}")
        return levels

    def spec_dir(self, level: str) -> Path:
        tree = next(t for t in self.trees if t.level == level)
        assert tree.spec_dir is not None  # only usable trees are levels
        return tree.spec_dir

    def document(self) -> RevisionsDocument:
        return RevisionsDocument(str(self.repo), self.build, tuple(t.record for t in self.trees))
