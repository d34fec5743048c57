"""A scenario's verdict as people read it: a small table and one sentence of conclusion.

Rows are the settings (JDK x collector x pages ...), columns the effect the scenario exists
to show with its 95% CI; a last column says whether that row's answer is clear or, if not,
about how many invocations per cell would resolve it. Built by each scenario from
:mod:`jvmlab.scenarios.stats`; rendered here as plain text (the terminal and the demo
output), and as JSON for anything else.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from jvmlab.analyze.stopping import invocations_to_resolve
from jvmlab.results.pairs import excludes_zero
from jvmlab.scenarios.stats import Interval3, Judged, not_estimable

CLEAR = "clear"


@dataclass(frozen=True)
class Estimate:
    """An effect with its CI, formatted with ``fmt`` (e.g. "{:+.1f}%"), from ``n`` per cell."""

    value: Interval3 | None
    fmt: str
    n: int = 0
    withheld: str | None = None  # the interference model's words when it does not call the interval
    why: str | None = None  # ... and its whole sentence, with the measured delay

    @classmethod
    def of(cls, judged: Judged | None, fmt: str, n: int = 0) -> Estimate:
        """A pair's estimate as the one interference model judged it (:mod:`jvmlab.scenarios.stats`)."""
        if judged is None:
            return cls(None, fmt, n)
        return cls(judged.value, fmt, n, judged.withheld, judged.why)

    @property
    def clear(self) -> bool:
        return self.value is not None and excludes_zero(self.value) and self.withheld is None

    def text(self) -> str:
        """"-6.6% [-9.1% … -4.0%]"; "-" when not measured; without a CI the estimate and why
        ("not estimable at n=2"), never a number that looks like an interval."""
        if self.value is None:
            return "-"
        est, lo, hi = self.value
        if not (math.isfinite(lo) and math.isfinite(hi)):
            return f"{self.fmt.format(est)} ({not_estimable(self.n)})"
        return f"{self.fmt.format(est)} [{self.fmt.format(lo)} … {self.fmt.format(hi)}]"

    def needed(self) -> int | None:
        """Invocations per cell that would resolve an unclear effect of this size (None when
        clear, unmeasured, without a CI, or with no effect to resolve)."""
        if self.value is None or self.clear or self.withheld is not None:
            return None
        est, lo, hi = self.value
        return invocations_to_resolve(self.n, (hi - lo) / 2.0, est) if math.isfinite(hi - lo) else None

    def answer(self) -> str:
        """"clear", or how far from clear: "not clear: ~24 per cell would resolve it"."""
        if self.value is None:
            return "not measured"
        if self.clear:
            return CLEAR
        if self.withheld is not None:
            return self.withheld
        need = self.needed()
        return "no effect seen" if need is None else f"not clear: ~{need} per cell would resolve it"


@dataclass(frozen=True)
class ScenarioVerdict:
    """The table (``header`` then ``rows`` of text) and the one-sentence ``conclusion``."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    conclusion: str
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        return self.render()

    def __contains__(self, text: str) -> bool:  # "x" in verdict: searches the rendered text
        return text in self.render()

    def render(self) -> str:
        lines = [self.title]
        if self.rows:
            widths = [max(len(r[i]) for r in (self.header, *self.rows)) for i in range(len(self.header))]
            fmt = "  ".join(f"{{:<{w}}}" for w in widths)
            lines.append("  " + fmt.format(*self.header).rstrip())
            lines.append("  " + "  ".join("-" * w for w in widths))
            lines.extend("  " + fmt.format(*row).rstrip() for row in self.rows)
        lines.append(self.conclusion)
        lines.extend(f"Note: {n}" for n in self.notes)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "header": list(self.header), "rows": [list(r) for r in self.rows],
                "conclusion": self.conclusion, "notes": list(self.notes)}


def empty(title: str, why: str) -> ScenarioVerdict:
    """A verdict with nothing to tabulate (no measurements): the sentence says why."""
    return ScenarioVerdict(title, (), (), why)


def span(estimates: list[Estimate], fmt: str) -> str:
    """"0.31 to 0.45" over the clear estimates (for the conclusion sentence)."""
    values = [e.value[0] for e in estimates if e.clear and e.value is not None]
    if not values:
        return ""
    lo, hi = min(values), max(values)
    return fmt.format(lo) if lo == hi else f"{fmt.format(lo)} to {fmt.format(hi)}"


def withheld_notes(estimates: list[Estimate]) -> tuple[str, ...]:
    """The one sentence of the first estimate a busy machine (or a drift) left uncalled, and how
    many there were: a note under the table (the answer column says it in a few words)."""
    why = [e.why for e in estimates if e.withheld is not None and e.why]
    if not why:
        return ()
    more = f" ({len(why) - 1} more row(s) likewise)" if len(why) > 1 else ""
    return (f"not called: {why[0]}{more}",)
