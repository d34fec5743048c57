"""The HTML reports in a real headless Chromium with the network off."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.gclog import analyze_paths
from jvmlab.report.html import write_gc_html, write_html
from jvmlab.report.summary import summarize

pytestmark = pytest.mark.browser
EVIL = "<script>alert(1)</script>"  # as in conftest.XSS_SPEC
GCLOGS = Path(__file__).resolve().parents[1] / "data" / "gclogs"


def _open(driver, path: Path) -> None:
    driver.get_log("browser")  # drop entries of earlier pages
    driver.get(path.resolve().as_uri())


def _errors(driver) -> list[dict]:
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def _plot_counts(driver) -> tuple[int, int, int]:
    return tuple(driver.execute_script(
        "return [document.querySelectorAll('script[data-plot]').length,"
        " document.querySelectorAll('.js-plotly-plot').length,"
        " document.querySelectorAll('.js-plotly-plot .main-svg').length]"))


def test_report_renders_every_plot_offline(browser, synthetic, tmp_path: Path, save_screenshot) -> None:
    store, exp_id, _ = synthetic
    page = write_html(summarize(store, exp_id), tmp_path / "report.html")
    _open(browser, page)
    blocks, plots, svgs = _plot_counts(browser)
    assert blocks >= 10 and plots == blocks and svgs >= plots
    # Points were drawn, not just axes.
    assert browser.execute_script("return document.querySelectorAll('.js-plotly-plot .point').length") > 100
    assert _errors(browser) == []
    assert save_screenshot(browser, "report-desktop.png").stat().st_size > 10_000


def test_report_fits_a_phone_screen(browser, synthetic, tmp_path: Path, save_screenshot) -> None:
    store, exp_id, _ = synthetic
    page = write_html(summarize(store, exp_id), tmp_path / "report.html")
    browser.set_window_size(390, 844)
    try:
        _open(browser, page)
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1  # wide tables scroll inside their own box, the page does not
        widths = browser.execute_script(
            "return Array.from(document.querySelectorAll('.js-plotly-plot')).map(e => e.getBoundingClientRect().width)")
        assert widths and max(widths) <= 390
        save_screenshot(browser, "report-phone.png")
    finally:
        browser.set_window_size(1280, 900)


@pytest.mark.jvm
def test_markup_shows_as_text_and_never_runs(browser, xss_experiment, tmp_path: Path, save_screenshot) -> None:
    store, exp_id, _ = xss_experiment
    page = write_html(summarize(store, exp_id), tmp_path / "xss.html")
    _open(browser, page)
    assert browser.execute_script("return document.readyState") == "complete"
    alert_open = True
    try:
        _ = browser.switch_to.alert.text
    except Exception:  # noqa: BLE001 - NoAlertPresentException: nothing ran
        alert_open = False
    assert not alert_open
    text = browser.execute_script("return document.body.textContent")
    assert f"{EVIL} spec" in text  # spec name, as text
    assert f"-Djvmlab.x={EVIL}" in text  # flag value
    assert f"jvmlab.x = {EVIL}" in text  # the JVM's output
    executable = browser.execute_script(
        "return Array.from(document.scripts).filter(s => s.type !== 'application/json')"
        ".filter(s => s.textContent.includes('alert(1)')).length")
    assert executable == 0
    blocks, plots, _ = _plot_counts(browser)
    assert blocks == plots > 0
    assert _errors(browser) == []
    save_screenshot(browser, "report-xss.png")


def test_gc_page_renders(browser, tmp_path: Path, save_screenshot) -> None:
    logs = [GCLOGS / "jdk17-g1-oneline.log", GCLOGS / "jdk25-g1-oneline.log", GCLOGS / "jdk17-zgc-details.log.gz"]
    page = write_gc_html(analyze_paths(logs), tmp_path / "gc.html")
    _open(browser, page)
    blocks, plots, svgs = _plot_counts(browser)
    assert blocks == plots >= 2 and svgs >= 2
    assert _errors(browser) == []
    save_screenshot(browser, "gc-report.png")
