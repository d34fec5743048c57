"""Did a fix make a finding go away? Counted in each cell's own GC logs, with intervals.

Each invocation's stored gc document (``GcDocument.summary``) carries the findings of its own
log. Per cell and finding: how many runs showed it (with a Clopper-Pearson interval of the
share) and the mean count of its events per run (with a BCa bootstrap interval of the mean;
a count is never negative, nor is either bound). The verdict compares a fix's cell with the
``current`` cell and says "cannot tell" when the logs cannot decide.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from jvmlab.analyze.bootstrap import mean_ci, rng_for
from jvmlab.analyze.falsepositives import clopper_pearson
from jvmlab.errors import UserError
from jvmlab.gclog.findings_model import findings_of, severity_rank
from jvmlab.model.documents import GcDocument
from jvmlab.store.protocol import Store

if TYPE_CHECKING:
    from jvmlab.gclog.findings_model import Finding
    from jvmlab.spec.model import Spec

GONE = "gone"
FEWER = "fewer"
STILL = "still there"
MORE = "more"
NOT_REPRODUCED = "not reproduced"
CANNOT_TELL = "cannot tell"


@dataclass(frozen=True)
class FindingCount:
    """One finding in one cell's runs."""

    finding: str
    level: str
    runs: int  # runs whose GC log had findings computed
    runs_with: int
    share_ci: tuple[float, float] | None
    mean_count: float | None
    mean_ci: tuple[float, float] | None
    severity: str | None = None  # the most severe it was in any run that showed it

    def to_json(self) -> dict[str, Any]:
        return {"finding": self.finding, "level": self.level, "runs": self.runs, "runs_with": self.runs_with,
                "share_ci": None if self.share_ci is None else list(self.share_ci),
                "mean_count": self.mean_count, "mean_ci": None if self.mean_ci is None else list(self.mean_ci),
                "severity": self.severity}


def count_finding(finding: str, level: str, docs: Sequence[Mapping[str, Any]], seed: int = 1) -> FindingCount:
    """The finding's presence and event count over one cell's gc documents."""
    counts = []
    severities: set[str] = set()
    for doc in docs:
        found = findings_of(dict(doc))
        if found is None:
            continue
        counts.append(sum(f.evidence.count for f in found if f.id == finding))
        severities.update(f.severity for f in found if f.id == finding)
    runs = len(counts)
    if not runs:
        return FindingCount(finding, level, 0, 0, None, None, None)
    x = np.asarray(counts, dtype=float)
    with_it = int((x > 0).sum())
    ci: tuple[float, float] | None = None
    if x.min() == x.max():
        ci = (float(x[0]), float(x[0])) if runs >= 2 else None  # every run alike: no spread to resample
    else:
        raw = mean_ci(x, rng_for(seed, "gc-advise", finding, level))
        ci = None if raw is None else (max(0.0, float(raw[0])), max(0.0, float(raw[1])))
    worst = min(severities, key=severity_rank) if severities else None
    return FindingCount(finding, level, runs, with_it, clopper_pearson(with_it, runs), float(x.mean()), ci, worst)


def went_away(current: FindingCount, fixed: FindingCount) -> tuple[str, str]:
    """(verdict, reason) for a fix's cell against the current flags' cell."""
    if not current.runs or not fixed.runs:
        return CANNOT_TELL, "no GC log with findings in one of the cells (was the gc collector on?)"
    if not current.runs_with:
        return NOT_REPRODUCED, f"the current flags did not show it in {current.runs} run(s) of this workload"
    if not fixed.runs_with:
        high = fixed.share_ci[1] if fixed.share_ci else 1.0
        return GONE, f"in none of {fixed.runs} run(s) (95% upper bound of the share: {100 * high:.0f}%)"
    if current.mean_ci and fixed.mean_ci:
        if fixed.mean_ci[1] < current.mean_ci[0]:
            return FEWER, "fewer events per run; the intervals do not overlap"
        if fixed.mean_ci[0] > current.mean_ci[1]:
            return MORE, "more events per run; the intervals do not overlap"
        return STILL, "in both; the per-run counts' intervals overlap"
    return STILL, f"in {fixed.runs_with} of {fixed.runs} run(s)"


def level_documents(store: Store, experiment_id: int, factor: str) -> dict[str, list[dict[str, Any]]]:
    """The gc documents of the measured, successful runs, by the cell's level of ``factor``."""
    cells = {c.id: c.levels.get(factor, c.name) for c in store.cells(experiment_id)}
    invs = [i for i in store.invocations(experiment_id) if i.status == "ok"]
    docs = store.records([i.id for i in invs], GcDocument)
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in cells.values()}
    for inv in invs:
        doc = docs.get(inv.id)
        if doc is not None:
            out[cells[inv.cell_id]].append(doc.summary)
    return out


def advice_source(log: str, spec: Path | None, store: str | None) -> tuple[list[Finding], Spec, str, Path | None, str]:
    """What `gc advise` tries fixes for: a GC log file with its spec, or a stored cell ``N:CELL``
    (its stored GC findings and its spec): (findings, the one-cell spec of the current flags,
    spec text, spec path, label)."""
    import re

    from jvmlab.plan import advise as derive
    from jvmlab.plan.matrix import expand, find_baseline
    from jvmlab.spec.load import load_spec

    m = re.match(r"^(?P<id>\d+):(?P<cell>.+)$", log)
    if m is not None and not Path(log).exists():
        return _stored_source(int(m["id"]), m["cell"], store)
    if spec is None:
        raise UserError("gc advise LOG needs --spec SPEC: the workload to try the fixes on (or pass a stored "
                        "cell N:CELL, which knows its spec)")
    from jvmlab.gclog import analyze_paths
    from jvmlab.gclog.findings_rules import evaluate

    findings = _merge([f for s in analyze_paths([Path(log)]) for f in evaluate(s)])
    parsed, text = load_spec(spec)
    cells = expand(parsed)
    base = find_baseline(parsed, cells)
    return findings, derive.one_cell(parsed, base.jvm, dict(base.levels)), text, spec, log


def _stored_source(exp_id: int, cell_name: str,
                   store: str | None) -> tuple[list[Finding], Spec, str, Path | None, str]:
    from jvmlab.plan import advise as derive
    from jvmlab.spec.load import parse_spec
    from jvmlab.store import open_store

    db = open_store(store, must_exist=True)
    exp = db.experiment(exp_id)
    cells = db.cells(exp_id)
    cell = next((c for c in cells if c.name == cell_name), None)
    if cell is None:
        raise UserError(f"experiment {exp_id} has no cell {cell_name!r} (cells: {', '.join(c.name for c in cells)})")
    invs = [i for i in db.invocations(exp_id) if i.cell_id == cell.id and i.status == "ok"]
    docs = db.records([i.id for i in invs], GcDocument)
    found = [findings_of(d.summary) for d in docs.values()]
    if not any(f is not None for f in found):
        raise UserError(f"{exp_id}:{cell_name}: no GC log findings stored (gc collector off, or stored by an "
                        f"older jvmlab); pass a GC log file with --spec instead")
    findings = _merge([x for f in found if f for x in f])
    parsed = parse_spec(exp.spec_text, f"experiment {exp_id}'s spec")
    spec_path = Path(exp.spec_path) if exp.spec_path else None
    known = {f: lv for f, lv in cell.levels.items() if lv in parsed.factors.get(f, {})}
    cell_spec = derive.one_cell(parsed, cell.jvm, known)
    if len(known) < len(cell.levels):  # a derived experiment (advise, tune): its factor is not in the text
        workload = cell_spec.workload.model_copy(update={"jvm_args": list(cell.requested_flags)})
        cell_spec = cell_spec.model_copy(update={"workload": workload})
    return findings, cell_spec, exp.spec_text, spec_path, f"{exp_id}:{cell_name}"


def _merge(findings: list[Finding]) -> list[Finding]:
    """One finding per id (the first seen: logs of one cell show the same fixes)."""
    seen: dict[str, Finding] = {}
    for f in findings:
        seen.setdefault(f.id, f)
    return list(seen.values())
