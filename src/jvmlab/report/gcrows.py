"""The rows `gc analyze` shows, shared by the terminal and the HTML page.

Both show the same figures in the same words: pauses next to what else stopped the
application (ZGC allocation stalls, Shenandoah pacing, degenerated and full collections),
each duration in the unit that fits its size (``850 µs``, ``12.3 ms``, ``19.6 s``), and the
figures other analyzers report (heap maxima, causes, failures, concurrent phases).
"""

from __future__ import annotations

from typing import Any

from jvmlab.gclog import LogSummary


def fmt_ms(ms: float | None) -> str:
    """A duration in milliseconds, written in the unit that fits it (3 significant digits)."""
    if ms is None:
        return "-"
    if ms == 0:
        return "0 ms"
    a = abs(ms)
    if a < 1e-3:
        return f"{ms * 1e6:.3g} ns"
    if a < 1.0:
        return f"{ms * 1e3:.3g} µs"
    if a < 1000.0:
        return f"{ms:.3g} ms"
    if a < 600_000.0:
        return f"{ms / 1000.0:.3g} s"
    return f"{ms / 60_000.0:.3g} min"


def fmt_mb(mb: float | None) -> str:
    if mb is None:
        return "-"
    return f"{mb / 1024:.3g} GB" if mb >= 1024 else f"{mb:.3g} MB"


def fmt_s(s: float | None) -> str:
    return "-" if s is None else fmt_ms(s * 1000.0)


def _count_total(st: dict[str, Any] | None) -> str:
    if not st or not st.get("count"):
        return "0"
    return f"{st['count']} ({fmt_ms(st['total_ms'])})"


def log_name(s: LogSummary) -> str:
    return s.files[0].name if len(s.files) == 1 else f"{s.files[0].name} (+{len(s.files) - 1} rotated)"


def lost_ms(doc: dict[str, Any]) -> float | None:
    """Pauses + allocation stalls + pacing: time application threads were held up."""
    if doc["pauses"]["total_ms"] is None:
        return None
    return doc["pauses"]["total_ms"] + _stalls_ms(doc) + doc["pacing"]["total_ms"]


def _stalls_ms(doc: dict[str, Any]) -> float:
    """Allocation plus relocation stalls (older documents have no relocation key)."""
    return doc["stalls"]["total_ms"] + (doc.get("relocation_stalls") or {}).get("total_ms", 0.0)


def _lost(doc: dict[str, Any]) -> str:
    lost = lost_ms(doc)
    span = doc["span_s"]
    if lost is None:
        return "-"
    share = f" ({100.0 * lost / 1000.0 / span:.3g}% of span)" if span else ""
    return fmt_ms(lost) + share


def held_warning(s: LogSummary) -> str | None:
    """One line when stalls or pacing cost more than the pauses (a throughput that misleads)."""
    doc = s.to_json()
    pauses = doc["pauses"]["total_ms"] or 0.0
    other = _stalls_ms(doc) + doc["pacing"]["total_ms"]
    if other <= 0 or other <= pauses:
        return None
    what = " and ".join(w for w, v in (("allocation stalls", doc["stalls"]["total_ms"]),
                                       ("relocation stalls", doc["relocation_stalls"]["total_ms"]),
                                       ("pacing", doc["pacing"]["total_ms"])) if v)
    return (f"{log_name(s)}: {what} held allocating threads for {fmt_ms(other)}, more than "
            f"all pauses ({fmt_ms(pauses)}); the throughput figure counts pauses only")


def _kind(doc: dict[str, Any], kind: str) -> str:
    return _count_total((doc["pauses"]["by_kind"] or {}).get(kind))


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}%"


def _last_pause(doc: dict[str, Any]) -> str:
    lp = doc["last_pause"]
    return "-" if lp is None else f"{fmt_ms(lp['duration_ms'])} {lp['kind']} at {fmt_s(lp['t_s'])}"


def _top(table: dict[str, dict[str, Any]] | None, n: int = 3) -> str:
    if not table:
        return "-"
    items = list(table.items())
    text = ", ".join(f"{k} {v['count']}" for k, v in items[:n])
    return text + (f", +{len(items) - n} more" if len(items) > n else "")


def _heap_settings(settings: dict[str, float] | None) -> str:
    """The heap bounds the log states (-Xms/-Xmx, ZGC's Min/Max/Soft Max Capacity)."""
    if not settings:
        return "-"
    return " / ".join(fmt_mb(settings.get(k)) for k in ("heap_min_mb", "heap_max_mb", "heap_soft_max_mb"))


ROWS: list[tuple[str, Any]] = [
    ("format", lambda s, d: d["format"]),
    ("collector", lambda s, d: d["collector"] or "?"),
    ("JVM", lambda s, d: d["jvm_version"] or "?"),
    ("JVM runs in log", lambda s, d: str(d["jvm_runs"])),
    ("span", lambda s, d: fmt_s(d["span_s"])),
    ("pauses", lambda s, d: _count_total(d["pauses"]) if d["pauses"]["count"] is not None else "-"),
    ("pause p50", lambda s, d: fmt_ms(d["pauses"]["p50_ms"])),
    ("pause p99", lambda s, d: fmt_ms(d["pauses"]["p99_ms"])),
    ("pause max", lambda s, d: fmt_ms(d["pauses"]["max_ms"])),
    ("full GCs", lambda s, d: _kind(d, "full")),
    ("degenerated GCs", lambda s, d: _kind(d, "degenerated")),
    ("allocation stalls", lambda s, d: _count_total(d["stalls"])),
    ("relocation stalls", lambda s, d: _count_total(d["relocation_stalls"])),
    ("pacing delay", lambda s, d: fmt_ms(d["pacing"]["total_ms"]) if d["pacing"]["count"] else "0"),
    ("throughput (pauses only)", lambda s, d: _pct(d["throughput_pct"])),
    ("pauses + stalls + pacing", lambda s, d: _lost(d)),
    ("concurrent cycles", lambda s, d: _count_total(d["concurrent_cycles"])),
    ("alloc rate", lambda s, d: "-" if d["alloc_rate_mb_s"] is None else f"{fmt_mb(d['alloc_rate_mb_s'])}/s"),
    ("heap max used", lambda s, d: fmt_mb(d["heap_max_mb"]["used"])),
    ("heap max after GC", lambda s, d: fmt_mb(d["heap_max_mb"]["after_gc"])),
    ("heap max committed", lambda s, d: fmt_mb(d["heap_max_mb"]["committed"])),
    ("heap min / max / soft max", lambda s, d: _heap_settings(d["heap_settings_mb"])),
    ("young / old max used", lambda s, d: f"{fmt_mb(d['heap_max_mb']['young_used'])} / "
                                          f"{fmt_mb(d['heap_max_mb']['old_used'])}"),
    ("first / last event", lambda s, d: f"{fmt_s(d['first_event_s'])} / {fmt_s(d['last_event_s'])}"),
    ("last pause", lambda s, d: _last_pause(d)),
    ("causes", lambda s, d: _top(d["collections_by_cause"])),
    ("failures", lambda s, d: _top(d["failures"])),
    ("event types", lambda s, d: "-" if d["event_types"] is None else str(d["event_types"]["count"])),
]


def summary_columns(summaries: list[LogSummary]) -> tuple[list[str], list[list[str]]]:
    """(row labels, one column of cells per log): measures as rows, logs as columns."""
    docs = [s.to_json() for s in summaries]
    labels = [label for label, _ in ROWS]
    columns = [[fn(s, d) for _, fn in ROWS] for s, d in zip(summaries, docs, strict=True)]
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
