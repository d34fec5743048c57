"""What a finding rule sees: one log's summary and the facts folded from it, and the
helpers that turn tallies into evidence. Shared by findings_rules and findings_stops."""

from __future__ import annotations

from jvmlab.gclog.findings_fold import EventFacts
from jvmlab.gclog.findings_model import Evidence
from jvmlab.gclog.findings_scan import Tally
from jvmlab.gclog.summary import LogSummary

PARALLEL = ("G1", "Parallel", "CMS", "Shenandoah")  # collectors whose pauses run several GC threads


def evidence(t: Tally, figures: tuple[tuple[str, float], ...] = (), line: str | None = None) -> Evidence:
    """A tally's evidence, with the figures a threshold was applied to and an example line."""
    return Evidence(t.count, t.total_ms if t.timed else None, t.worst_ms, t.first_t_s, t.last_t_s,
                    (line,) if line else (), figures)


def merge(tallies: list[Tally]) -> Tally:
    out = Tally()
    for t in tallies:
        out.merge(t)
    return out


class Context:
    """One log's summary and facts, and the figures the fixes are sized from."""

    def __init__(self, summary: LogSummary) -> None:
        self.s = summary
        self.e: EventFacts = summary.fold.e
        self.lines = summary.fold.lines
        self.collector = (summary.collector or "").split(" ")[0]
        self.max_mb = summary.heap.get("heap_max_mb")
        self.region_mb = summary.heap.get("region_mb")

    def causes(self, names: tuple[str, ...]) -> Tally:
        return merge([t for c, t in self.e.by_cause.items() if c in names])

    def failures(self, names: tuple[str, ...]) -> Tally:
        return merge([t for f, t in self.e.by_failure.items() if f.lower() in names])

    def served(self, names: tuple[str, ...]) -> str:
        counts: dict[str, int] = {}
        for cause in names:
            for name, n in self.e.served_by.get(cause, {}).items():
                counts[name] = counts.get(name, 0) + n
        return ", ".join(f"{n}x {name}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))
