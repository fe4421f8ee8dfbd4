"""One real `streamlit run app.py` server and one headless Chromium for all browser tests."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-quic"]
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _chromium_path() -> str | None:
    for candidate in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    return None  # Playwright's own download, if installed


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"browser tests must run in CI: {reason}")
    pytest.skip(reason)


@contextlib.contextmanager
def streamlit_server(port: int | None = None, base_path: str = ""):
    """A fresh `streamlit run app.py` on ``port`` (default: a free local port), under the URL path
    ``base_path`` (as a host such as Community Cloud may serve it); yields its URL.

    Giving the port of a server that has just stopped restarts the app at the same address.
    """
    port = port or _free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--server.baseUrlPath", base_path],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}" + (f"/{base_path}" if base_path else "")
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("streamlit did not start within 60 s")
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def server_url():
    with streamlit_server() as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed")
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=_chromium_path(), headless=True,
                                                 args=CHROMIUM_ARGS)
        except Exception as error:  # no browser on this machine
            _unavailable(f"no Chromium could be launched: {error}")
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    yield page
    context.close()


def wait_idle(page, timeout: float = 30_000) -> None:
    """Wait until the script run has finished (and a run has actually started before)."""
    page.wait_for_selector(IDLE, timeout=timeout)
    page.wait_for_timeout(150)
    page.wait_for_selector(IDLE, timeout=timeout)


def assert_no_exception(page) -> None:
    assert page.locator("[data-testid=stException]").count() == 0, page.locator(
        "[data-testid=stException]").first.inner_text()


def wait_for_chart(page, title: str, timeout: float = 15_000) -> None:
    """Wait until a Plotly chart whose title contains ``title`` is drawn."""
    page.wait_for_selector(f".js-plotly-plot .gtitle:has-text('{title}')", timeout=timeout)


def nudge_slider(page, label: str, key: str = "ArrowRight"):
    """Focus the slider labelled ``label`` and press an arrow key; returns the slider handle."""
    slider = page.locator("[data-testid=stSlider]", has_text=label).locator("input[type=range]").first
    slider.focus()
    slider.press(key)
    return slider


def open_section(page, name: str) -> None:
    """Click the section ``name`` in the row of a page's sections (a segmented control)."""
    page.locator("[data-testid=stButtonGroup] button").filter(
        has_text=re.compile(rf"^\s*{re.escape(name)}\s*$")).first.click()
