"""The self-contained HTML report: one file, plotly.js inline, works offline.

Safety: the page is rendered by Jinja2 with autoescape on, so every string from a spec,
a JVM name, a flag or a workload's output is text, never markup. Figure data travels in
``<script type="application/json">`` blocks whose JSON has ``<``, ``>`` and ``&`` written
as ``\\u003c`` etc., so no value can close the block; labels inside figures are escaped
again for plotly's own HTML subset (see :mod:`jvmlab.report.plots`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jvmlab.gclog import LogSummary
from jvmlab.gclog.points import GcLogView, view_of
from jvmlab.report.gcpage import gc_context
from jvmlab.report.page import render_page, write_text
from jvmlab.report.sections import report_context
from jvmlab.report.summary import Summary


def render_html(summary: Summary, why: Any = None) -> str:
    """The experiment report as one HTML document, from the summary (and the results it
    carries) alone; ``why`` is the optional profile/JFR part (:func:`jvmlab.report.why.build_why`
    from :func:`jvmlab.results.why.load_why`)."""
    return render_page("report.html.j2", report_context(summary, why))


def write_html(summary: Summary, path: Path, why: Any = None) -> Path:
    """Render the experiment report and write it to ``path``."""
    return write_text(path, render_html(summary, why))


def write_gc_html(logs: Sequence[LogSummary | GcLogView], path: Path) -> Path:
    """The `jvmlab gc analyze --html` page: per-log table, pause timeline and histogram.
    The page renders from records; a LogSummary is turned into one by the analyzer here."""
    views = [log if isinstance(log, GcLogView) else view_of(log) for log in logs]
    return write_text(path, render_page("gc.html.j2", gc_context(views)))
