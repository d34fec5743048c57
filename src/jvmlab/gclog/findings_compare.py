"""Which findings appear or disappear between two sets of logs (`jvmlab gc compare`).

A finding is counted per log: in how many of a side's logs it fired, and how many events
it counted there in all. Its status says what a reader wants first: ``appears`` (in B, in
no log of A), ``disappears`` (in A, in no log of B), ``in both``. Sides whose documents
hold no findings (older stored summaries) are said to be unknown, never "none".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from jvmlab.gclog.findings_model import findings_of, severity_rank

APPEARS = "appears"
DISAPPEARS = "disappears"
BOTH = "in both"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class FindingChange:
    """One finding id across the two sides."""

    id: str
    severity: str  # the most severe seen on either side
    logs_a: int  # logs of A with the finding
    n_a: int  # logs of A whose findings are known
    logs_b: int
    n_b: int
    count_a: int  # events counted in all logs of A
    count_b: int
    status: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _side(docs: Sequence[dict[str, Any]]) -> tuple[int, dict[str, tuple[int, int, str]]]:
    known = 0
    seen: dict[str, tuple[int, int, str]] = {}
    for doc in docs:
        found = findings_of(doc)
        if found is None:
            continue
        known += 1
        for f in found:
            logs, count, sev = seen.get(f.id, (0, 0, f.severity))
            worst = f.severity if severity_rank(f.severity) < severity_rank(sev) else sev
            seen[f.id] = (logs + 1, count + f.evidence.count, worst)
    return known, seen


def compare_findings(docs_a: Sequence[dict[str, Any]], docs_b: Sequence[dict[str, Any]]) -> list[FindingChange]:
    """Every finding id seen on either side, most severe first, then appearing ones first."""
    n_a, a = _side(docs_a)
    n_b, b = _side(docs_b)
    out = []
    for fid in sorted(set(a) | set(b)):
        la, ca, sa = a.get(fid, (0, 0, "info"))
        lb, cb, sb = b.get(fid, (0, 0, "info"))
        if not n_a or not n_b:
            status = UNKNOWN
        elif la and lb:
            status = BOTH
        else:
            status = APPEARS if lb else DISAPPEARS
        sev = sa if severity_rank(sa) < severity_rank(sb) else sb
        out.append(FindingChange(fid, sev, la, n_a, lb, n_b, ca, cb, status))
    order = {APPEARS: 0, DISAPPEARS: 1, BOTH: 2, UNKNOWN: 3}
    return sorted(out, key=lambda c: (severity_rank(c.severity), order[c.status], c.id))
