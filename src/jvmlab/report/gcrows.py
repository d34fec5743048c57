"""The rows `gc analyze` shows, shared by the terminal and the HTML page.

Both show the same figures in the same words: pauses next to what else stopped the
application (ZGC allocation stalls, Shenandoah pacing, degenerated and full collections),
each duration in the unit that fits its size (``850 µs``, ``12.3 ms``, ``19.6 s``), and the
figures other analyzers report (heap maxima, causes, failures, concurrent phases).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from jvmlab import metrics as registry
from jvmlab.gclog.points import GcLogView, log_name
from jvmlab.model.documents import GcStat, GcSummary

# Durations and sizes in GC tables: the registry's compact style (3 significant digits).
fmt_ms = registry.format_duration_ms
fmt_mb = registry.format_mb


def fmt_s(s: float | None) -> str:
    return "-" if s is None else fmt_ms(s * 1000.0)


def _count_total(st: GcStat | None) -> str:
    if st is None or not st.count:
        return "0"
    return f"{st.count} ({fmt_ms(st.total_ms)})"


Doc = GcSummary | dict[str, Any]  # a summary record, or the analyzer's JSON (read into one)


def summary_of(doc: Doc) -> GcSummary:
    """The summary as a record: readers use attributes, never the JSON's keys."""
    return doc if isinstance(doc, GcSummary) else GcSummary.of(doc)


def lost_ms(doc: Doc) -> float | None:
    """Pauses + allocation stalls + pacing: time application threads were held up."""
    s = summary_of(doc)
    if s.pauses.total_ms is None:
        return None
    return s.pauses.total_ms + _stalls_ms(s) + s.pacing.total_ms


def _stalls_ms(s: GcSummary) -> float:
    """Allocation plus relocation stalls (older documents have no relocation stalls: 0)."""
    return s.stalls.total_ms + s.relocation_stalls.total_ms


def _lost(s: GcSummary) -> str:
    lost = lost_ms(s)
    span = s.span_s
    if lost is None:
        return "-"
    share = ""
    if span and lost / 1000.0 <= span:
        share = f" ({100.0 * lost / 1000.0 / span:.3g}% of span)"
    elif span:  # stalls and pacing are per thread: their sum can exceed the wall-clock span
        share = " (summed over threads: more than the span)"
    return _compact("gc.held_total_ms", lost) + share


_SPAN_FROM = {"jvm_start": "from JVM start", "first_event": "from first event", "mixed": "per run"}


def _span(s: GcSummary) -> str:
    """The span and where it starts (the JVM's start, or the first event of a fragment)."""
    text = _compact("gc.span_s", s.span_s)
    basis = _SPAN_FROM.get(s.span_from or "")
    return f"{text} ({basis})" if basis and s.span_s is not None else text


def held_warning(doc: Doc, name: str | None = None) -> str | None:
    """One line when stalls or pacing cost more than the pauses (a throughput that misleads)."""
    s = summary_of(doc)
    pauses = s.pauses.total_ms or 0.0
    other = _stalls_ms(s) + s.pacing.total_ms
    if other <= 0 or other <= pauses:
        return None
    what = " and ".join(w for w, v in (("allocation stalls", s.stalls.total_ms),
                                       ("relocation stalls", s.relocation_stalls.total_ms),
                                       ("pacing", s.pacing.total_ms)) if v)
    return (f"{name or log_name(s.files)}: {what} held allocating threads for {fmt_ms(other)}, more than "
            f"all pauses ({fmt_ms(pauses)}); the throughput figure counts pauses only")


def _compact(metric: str, value: float | None) -> str:
    return registry.get(metric).compact(value)


def _kind(s: GcSummary, kind: str) -> str:
    return _count_total(s.pauses.by_kind.get(kind))


def _last_pause(s: GcSummary) -> str:
    lp = s.last_pause
    return "-" if lp is None else f"{fmt_ms(lp.duration_ms)} {lp.kind} at {fmt_s(lp.t_s)}"


def _top(table: dict[str, GcStat], n: int = 3) -> str:
    if not table:
        return "-"
    items = list(table.items())
    text = ", ".join(f"{k} {v.count}" for k, v in items[:n])
    return text + (f", +{len(items) - n} more" if len(items) > n else "")


Cell = Callable[[GcSummary], str]


def _heap_settings(settings: dict[str, float]) -> str:
    """The heap bounds the log states (-Xms/-Xmx, ZGC's Min/Max/Soft Max Capacity)."""
    if not settings:
        return "-"
    return " / ".join(fmt_mb(settings.get(k)) for k in ("heap_min_mb", "heap_max_mb", "heap_soft_max_mb"))


def _value(metric: str, read: Callable[[GcSummary], float | None]) -> tuple[str, Cell]:
    """A row showing one registered metric read from the summary."""
    return metric, lambda s: _compact(metric, read(s))


# Rows named by a registered metric take its label (and its format where they show one
# value); the others are facts about the log, not measurements, and name themselves.
ROWS: list[tuple[str, Cell]] = [
    ("format", lambda s: s.format or "?"),
    ("collector", lambda s: s.collector or "?"),
    ("JVM", lambda s: s.jvm_version or "?"),
    ("JVM runs in log", lambda s: str(s.jvm_runs)),
    ("gc.span_s", _span),
    ("gc.pause_count", lambda s: "-" if s.pauses.count is None else _count_total(
        GcStat(s.pauses.count, s.pauses.total_ms or 0.0))),
    _value("gc.pause_p50_ms", lambda s: s.pauses.p50_ms),
    _value("gc.pause_p99_ms", lambda s: s.pauses.p99_ms),
    _value("gc.pause_max_ms", lambda s: s.pauses.max_ms),
    ("gc.full_count", lambda s: _kind(s, "full")),
    ("gc.degenerated_count", lambda s: _kind(s, "degenerated")),
    ("gc.stall_total_ms", lambda s: _count_total(s.stalls)),
    ("gc.relocation_stall_total_ms", lambda s: _count_total(s.relocation_stalls)),
    ("gc.pacing_total_ms", lambda s: _compact("gc.pacing_total_ms", s.pacing.total_ms) if s.pacing.count else "0"),
    _value("gc.throughput_pct", lambda s: s.throughput_pct),
    ("gc.held_total_ms", _lost),
    ("gc.concurrent_cycles", lambda s: _count_total(s.concurrent_cycles)),
    _value("gc.alloc_rate_mb_s", lambda s: s.alloc_rate_mb_s),
    _value("gc.heap_max_used_mb", lambda s: s.heap_max_mb.used),
    _value("gc.heap_after_gc_max_mb", lambda s: s.heap_max_mb.after_gc),
    _value("gc.heap_max_committed_mb", lambda s: s.heap_max_mb.committed),
    ("heap min / max / soft max", lambda s: _heap_settings(s.heap_settings_mb)),
    ("young / old max used", lambda s: f"{fmt_mb(s.heap_max_mb.young_used)} / {fmt_mb(s.heap_max_mb.old_used)}"),
    ("first / last event", lambda s: f"{fmt_s(s.first_event_s)} / {fmt_s(s.last_event_s)}"),
    ("last pause", _last_pause),
    ("causes", lambda s: _top(s.collections_by_cause)),
    ("failures", lambda s: _top(s.failures)),
    ("event types", lambda s: "-" if s.event_type_count is None else str(s.event_type_count)),
]


def row_label(key: str) -> str:
    """A registered metric's label, or the fact row's own name."""
    return registry.REGISTRY[key].title if key in registry.REGISTRY else key


def summary_columns(views: Sequence[GcLogView]) -> tuple[list[str], list[list[str]]]:
    """(row labels, one column of cells per log): measures as rows, logs as columns."""
    labels = [row_label(key) for key, _ in ROWS]
    columns = [[fn(s) for _, fn in ROWS] for s in (summary_of(v.doc) for v in views)]
    return labels, columns


KIND_HEADER = ["kind", "count", "total", "mean", "share of pause time"]


def kind_rows(doc: Doc) -> list[list[str]]:
    """Pauses by kind (kinds that occurred), with stalls and pacing as rows of their own."""
    s = summary_of(doc)
    total = s.pauses.total_ms or 0.0
    rows = []
    for kind, st in s.pauses.by_kind.items():
        if st.count:
            share = f"{100.0 * st.total_ms / total:.1f}%" if total else "-"
            rows.append([kind, str(st.count), fmt_ms(st.total_ms), fmt_ms(st.total_ms / st.count), share])
    for label, st in (("allocation stalls", s.stalls), ("relocation stalls", s.relocation_stalls),
                      ("pacing (periods)", s.pacing)):
        if st.count:
            rows.append([label, str(st.count), fmt_ms(st.total_ms), fmt_ms(st.total_ms / st.count), "not a pause"])
    return rows


PHASE_HEADER = ["concurrent phase", "count", "total", "max"]


def _stat_row(name: str, st: GcStat) -> list[str]:
    return [name, str(st.count), fmt_ms(st.total_ms), fmt_ms(st.max_ms)]


def phase_rows(doc: Doc) -> list[list[str]]:
    return [_stat_row(name, st) for name, st in summary_of(doc).concurrent_phases.items()]


CAUSE_HEADER = ["cause / failure", "collections", "total", "max"]


def cause_rows(doc: Doc) -> list[list[str]]:
    s = summary_of(doc)
    return ([_stat_row(name, st) for name, st in s.collections_by_cause.items()]
            + [_stat_row(f"failure: {name}", st) for name, st in s.failures.items()])
