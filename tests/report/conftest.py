"""Report fixtures: seeded experiments in real SQLite stores, a real-JVM experiment whose
spec, flags and output carry markup, and a headless Chromium with the network off."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from jvmlab.report.synthetic import SyntheticSpec, generate
from jvmlab.store.sql import SqlStore

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
EVIL = "<script>alert(1)</script>"

XSS_SPEC = f'''name = "{EVIL} spec"
description = "description {EVIL}"

[workload]
command = ["{{java}}", "{{jvm_args}}", "-XshowSettings:properties", "-version"]

[jvms]
default = "default"

[factors.prop]
plain = "-Djvmlab.x=plain"
evil = "-Djvmlab.x={EVIL}"

[run]
invocations = 3
warmup = 0
timeout = "60s"
'''


@pytest.fixture(scope="session")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> tuple[SqlStore, int, Path]:
    """A seeded 4-cell experiment (2 JVMs x 2 GCs, 8 invocations each, one failure)."""
    db = tmp_path_factory.mktemp("synthetic") / "lab.db"
    store = SqlStore(f"sqlite:///{db}")
    return store, generate(store, SyntheticSpec()), db


@pytest.fixture(scope="session")
def xss_experiment(tmp_path_factory: pytest.TempPathFactory) -> tuple[SqlStore, int, Path]:
    """A real run (2 cells x 3 JVMs) whose spec name, a -D flag value and the JVM's own
    output (it prints its properties) contain a script tag."""
    folder = tmp_path_factory.mktemp("xss")
    (folder / "xss.toml").write_text(XSS_SPEC, encoding="utf-8")
    db = folder / "xss.db"
    proc = subprocess.run([sys.executable, "-m", "jvmlab", "run", "xss.toml", "--store", str(db), "-q"],
                          cwd=folder, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    store = SqlStore(f"sqlite:///{db}")
    return store, store.latest_experiment().id, db


def _driver(width: int = 1280):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", f"--user-data-dir={tempfile.mkdtemp(prefix='jvmlab-chrome-')}",
                "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
                f"--window-size={width},900"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        pytest.skip("headless Chromium not installed: apt-get install -y chromium chromium-driver")
    driver = _driver()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def save_screenshot():
    return _screenshot


def _screenshot(driver: object, name: str) -> Path:
    """Keep a full-page screenshot under test-artifacts/ (git-ignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")  # type: ignore[attr-defined]
    width = driver.execute_script("return window.innerWidth")  # type: ignore[attr-defined]
    driver.set_window_size(max(width, 360), min(int(height) + 100, 12000))  # type: ignore[attr-defined]
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))  # type: ignore[attr-defined]
    return path

