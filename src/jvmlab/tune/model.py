"""Records of a tuning run: one trial, the outcome of a race, the confirmation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

Metrics = dict[str, float]


class FlagJudge(Protocol):
    """What checking a space needs: which flags a JDK refuses (no invocation is measured)."""

    def rejected(self, jvm: str, flags: tuple[str, ...]) -> str | None:
        """Why this JDK refuses these flags, None if accepted."""


class Measurer(Protocol):
    """Runs one invocation of a configuration; jvm names a [jvms] entry."""

    def rejected(self, jvm: str, flags: tuple[str, ...]) -> str | None:
        """Why this JDK refuses these flags (checked once per distinct pair), None if accepted."""

    def measure(self, jvm: str, flags: tuple[str, ...], block: int, position: int) -> Metrics | str:
        """The invocation's metrics, or why it failed (a failure is data, not a crash)."""

    def block_hazards(self) -> list[str]:
        """Machine checks between blocks (busy, drift, fingerprint): warnings to record."""


@dataclass(frozen=True)
class Config:
    """A point of the space: parameter values, the JDK they run on and the flags they make."""

    values: dict[str, Any]
    jvm: str
    flags: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.jvm}|{' '.join(self.flags)}"


@dataclass
class Trial:
    number: int
    config: Config
    # promoted, not-better, worse, undecided (budget), undecided (blocks) (looked better, stopped before
    # a decision), drift (better, but measured during drift), disturbed (better, but by what the run-queue
    # delay explains: other processes' load), infeasible
    state: str
    blocks: int
    ratio: float | None  # candidate / incumbent on the first objective (paired, geometric)
    ci: tuple[float, float] | None
    estimate: tuple[float, ...] | None  # the objective(s), on the incumbent's scale
    reason: str | None = None
    best_after: float | None = None  # the incumbent's estimate once this trial was decided
    best_ci: tuple[float, float] | None = None
    block_range: tuple[int, int] | None = None  # the session's first and last block of this trial
    # "search" (the sampler's proposal), "coordinate" (one parameter changed from the incumbent,
    # tune/design.py) or "combined" (improving one-factor moves put together)
    origin: str = "search"
    against: str | None = None  # the identity of the incumbent it raced (tune/design.py: one-factor effects)


@dataclass
class Confirmation:
    label: str  # "winner" or "pareto-2"
    config: Config
    blocks: int
    against: dict[str, tuple[float, tuple[float, float]]] = field(default_factory=dict)  # name -> ratio, CI
    verdicts: dict[str, str] = field(default_factory=dict)
    side_effects: dict[str, float] = field(default_factory=dict)  # metric -> ratio vs baseline
