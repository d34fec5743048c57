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
from jvmlab.gclog.points import GcLogView
from jvmlab.gclog.points import log_name as files_name

# Durations and sizes in GC tables: the registry's compact style (3 significant digits).
fmt_ms = registry.format_duration_ms
fmt_mb = registry.format_mb


def fmt_s(s: float | None) -> str:
    return "-" if s is None else fmt_ms(s * 1000.0)


def _count_total(st: dict[str, Any] | None) -> str:
    if not st or not st.get("count"):
        return "0"
    return f"{st['count']} ({fmt_ms(st['total_ms'])})"


def log_name(s: Any) -> str:
    """A log's column name, from a LogSummary or a summary document."""
    return files_name(s["files"] if isinstance(s, dict) else s.files)


def lost_ms(doc: dict[str, Any]) -> float | None:
    """Pauses + allocation stalls + pacing: time application threads were held up."""
    if doc["pauses"]["total_ms"] is None:
        return None
    return float(doc["pauses"]["total_ms"] + _stalls_ms(doc) + doc["pacing"]["total_ms"])


def _stalls_ms(doc: dict[str, Any]) -> float:
    """Allocation plus relocation stalls (older documents have no relocation key)."""
    return float(doc["stalls"]["total_ms"] + (doc.get("relocation_stalls") or {}).get("total_ms", 0.0))


def _lost(doc: dict[str, Any]) -> str:
    lost = lost_ms(doc)
    span = doc["span_s"]
    if lost is None:
        return "-"
    share = ""
    if span and lost / 1000.0 <= span:
        share = f" ({100.0 * lost / 1000.0 / span:.3g}% of span)"
    elif span:  # stalls and pacing are per thread: their sum can exceed the wall-clock span
        share = " (summed over threads: more than the span)"
    return _compact("gc.held_total_ms", lost) + share


_SPAN_FROM = {"jvm_start": "from JVM start", "first_event": "from first event", "mixed": "per run"}


def _span(doc: dict[str, Any]) -> str:
    """The span and where it starts (the JVM's start, or the first event of a fragment)."""
    text = _compact("gc.span_s", doc["span_s"])
    basis = _SPAN_FROM.get(doc.get("span_from") or "")
    return f"{text} ({basis})" if basis and doc["span_s"] is not None else text


def held_warning(doc: dict[str, Any], name: str | None = None) -> str | None:
    """One line when stalls or pacing cost more than the pauses (a throughput that misleads)."""
    pauses = doc["pauses"]["total_ms"] or 0.0
    other = _stalls_ms(doc) + doc["pacing"]["total_ms"]
    if other <= 0 or other <= pauses:
        return None
    what = " and ".join(w for w, v in (("allocation stalls", doc["stalls"]["total_ms"]),
                                       ("relocation stalls", doc["relocation_stalls"]["total_ms"]),
                                       ("pacing", doc["pacing"]["total_ms"])) if v)
    return (f"{name or log_name(doc)}: {what} held allocating threads for {fmt_ms(other)}, more than "
            f"all pauses ({fmt_ms(pauses)}); the throughput figure counts pauses only")


def _compact(metric: str, value: float | None) -> str:
    return registry.formatter(metric, "compact")(value)


def _kind(doc: dict[str, Any], kind: str) -> str:
    return _count_total((doc["pauses"]["by_kind"] or {}).get(kind))


def _last_pause(doc: dict[str, Any]) -> str:
    lp = doc["last_pause"]
    return "-" if lp is None else f"{fmt_ms(lp['duration_ms'])} {lp['kind']} at {fmt_s(lp['t_s'])}"


def _top(table: dict[str, dict[str, Any]] | None, n: int = 3) -> str:
    if not table:
        return "-"
    items = list(table.items())
    text = ", ".join(f"{k} {v['count']}" for k, v in items[:n])
    return text + (f", +{len(items) - n} more" if len(items) > n else "")


Cell = Callable[[dict[str, Any]], str]


def _heap_settings(settings: dict[str, float] | None) -> str:
    """The heap bounds the log states (-Xms/-Xmx, ZGC's Min/Max/Soft Max Capacity)."""
    if not settings:
        return "-"
    return " / ".join(fmt_mb(settings.get(k)) for k in ("heap_min_mb", "heap_max_mb", "heap_soft_max_mb"))


def _value(metric: str, *path: str) -> tuple[str, Cell]:
    """A row showing one registered metric read from the document at ``path``."""
    def cell(doc: dict[str, Any]) -> str:
        cur: Any = doc
        for key in path:
            cur = (cur or {}).get(key)
        return _compact(metric, cur)
    return metric, cell


# Rows named by a registered metric take its label (and its format where they show one
# value); the others are facts about the log, not measurements, and name themselves.
ROWS: list[tuple[str, Cell]] = [
    ("format", lambda d: d["format"]),
    ("collector", lambda d: d["collector"] or "?"),
    ("JVM", lambda d: d["jvm_version"] or "?"),
    ("JVM runs in log", lambda d: str(d["jvm_runs"])),
    ("gc.span_s", _span),
    ("gc.pause_count", lambda d: _count_total(d["pauses"]) if d["pauses"]["count"] is not None else "-"),
    _value("gc.pause_p50_ms", "pauses", "p50_ms"),
    _value("gc.pause_p99_ms", "pauses", "p99_ms"),
    _value("gc.pause_max_ms", "pauses", "max_ms"),
    ("gc.full_count", lambda d: _kind(d, "full")),
    ("gc.degenerated_count", lambda d: _kind(d, "degenerated")),
    ("gc.stall_total_ms", lambda d: _count_total(d["stalls"])),
    ("gc.relocation_stall_total_ms", lambda d: _count_total(d["relocation_stalls"])),
    ("gc.pacing_total_ms", lambda d: _compact("gc.pacing_total_ms", d["pacing"]["total_ms"])
     if d["pacing"]["count"] else "0"),
    _value("gc.throughput_pct", "throughput_pct"),
    ("gc.held_total_ms", _lost),
    ("gc.concurrent_cycles", lambda d: _count_total(d["concurrent_cycles"])),
    _value("gc.alloc_rate_mb_s", "alloc_rate_mb_s"),
    _value("gc.heap_max_used_mb", "heap_max_mb", "used"),
    _value("gc.heap_after_gc_max_mb", "heap_max_mb", "after_gc"),
    _value("gc.heap_max_committed_mb", "heap_max_mb", "committed"),
    ("heap min / max / soft max", lambda d: _heap_settings(d["heap_settings_mb"])),
    ("young / old max used", lambda d: f"{fmt_mb(d['heap_max_mb']['young_used'])} / "
                                       f"{fmt_mb(d['heap_max_mb']['old_used'])}"),
    ("first / last event", lambda d: f"{fmt_s(d['first_event_s'])} / {fmt_s(d['last_event_s'])}"),
    ("last pause", _last_pause),
    ("causes", lambda d: _top(d["collections_by_cause"])),
    ("failures", lambda d: _top(d["failures"])),
    ("event types", lambda d: "-" if d["event_types"] is None else str(d["event_types"]["count"])),
]


def row_label(key: str) -> str:
    """A registered metric's label, or the fact row's own name."""
    return registry.REGISTRY[key].title if key in registry.REGISTRY else key


def summary_columns(views: Sequence[GcLogView]) -> tuple[list[str], list[list[str]]]:
    """(row labels, one column of cells per log): measures as rows, logs as columns."""
    labels = [row_label(key) for key, _ in ROWS]
    columns = [[fn(v.doc) for _, fn in ROWS] for v in views]
    return labels, columns


KIND_HEADER = ["kind", "count", "total", "mean", "share of pause time"]


def kind_rows(doc: dict[str, Any]) -> list[list[str]]:
    """Pauses by kind (kinds that occurred), with stalls and pacing as rows of their own."""
    kinds = doc["pauses"]["by_kind"] or {}
    total = doc["pauses"]["total_ms"] or 0.0
    rows = []
    for kind, st in kinds.items():
        if st and st.get("count"):
            share = f"{100.0 * st['total_ms'] / total:.1f}%" if total else "-"
            rows.append([kind, str(st["count"]), fmt_ms(st["total_ms"]), fmt_ms(st["total_ms"] / st["count"]), share])
    for label, st in (("allocation stalls", doc["stalls"]), ("relocation stalls", doc["relocation_stalls"]),
                      ("pacing (periods)", doc["pacing"])):
        if st["count"]:
            rows.append([label, str(st["count"]), fmt_ms(st["total_ms"]), fmt_ms(st["total_ms"] / st["count"]),
                         "not a pause"])
    return rows


PHASE_HEADER = ["concurrent phase", "count", "total", "max"]


def phase_rows(doc: dict[str, Any]) -> list[list[str]]:
    return [[name, str(st["count"]), fmt_ms(st["total_ms"]), fmt_ms(st["max_ms"])]
            for name, st in (doc["concurrent_phases"] or {}).items()]


CAUSE_HEADER = ["cause / failure", "collections", "total", "max"]


def cause_rows(doc: dict[str, Any]) -> list[list[str]]:
    rows = [[name, str(st["count"]), fmt_ms(st["total_ms"]), fmt_ms(st["max_ms"])]
            for name, st in (doc["collections_by_cause"] or {}).items()]
    rows += [[f"failure: {name}", str(st["count"]), fmt_ms(st["total_ms"]), fmt_ms(st["max_ms"])]
             for name, st in (doc["failures"] or {}).items()]
    return rows
