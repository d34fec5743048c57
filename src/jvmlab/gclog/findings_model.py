"""The records of a finding: what a GC log says is wrong, its evidence, the flags that may fix it.

Kept apart from :mod:`jvmlab.gclog.findings` (the entry points) so that the rules, the fixes
and the scan use the records without an import cycle. ``to_json`` / ``from_json`` are the
schema in docs/gclog.md ("Findings"); ``from_json`` reads what the store kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jvmlab.gclog.figures import rounded

ERROR = "error"
WARN = "warn"
INFO = "info"
SEVERITIES = (ERROR, WARN, INFO)


@dataclass(frozen=True)
class Fix:
    """Candidate flags and why they may help. Fixes of one ``group`` are alternatives
    (only one of them goes into the combination of compatible fixes)."""

    flags: tuple[str, ...]
    reason: str
    group: str

    def to_json(self) -> dict[str, Any]:
        return {"flags": list(self.flags), "reason": self.reason, "group": self.group}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Fix:
        return cls(tuple(str(f) for f in doc.get("flags") or ()), str(doc.get("reason") or ""),
                   str(doc.get("group") or ""))


@dataclass(frozen=True)
class Evidence:
    """How often and how badly: ``count`` events, their total and worst time (ms, None when
    the log gives no duration), the uptimes of the first and last (s), example lines, and
    the figures a threshold was applied to (``figures``, e.g. paused_pct and its threshold)."""

    count: int
    total_ms: float | None = None
    worst_ms: float | None = None
    first_t_s: float | None = None
    last_t_s: float | None = None
    examples: tuple[str, ...] = ()
    figures: tuple[tuple[str, float], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "total_ms": rounded(self.total_ms, 3), "worst_ms": rounded(self.worst_ms, 3),
                "first_t_s": rounded(self.first_t_s, 3), "last_t_s": rounded(self.last_t_s, 3),
                "examples": list(self.examples), "figures": {k: rounded(v) for k, v in self.figures}}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Evidence:
        figures = doc.get("figures") or {}
        return cls(int(doc.get("count") or 0), doc.get("total_ms"), doc.get("worst_ms"), doc.get("first_t_s"),
                   doc.get("last_t_s"), tuple(doc.get("examples") or ()),
                   tuple((str(k), float(v)) for k, v in figures.items() if isinstance(v, int | float)))


@dataclass(frozen=True)
class Finding:
    """One finding of one log (docs/gclog.md, "Findings")."""

    id: str
    severity: str
    title: str
    explanation: str
    evidence: Evidence
    fixes: tuple[Fix, ...] = ()
    advice: str = ""  # what to do when no flag can fix it (or besides the flags)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "severity": self.severity, "title": self.title,
                "explanation": self.explanation, "evidence": self.evidence.to_json(),
                "fixes": [f.to_json() for f in self.fixes], "advice": self.advice}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Finding:
        return cls(str(doc["id"]), str(doc.get("severity") or INFO), str(doc.get("title") or doc["id"]),
                   str(doc.get("explanation") or ""), Evidence.from_json(doc.get("evidence") or {}),
                   tuple(Fix.from_json(f) for f in doc.get("fixes") or ()), str(doc.get("advice") or ""))


def findings_of(doc: dict[str, Any]) -> list[Finding] | None:
    """The findings stored in a summary document; None when the document has none (older
    documents, or logs whose findings could not be computed)."""
    raw = doc.get("findings")
    if not isinstance(raw, list):
        return None
    return [Finding.from_json(f) for f in raw if isinstance(f, dict) and "id" in f]


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)
