"""GC log analyzer: JDK 9+ unified, JDK 6-8 legacy and OpenJ9 XML logs, streamed.

Public API: :func:`analyze_paths`, :func:`iter_events`, :func:`summary_metrics`,
:class:`LogSummary` (``to_json()``), :class:`GcEvent`. docs/gclog.md has the JSON schema
and the counting conventions.
"""

from jvmlab.gclog.analyze import analyze_paths, iter_events, summarize
from jvmlab.gclog.events import GcEvent, LogInfo
from jvmlab.gclog.summary import LogSummary, summary_metrics

__all__ = ["GcEvent", "LogInfo", "LogSummary", "analyze_paths", "iter_events", "summarize",
           "summary_metrics"]
