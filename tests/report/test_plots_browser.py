"""The report's plots as drawn by a real headless Chromium (issue 12 item 7): no zeroline
through the first row, colours that agree with the verdicts, no clipped interval, titles
clear of the toolbar, readable log ticks, GC pauses on a log axis, compact table rows."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from jvmlab.analyze import Comparison
from jvmlab.report import plots
from jvmlab.report.html import write_html
from jvmlab.report.page import figure_entries, plotly_js
from jvmlab.report.summary import summarize
from jvmlab.report.synthetic import SyntheticSpec, generate
from jvmlab.store.sql import SqlStore

pytestmark = pytest.mark.browser
RED, GREEN = "rgb(201, 42, 42)", "rgb(43, 138, 62)"
LONG_FLAGS = ("-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch", "-XX:+UnlockDiagnosticVMOptions",
              "-XX:+PrintCompilation", "-XX:MaxGCPauseMillis=50", "-XX:ParallelGCThreads=2",
              "-Dsome.long.property=with-a-long-value", "-XX:+UseTransparentHugePages")

# gd: the plot element holding the figure whose JSON title starts with the given text.
FIND = """
const blocks = Array.from(document.querySelectorAll('script[data-plot]'));
const hit = blocks.find(b => (JSON.parse(b.textContent).layout.title || {}).text.startsWith(arguments[0]));
const gd = hit && document.getElementById(hit.getAttribute('data-plot'));
"""


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plots")
    store = SqlStore(f"sqlite:///{folder / 'lab.db'}")
    exp_id = generate(store, SyntheticSpec(dead_cell=True, thp_timeline=True, extra_flags=LONG_FLAGS))
    return write_html(summarize(store, exp_id), folder / "report.html")


def _open(driver, path: Path, width: int = 1280) -> None:
    driver.set_window_size(width, 900)
    driver.get(path.resolve().as_uri())


def _js(driver, body: str, *args):
    return driver.execute_script(FIND + body, *args)


def test_forest_has_no_zeroline_and_no_clipped_interval(browser, page: Path) -> None:
    _open(browser, page)
    for title in ("wall_s: ratio to", "cpu_s: ratio to", "Factorial effects"):
        zerolines = _js(browser, "return gd.querySelectorAll('.zerolinelayer path').length;", title)
        assert zerolines == 0, title
        lo, hi, xmin, xmax = _js(browser, """
            const xs = gd.data[0].x.filter(v => v !== null);
            const r = gd._fullLayout.xaxis.range;
            return [r[0], r[1], Math.min(...xs), Math.max(...xs)];""", title)
        assert lo < math.log10(xmin) and math.log10(xmax) < hi, (title, lo, hi, xmin, xmax)


def test_forest_colours_follow_the_metric_direction(browser, page: Path) -> None:
    _open(browser, page)
    # Every cell is slower than the baseline on wall_s: red where called, none green (the
    # verdicts say "slower"), though every interval excludes 1; the one the busy block's margin
    # withholds ("but not called a difference", the one interference model) is grey, as its verdict.
    fills = _js(browser, "return Array.from(gd.querySelectorAll('.scatterlayer .point'))"
                         ".map(p => getComputedStyle(p).fill);", "wall_s: ratio to")
    assert fills and GREEN not in fills and fills.count(RED) == len(fills) - 1 == 2, fills
    verdicts = browser.execute_script(
        "return Array.from(document.querySelectorAll('ul.verdicts li')).map(li => li.className);")
    assert verdicts.count("worse") == fills.count(RED) and "better" not in verdicts  # the dead cell: no ratio


def test_titles_are_clear_of_the_toolbar(browser, page: Path, save_screenshot) -> None:
    for width in (1280, 390):
        _open(browser, page, width)
        overlaps = browser.execute_script("""
            const out = [];
            for (const gd of document.querySelectorAll('.js-plotly-plot')) {
              const bar = gd.querySelector('.modebar');
              const card = gd.closest('.card');
              const titles = Array.from(card.querySelectorAll('.plot-title, .gtitle'));
              if (!bar) continue;
              const b = bar.getBoundingClientRect();
              for (const t of titles) {
                const r = t.getBoundingClientRect();
                if (r.width && r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom) {
                  out.push(t.textContent);
                }
              }
            }
            return out;""")
        assert overlaps == [], (width, overlaps)
    save_screenshot(browser, "report-phone-plots.png")
    browser.set_window_size(1280, 900)


def test_gc_pause_histogram_is_on_a_log_axis(browser, page: Path) -> None:
    _open(browser, page)
    kind, bars_with_pauses = _js(browser, """
        return [gd._fullLayout.xaxis.type,
                gd.data.map(t => t.y.filter(v => v > 0).length).reduce((a, b) => a + b, 0)];""",
                                 "GC pause durations")
    assert kind == "log"
    assert bars_with_pauses > 20  # spread over many bins, not one bar


def test_cells_table_rows_are_one_line(browser, page: Path, save_screenshot) -> None:
    _open(browser, page)
    heights, line = browser.execute_script("""
        const table = document.querySelector('#cells table');
        const rows = Array.from(table.querySelectorAll('tbody tr')).map(r => r.getBoundingClientRect().height);
        const cell = table.querySelector('tbody td');
        return [rows, parseFloat(getComputedStyle(cell).lineHeight) || 20];""")
    assert heights and max(heights) < 1.5 * line + 10, (heights, line)  # one line plus padding
    text = browser.execute_script("return document.body.textContent")
    assert "-Dsome.long.property=with-a-long-value" in text  # the flags are still in the page
    save_screenshot(browser, "report-desktop-after.png")


def test_log_ticks_are_full_numbers_in_order(browser, tmp_path: Path) -> None:
    comparisons = [Comparison(cell=f"c{k}", baseline="b", metric="wall_s", ratio=r, ci95=ci, rel_diff_pct=None,
                              p_value=0.001, p_adjusted=0.001, significant=True, n_cell=10, n_baseline=10,
                              paired=True)
                   for k, (r, ci) in enumerate([(0.12, (0.09, 0.15)), (0.25, (0.2, 0.3)), (0.9, (0.85, 0.95))])]
    entry = figure_entries([plots.forest("wall_s", comparisons, "b")], "t")[0]
    html = (f"<!DOCTYPE html><html><body><div id='t-0' style='width:700px'></div><script>{plotly_js()}</script>"
            f"<script>const f = {entry['json']}; Plotly.newPlot('t-0', f.data, f.layout);</script></body></html>")
    path = tmp_path / "ticks.html"
    path.write_text(html, encoding="utf-8")
    browser.get(path.resolve().as_uri())
    labels = browser.execute_script("return Array.from(document.querySelectorAll('.xtick text'))"
                                    ".map(t => t.textContent);")
    values = [float(v) for v in labels]
    assert len(values) >= 3 and values == sorted(values) and len(set(values)) == len(values), labels
    colors = json.loads(entry["json"])["data"][1]["marker"]["color"]
    assert colors == ["#2b8a3e"] * 3  # faster on a lower-is-better metric: better
