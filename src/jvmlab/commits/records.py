"""What a bisection found, as frozen records (worded by ``report/bisect.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from jvmlab.commits.steps import StepVerdict


class BisectOutcome(StrEnum):
    FOUND = "found"  # the first bad commit, named
    NOTHING = "nothing-to-find"  # good and bad do not differ
    INCONCLUSIVE = "inconclusive"  # a step reached its cap undecided: a range is left
    UNTESTABLE = "untestable"  # only commits that do not build stand between the ends


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    subject: str
    date: str
    index: int  # 0 = good, n = bad

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.sha, "subject": self.subject, "date": self.date, "index": self.index}


@dataclass(frozen=True)
class BisectStep:
    """One step: the commit measured (the confirmation: bad), its verdict, the ratio of its
    metric to the good end's with the 95% CI, and the measured invocations of the step's
    experiment (all its revisions; 0 for a skipped commit)."""

    commit: CommitInfo
    verdict: StepVerdict
    ratio: float | None
    ci95: tuple[float, float] | None
    invocations: int
    experiment_id: int | None
    good: CommitInfo  # the ends the step measured with
    bad: CommitInfo
    reason: str = ""  # why it was skipped
    margin: float | None = None  # the busy-machine margin `report` would not call its comparison within
    delay_s: float | None = None  # the run-queue delay per run that, at equal delay, leaves it uncalled

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit.sha, "subject": self.commit.subject, "date": self.commit.date,
                "index": self.commit.index, "verdict": self.verdict.value, "ratio": self.ratio,
                "ci95": list(self.ci95) if self.ci95 is not None else None, "invocations": self.invocations,
                "experiment": self.experiment_id, "good": self.good.sha, "bad": self.bad.sha,
                "interference_margin": self.margin, "run_queue_delay_s": self.delay_s,
                **({"reason": self.reason} if self.reason else {})}


@dataclass(frozen=True)
class BisectResult:
    metric: str
    good: CommitInfo
    bad: CommitInfo
    n_commits: int  # commits after good, up to bad
    outcome: BisectOutcome
    steps: tuple[BisectStep, ...]
    first_bad: CommitInfo | None = None
    first_bad_ratio: float | None = None
    first_bad_ci95: tuple[float, float] | None = None
    left: tuple[CommitInfo, ...] = ()  # inconclusive/untestable: the commits the first bad one is among
    series: str = ""

    @property
    def measured(self) -> tuple[str, ...]:
        """Every commit measured (the ends included), in the order first measured."""
        seen: dict[str, None] = {self.good.sha: None, self.bad.sha: None}
        for step in self.steps:
            if step.verdict is not StepVerdict.SKIPPED:
                seen.setdefault(step.commit.sha, None)
        return tuple(seen)

    @property
    def exit_code(self) -> int:
        """0: the first bad commit named; 3: nothing to find or could not tell (the report says)."""
        return 0 if self.outcome is BisectOutcome.FOUND else 3

    def to_json(self) -> dict[str, Any]:
        first = None
        if self.first_bad is not None:
            first = {**self.first_bad.to_json(), "ratio": self.first_bad_ratio,
                     "ci95": list(self.first_bad_ci95) if self.first_bad_ci95 is not None else None}
        return {"metric": self.metric, "outcome": self.outcome.value, "good": self.good.to_json(),
                "bad": self.bad.to_json(), "commits": self.n_commits, "series": self.series,
                "measured_commits": len(self.measured), "first_bad": first,
                "left": [c.to_json() for c in self.left], "steps": [s.to_json() for s in self.steps]}
