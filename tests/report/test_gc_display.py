"""`gc analyze` shows what stopped the application besides pauses (issue 12 item 9).

Real logs written by JDK 25: Shenandoah with 2 degenerated GCs and 214 ms of pacing
against 13 ms of pauses, generational ZGC with 12 allocation stalls and microsecond
pauses. Before the fix the terminal and HTML showed neither stalls, pacing nor
degenerated GCs, and ZGC's p50 read ``0.00`` ms.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest
from rich.console import Console

from jvmlab.gclog import analyze_paths
from jvmlab.report.gcrows import fmt_ms
from jvmlab.report.gcterm import render_gc
from jvmlab.report.html import write_gc_html

GCLOGS = Path(__file__).resolve().parents[1] / "data" / "gclogs"
SHENANDOAH = GCLOGS / "jdk25-shenandoah-details.log.gz"
ZGC = GCLOGS / "jdk25-zgc-details.log.gz"


def _terminal(paths: list[Path], width: int = 120) -> str:
    out = io.StringIO()
    render_gc(analyze_paths(paths), Console(file=out, width=width, color_system=None))
    return out.getvalue()


def _row(text: str, label: str) -> str:
    line = next(line for line in text.splitlines() if line.startswith(f"│ {label} "))
    return re.sub(r"\s+", " ", line)


def test_fmt_ms_picks_a_unit_that_fits() -> None:
    assert [fmt_ms(v) for v in (0.0, 0.0032, 0.85, 12.34, 19_600.0, None)] == [
        "0 ms", "3.2 µs", "850 µs", "12.3 ms", "19.6 s", "-"]


def test_terminal_shows_pacing_degenerated_and_stalls() -> None:
    (shen,) = analyze_paths([SHENANDOAH])
    (zgc,) = analyze_paths([ZGC])
    s, z = shen.to_json(), zgc.to_json()
    text = _terminal([SHENANDOAH, ZGC])
    degenerated = s["pauses"]["by_kind"]["degenerated"]
    assert degenerated["count"] == 2
    assert _row(text, "degenerated GCs").startswith(f"│ degenerated GCs │ 2 ({fmt_ms(degenerated['total_ms'])})")
    assert fmt_ms(s["pacing"]["total_ms"]) in _row(text, "pacing delay")
    assert f"│ {z['stalls']['count']} ({fmt_ms(z['stalls']['total_ms'])}) │" in _row(text, "allocation stalls")
    assert "full GCs" in text
    # Pacing (214 ms) held the application far longer than the pauses (13 ms): said in words.
    assert "pacing held allocating threads for 214 ms, more than all pauses" in re.sub(r"\s+", " ", text)


def test_zgc_microsecond_pauses_are_not_zero() -> None:
    text = _terminal([ZGC])
    p50 = _row(text, "pause p50")
    assert "0.00" not in p50 and "µs" in p50


def test_gc_html_has_heap_over_time_kind_table_and_stalls(tmp_path: Path) -> None:
    page = write_gc_html(analyze_paths([SHENANDOAH, ZGC]), tmp_path / "gc.html").read_text(encoding="utf-8")
    blocks = re.findall(r'<script type="application/json" data-plot="[^"]+">(.*?)</script>', page, re.S)
    titles = [json.loads(b)["layout"]["title"]["text"] for b in blocks]
    assert "Heap before (dotted) and after (solid) each collection" in titles
    assert "Allocation stalls and pacing over time" in titles
    hist = next(json.loads(b) for b in blocks if "pause durations" in json.loads(b)["layout"]["title"]["text"])
    assert hist["layout"]["xaxis"]["type"] == "log"
    assert "Pauses by kind, allocation stalls and pacing" in page
    assert "<td>degenerated</td>" in page and "<td>allocation stalls</td>" in page
    assert "<td>pacing (periods)</td>" in page


def test_gc_html_plots_come_from_the_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's views open each log no more often than the summary alone does (the plots'
    series are kept by the summary's pass), and the series hold every time-stamped pause of a
    small log."""
    from jvmlab.gclog import reader
    from jvmlab.gclog.points import view_of

    opened: list[str] = []
    real = reader._open_binary

    def counting(path: Path) -> Iterator[BinaryIO]:
        opened.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(reader, "_open_binary", counting)
    counts = []
    for with_points in (False, True):
        opened.clear()
        views = [view_of(s, with_points=with_points) for s in analyze_paths([SHENANDOAH, ZGC])]
        counts.append(sorted(opened))
    assert counts[0] == counts[1] and counts[0]
    for view in views:
        assert view.points is not None and not view.points.capped
        assert len(view.points.pause_ms) == view.doc["pauses"]["count"] > 0
    assert any(v.points and v.points.held_t_s for v in views)  # stalls or pacing
