"""The HTML report: self-contained, escaped, bounded, and complete (no browser needed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jvmlab.cli.main import main
from jvmlab.errors import UserError
from jvmlab.gclog import analyze_paths
from jvmlab.model.documents import ProgressDocument
from jvmlab.report.html import render_html, write_gc_html, write_html
from jvmlab.report.page import script_json
from jvmlab.report.sections import report_context
from jvmlab.report.summary import summarize
from jvmlab.report.timelines import downsample
from jvmlab.results.load import pick_evenly

GCLOGS = Path(__file__).resolve().parents[1] / "data" / "gclogs"
FIGURE_BLOCK = re.compile(r'<script type="application/json" data-plot="([^"]+)">(.*?)</script>', re.S)


def figures(page: str) -> dict[str, dict]:
    return {fid: json.loads(body) for fid, body in FIGURE_BLOCK.findall(page)}


def test_script_json_cannot_close_its_script_block() -> None:
    value = {"name": "</script><script>alert(1)</script> & <!--", "n": float("nan")}
    text = script_json(value)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"name": value["name"], "n": None}


def test_downsample_keeps_extremes_and_bounds_points() -> None:
    t = [i * 0.01 for i in range(10_000)]
    v = [float(i % 97) for i in range(10_000)]
    v[4321] = 1e6
    t2, v2 = downsample(t, v, 200)
    assert len(t2) <= 200 and len(t2) == len(v2)
    assert max(v2) == 1e6 and min(v2) == 0.0
    assert t2 == sorted(t2)
    assert downsample([0.0, 1.0], [5.0, 6.0], 200) == ([0.0, 1.0], [5.0, 6.0])
    assert pick_evenly(list(range(100)), 5) == [0, 25, 50, 74, 99]


def test_warmup_table_counts_each_cells_stored_classes(synthetic) -> None:
    store, exp_id, _ = synthetic
    ok = [i for i in store.invocations(exp_id) if i.status == "ok"]
    docs = store.records([i.id for i in ok], ProgressDocument)
    names = {c.id: c.name for c in store.cells(exp_id)}
    expected: dict[str, dict[str, int]] = {}
    for inv in ok:
        klass = docs[inv.id].klass
        expected.setdefault(names[inv.cell_id], {}).setdefault(klass, 0)
        expected[names[inv.cell_id]][klass] += 1
    context = report_context(summarize(store, exp_id))
    classes = sorted({k for counts in expected.values() for k in counts})
    assert classes == ["flat", "warm-up"] and context["warmup_header"] == ["cell", *classes]
    assert {row[0]: dict(zip(classes, map(int, row[1:]), strict=True)) for row in context["warmup_rows"]} == {
        cell: {k: counts.get(k, 0) for k in classes} for cell, counts in expected.items()}


def test_report_has_every_section_and_works_offline(synthetic) -> None:
    store, exp_id, _ = synthetic
    page = render_html(summarize(store, exp_id))
    # Offline: no external scripts, styles or fonts; plotly inlined exactly once.
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)
    assert page.count("plotly.js v") == 1
    assert '<meta name="viewport"' in page
    # Verdicts come first, then warnings and the cells table.
    order = [page.index(f'id="{s}"') for s in ("verdicts", "warnings", "cells", "effects", "warmup", "timelines",
                                                 "failures", "provenance")]
    assert order == sorted(order)
    figs = figures(page)
    titles = [f["layout"]["title"]["text"] for f in figs.values()]
    for expected in ("wall_s: every invocation per cell", "wall_s: ratio to jdk17 gc=g1", "Factorial effects",
                     "Throughput over time", "Memory over time", "CPU by thread group", "GC pauses over time",
                     "GC pause durations"):
        assert any(t.startswith(expected) for t in titles), (expected, titles)
    # Every measured invocation of the baseline is in its distribution plot.
    dist = figs["m0-0"]["data"]
    strip = next(tr for tr in dist if tr["type"] == "scatter" and tr["name"] == "jdk17 gc=g1")
    baseline_cell = store.cells(exp_id)[0].id
    baseline_ids = {i.id for i in store.invocations(exp_id) if i.status == "ok" and i.cell_id == baseline_cell}
    assert set(strip["customdata"]) == baseline_ids
    # Changepoints are marked, the failure's output is shown, provenance is complete.
    assert any("changepoint" in tr["name"] for f in figs.values() for tr in f["data"] if "name" in tr)
    assert "Exception in thread main: boom" in page
    assert "jvmlab run synthetic.toml" in page and "-XX:+UseParallelGC" in page
    assert "[busy-machine]" in page and "hint: stop other work" in page


def test_large_cells_are_downsampled_and_say_so(tmp_path: Path) -> None:
    from jvmlab.report.synthetic import SyntheticSpec, generate
    from jvmlab.store.sql import SqlStore

    store = SqlStore(f"sqlite:///{tmp_path / 'big.db'}")
    exp_id = generate(store, SyntheticSpec(jvms=("jdk17",), invocations=9, samples=900, failures=0))
    page = render_html(summarize(store, exp_id))
    assert "at most 5 invocations per cell" in page and "downsampled to at most 400 points" in page
    rss = next(f for f in figures(page).values() if f["layout"]["title"]["text"].startswith("Memory"))
    assert all(len(tr["x"]) <= 400 for tr in rss["data"])
    assert len({tr["hovertemplate"].split("invocation ")[1].split(")")[0] for tr in rss["data"]}) == 2 * 5


def test_markup_from_spec_flags_and_output_is_escaped(xss_experiment) -> None:
    store, exp_id, _ = xss_experiment
    page = render_html(summarize(store, exp_id))
    body = page.split("<body>", 1)[1]
    scripts = re.findall(r"<script[^>]*>", body)
    assert scripts.count("<script>") == 2  # plotly.js and the figure bootstrap, nothing else
    assert "<script>alert(1)</script>" not in body
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert f"{escaped} spec" in body  # spec name
    assert f"-Djvmlab.x={escaped}" in body  # flag value (cells table, command lines, spec)
    assert f"jvmlab.x = {escaped}" in body  # the JVM's own output


def test_write_html_refuses_unwritable_paths(synthetic, tmp_path: Path) -> None:
    store, exp_id, _ = synthetic
    summary = summarize(store, exp_id)
    with pytest.raises(UserError, match="does not exist"):
        write_html(summary, tmp_path / "missing" / "r.html")
    with pytest.raises(UserError, match="is a folder"):
        write_html(summary, tmp_path)


def test_gc_html_from_real_logs(tmp_path: Path) -> None:
    logs = [GCLOGS / "jdk17-g1-oneline.log", GCLOGS / "jdk17-zgc-details.log.gz"]
    out = write_gc_html(analyze_paths(logs), tmp_path / "gc.html")
    page = out.read_text(encoding="utf-8")
    figs = figures(page)
    timeline = next(f for f in figs.values() if f["layout"]["title"]["text"] == "GC pauses over time")
    # The G1 log's pause count equals the points drawn (it is small enough not to be thinned).
    with open(logs[0], encoding="utf-8") as fh:
        pauses = sum(1 for line in fh if "Pause" in line and line.rstrip().endswith("ms"))
    g1 = next(tr for tr in timeline["data"] if tr["name"] == "jdk17-g1-oneline.log")
    assert len(g1["x"]) == pauses
    assert "ZGC" in page and "G1" in page


def test_report_cli_writes_html(synthetic, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, exp_id, db = synthetic
    out = tmp_path / "report.html"
    with pytest.raises(SystemExit) as done:
        main(["report", str(exp_id), "--store", str(db), "--html", str(out)])
    assert done.value.code == 0
    assert out.stat().st_size > 1_000_000  # plotly.js is inlined
    with pytest.raises(SystemExit) as done:
        main(["report", str(exp_id), "--store", str(db), "--html", str(tmp_path / "no" / "r.html")])
    assert done.value.code == 2
    assert "does not exist" in capsys.readouterr().err
