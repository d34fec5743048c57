"""GC tables read the one metric registry, and the GC page renders from records alone.

Real logs written by JDK 25 (Shenandoah with pacing, generational ZGC with stalls), copied
to a temporary folder so the test can delete them before rendering.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

from rich.console import Console

from jvmlab import metrics
from jvmlab.gclog import analyze_paths
from jvmlab.gclog.compare import METRICS as COMPARED
from jvmlab.gclog.compare import compare_sets
from jvmlab.gclog.points import view_of, view_of_stored
from jvmlab.report import gccompare, gcrows
from jvmlab.report.gcpage import gc_context
from jvmlab.report.gcterm import render_gc
from jvmlab.report.page import render_page

GCLOGS = Path(__file__).resolve().parents[1] / "data" / "gclogs"
SHENANDOAH = GCLOGS / "jdk25-shenandoah-details.log.gz"
ZGC = GCLOGS / "jdk25-zgc-details.log.gz"


def _plots(page: str) -> dict[str, dict]:
    blocks = re.findall(r'<script type="application/json" data-plot="[^"]+">(.*?)</script>', page, re.S)
    return {json.loads(b)["layout"]["title"]["text"]: json.loads(b) for b in blocks}


def test_gc_page_renders_after_the_logs_are_deleted(tmp_path: Path) -> None:
    logs = [Path(shutil.copy(p, tmp_path / p.name)) for p in (SHENANDOAH, ZGC)]
    views = [view_of(s) for s in analyze_paths(logs)]  # the analyzer reads the files once
    for log in logs:
        log.unlink()
    page = render_page("gc.html.j2", gc_context(views))
    plots = _plots(page)
    assert "Heap before (dotted) and after (solid) each collection" in plots
    assert "Allocation stalls and pacing over time" in plots
    pauses = sum(len(t["x"]) for title, p in plots.items() if "pause durations" in title for t in p["data"])
    assert pauses > 0
    assert "<td>degenerated</td>" in page and "pauses + stalls + pacing" in page
    z = views[1].doc
    assert metrics.format_duration_ms(z["pauses"]["p50_ms"]) in page


def test_gc_page_renders_from_what_the_store_keeps(tmp_path: Path) -> None:
    (summary,) = analyze_paths([SHENANDOAH])
    doc = json.loads(json.dumps(summary.to_json(), default=str))  # as documents["gc"] is stored
    full = view_of(summary)
    stored = view_of_stored("invocation 7 (block 0)", doc, {
        "gc.pause_ms": (full.points.pause_t_s, full.points.pause_ms),
        "gc.heap_after_mb": (full.points.heap_t_s, full.points.heap_after_mb)})
    page = render_page("gc.html.j2", gc_context([stored]))
    assert "invocation 7 (block 0)" in page and "Pauses by kind" in page
    assert "GC pause durations (log axis)" in _plots(page)
    bare = render_page("gc.html.j2", gc_context([view_of_stored("inv 8", doc)]))
    assert "inv 8: no event series kept; tables only" in bare


def test_every_gc_table_row_and_compared_metric_is_registered() -> None:
    for key, _ in gcrows.ROWS:
        if key.startswith("gc."):
            assert key in metrics.REGISTRY, key
    for m in COMPARED:  # labels, units and directions of `gc compare` are the registry's
        reg = metrics.get(f"gc.{m.key}")
        better = None if reg.neutral else "lower" if reg.lower_is_better else "higher"
        assert (m.label, m.unit, m.better) == (reg.title, reg.unit, better), m.key


def test_terminal_rows_take_registry_labels_and_compact_format() -> None:
    out = io.StringIO()
    render_gc(analyze_paths([ZGC]), Console(file=out, width=140, color_system=None))
    text = out.getvalue()
    for name in ("gc.pause_p99_ms", "gc.throughput_pct", "gc.heap_max_committed_mb", "gc.span_s"):
        assert f"│ {metrics.get(name).title} " in text, name
    labels, _ = gcrows.summary_columns([view_of(s, with_points=False) for s in analyze_paths([ZGC])])
    assert "log span" in labels and "span" not in labels


def test_gc_compare_rows_format_by_the_registry() -> None:
    docs_a = [s.to_json() for s in analyze_paths([SHENANDOAH])]
    docs_b = [s.to_json() for s in analyze_paths([ZGC])]
    comparisons = compare_sets(docs_a, docs_b, seed=1)
    rows = {row[0]: row for row in gccompare.rows(comparisons)}
    p99 = next(c for c in comparisons if c.metric == "pause_p99_ms")
    assert rows["pause p99"][1] == f"{metrics.get('gc.pause_p99_ms').compact(p99.mean_a)} (n=1)"
    assert "µs" in rows["pause p99"][2]  # generational ZGC pauses are sub-millisecond


def test_formatter_styles() -> None:
    assert metrics.get("gc.pause_max_ms").compact(0.85) == "850 µs"
    assert metrics.get("gc.pause_max_ms").format(0.85) == "0.85 ms"  # experiment tables unchanged
    assert metrics.get("gc.heap_max_used_mb").compact(2048.0) == "2 GB"
    assert metrics.get("gc.alloc_rate_mb_s").compact(None) == "-"
    assert metrics.get("gc.throughput_pct").compact(99.123) == "99.12%"
