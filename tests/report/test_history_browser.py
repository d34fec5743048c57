"""The timeline page of a series (`history --html`) in a real headless Chromium, network off:
each cell's series with its interval band, change points marked and labelled, hover with the
label and its figures, and markup in labels and cell names shown as text, never run."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.analyze.gate import parse_condition
from jvmlab.report.history_html import write_history_html
from jvmlab.results.history import load_history
from jvmlab.results.history_gate import gate_history
from jvmlab.store.sql import SqlStore
from series_data import seed_series

pytestmark = pytest.mark.browser
EVIL = "<img src=x onerror=alert(1)>"
LABELS = [f"c{i:02d}" for i in range(14)] + [f"{EVIL}14", "c15"]
CELLS = ["g1", "<script>alert(2)</script>zgc"]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("history")
    store = SqlStore(f"sqlite:///{folder / 'lab.db'}")
    seed_series(store, f"{EVIL} series", LABELS, CELLS, lambda i, c: 1.2 if i >= 9 and c == "g1" else 1.0)
    history = load_history(store, f"{EVIL} series")
    gate = gate_history(history, [parse_condition("wall_s > +3%")])
    return write_history_html(history, folder / "history.html", gate)


def _open(driver, path: Path) -> None:
    driver.get_log("browser")
    driver.get(path.resolve().as_uri())


FIND = """
const blocks = Array.from(document.querySelectorAll('script[data-plot]'));
const hit = blocks.find(b => JSON.parse(b.textContent).layout.title.text.startsWith(arguments[0]));
const gd = document.getElementById(hit.getAttribute('data-plot'));
"""


def test_each_cell_is_drawn_with_its_band_and_the_change_marked(browser, page: Path, save_screenshot) -> None:
    _open(browser, page)
    counts = browser.execute_script("return [document.querySelectorAll('script[data-plot]').length,"
                                    " document.querySelectorAll('.js-plotly-plot .main-svg').length]")
    assert counts[0] == 2 and counts[1] >= 2
    shapes, notes, fills, points = browser.execute_script(FIND + """
        return [gd._fullLayout.shapes.length, gd._fullLayout.annotations.map(a => a.text),
                gd._fullData.filter(t => t.fill === 'tonexty').length, gd.querySelectorAll('.point').length];""", "g1")
    assert shapes == 1 and fills == 1 and points >= len(LABELS)
    [note] = notes
    assert note.startswith("+20.") and "from c09" in note and "p=" in note
    other_shapes = browser.execute_script(FIND + "return gd._fullLayout.shapes.length;", "&lt;script&gt;")
    assert other_shapes == 0
    text = browser.execute_script("return document.body.textContent")
    assert "Gate: fail" in text and "wall_s: +20." in text
    assert [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
    save_screenshot(browser, "history-timeline.png")


def test_hover_shows_the_label_and_its_figures(browser, page: Path) -> None:
    _open(browser, page)
    hover = browser.execute_script(FIND + """
        Plotly.Fx.hover(gd, [{curveNumber: 2, pointNumber: 12}]);
        const label = gd.querySelector('.hoverlayer .hovertext');
        return label ? label.textContent : null;""", "g1")
    assert hover is not None and hover.startswith("c12") and "n=5" in hover
    assert "1.20 s [1.1" in hover or "1.19 s [1.1" in hover or "1.21 s [1.2" in hover, hover  # mean, interval
    evil = browser.execute_script(FIND + """
        Plotly.Fx.unhover(gd);
        Plotly.Fx.hover(gd, [{curveNumber: 2, pointNumber: 14}]);
        const label = gd.querySelector('.hoverlayer .hovertext');
        return label ? label.textContent : null;""", "g1")
    assert evil is not None and EVIL in evil  # the label as text


def test_markup_in_labels_cells_and_series_shows_as_text_and_never_runs(browser, page: Path) -> None:
    _open(browser, page)
    alert_open = True
    try:
        _ = browser.switch_to.alert.text
    except Exception:  # noqa: BLE001 - NoAlertPresentException: nothing ran
        alert_open = False
    assert not alert_open
    text = browser.execute_script("return document.body.textContent")
    assert f"{EVIL} series" in text and CELLS[1] in text
    injected = browser.execute_script(
        "return [document.querySelectorAll('img[src=\"x\"]').length,"
        " Array.from(document.scripts).filter(s => s.type !== 'application/json')"
        ".filter(s => s.textContent.includes('alert(')).length]")
    assert injected == [0, 0]
