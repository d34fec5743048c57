"""Findings: what a GC log says is wrong, with its evidence and the flags that may fix it.

A finding has a stable id (``explicit-gc``, ``evacuation-failure``, ...; the list and the
thresholds are in :mod:`jvmlab.gclog.findings_rules` and docs/gclog.md), a severity
(``error``, ``warn``, ``info``), the evidence (count, total and worst time, first and last
uptime, one or two example lines of the log), a plain explanation, and candidate fixes:
flags with the reason for each. ``jvmlab gc advise`` turns the fixes into an experiment.

Findings are computed from the facts folded in the summary's own pass over the log
(:mod:`jvmlab.gclog.findings_fold`: the parser's events and the text it read, with example
lines): no file is read again. They are part of every summary document (``findings: [...]``), also the
ones the gc collector stores per invocation, so a stored cell can be advised on later.
The records live in :mod:`jvmlab.gclog.findings_model`, the rules' entry point is
:func:`jvmlab.gclog.findings_rules.evaluate`.
"""

from __future__ import annotations

from typing import Any

from jvmlab.gclog.findings_rules import evaluate
from jvmlab.gclog.summary import LogSummary


def summary_document(summary: LogSummary) -> dict[str, Any]:
    """``summary.to_json()`` with its ``findings`` (what `gc analyze`, `gc compare` and the
    gc collector store and print)."""
    doc = summary.to_json()
    try:
        doc["findings"] = [f.to_json() for f in evaluate(summary)]
    except (OSError, ValueError) as err:  # the summary was readable; findings must not lose it
        doc["findings"] = None
        doc["findings_error"] = str(err)
    return doc
