"""A cell's profile against the baseline's: which frames grew or shrank, in share points.

The change of a frame is its total share in the cell minus its total share in the
baseline (percentage points of all samples, or of all allocated bytes). A method that only
the cell runs grows by its whole share; the frames it displaced shrink. Shares make the
comparison fair between cells whose runs took different times.
"""

from __future__ import annotations

from dataclasses import dataclass

from jvmlab.profile.stacks import frame_shares, path_weights


@dataclass(frozen=True)
class FrameChange:
    """One frame's total share in the baseline and the cell; ``delta`` = cell - baseline."""

    frame: str
    base_share: float
    cell_share: float
    ci95: tuple[float, float] | None = None  # of delta, bootstrap over invocations (profile.interval)

    @property
    def delta(self) -> float:
        return self.cell_share - self.base_share

    def to_json(self) -> dict[str, object]:
        return {"frame": self.frame, "base_share": self.base_share, "cell_share": self.cell_share,
                "delta_share": self.delta, "delta_ci95": list(self.ci95) if self.ci95 else None}


@dataclass(frozen=True)
class ProfileDiff:
    """The frames that grew most and shrank most (largest change first)."""

    cell: str
    baseline: str
    kind: str  # "cpu" (execution samples) or "alloc" (allocated bytes)
    grew: tuple[FrameChange, ...]
    shrank: tuple[FrameChange, ...]

    def to_json(self) -> dict[str, object]:
        return {"cell": self.cell, "baseline": self.baseline, "kind": self.kind,
                "grew": [c.to_json() for c in self.grew], "shrank": [c.to_json() for c in self.shrank]}


def diff_profiles(base: dict[str, float], cell: dict[str, float], *, cell_name: str, baseline_name: str,
                  kind: str = "cpu", top: int = 5, min_delta: float = 0.001) -> ProfileDiff:
    """Frames whose total share changed by at least ``min_delta``, ``top`` each way."""
    b, c = frame_shares(base), frame_shares(cell)
    changes = [FrameChange(f, b.get(f, (0.0, 0.0))[1], c.get(f, (0.0, 0.0))[1]) for f in set(b) | set(c)]
    grew = sorted((x for x in changes if x.delta >= min_delta), key=lambda x: (-x.delta, x.frame))
    shrank = sorted((x for x in changes if x.delta <= -min_delta), key=lambda x: (x.delta, x.frame))
    return ProfileDiff(cell_name, baseline_name, kind, tuple(grew[:top]), tuple(shrank[:top]))


def diff_tree(base: dict[str, float], cell: dict[str, float]) -> dict[str, float]:
    """path -> change of its inclusive share (cell - baseline), for colouring a flame graph."""
    bw, cw = path_weights(base), path_weights(cell)
    bt, ct = sum(base.values()) or 1.0, sum(cell.values()) or 1.0
    return {p: cw.get(p, 0.0) / ct - bw.get(p, 0.0) / bt for p in set(bw) | set(cw)}
