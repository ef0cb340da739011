"""End to end: ``streamlit run app.py`` on a loopback port, driven in headless Chromium.

Playwright cannot download browsers here, so it drives Debian's ``chromium``
(``/usr/bin/chromium``; ``.ci/run`` installs it).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from urllib.parse import quote

import pytest

from tests.conftest import CORPUS, REPO

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
TABLE = CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta"
V0_FILE = "letter=a/part-00000-a08d296a-d2c5-4a99-bea9-afcea42ba2e9.c000.snappy.parquet"
V1_FILE = "letter=e/part-00000-847cf2d1-1247-4aa0-89ef-2f90c68ea51e.c000.snappy.parquet"
SCREENSHOT = "/tmp/delta-inspector-browser.png"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    """The app served by ``streamlit run`` on a free loopback port; stopped after the test."""
    port = _free_port()
    env = dict(
        os.environ,
        DELTA_INSPECTOR_RECENT_TABLES_FILE=str(tmp_path / "recent.json"),
        DELTA_INSPECTOR_DEMO_PATH=str(tmp_path / "demo"),
    )
    log = open(tmp_path / "server.log", "wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_until_up(port, proc, tmp_path / "server.log")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _wait_until_up(port: int, proc: subprocess.Popen, log_path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with {proc.returncode}:\n{log_path.read_text()}")
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{port}/_stcore/health", timeout=2
            ) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"streamlit did not answer on port {port} within 90 s:\n{log_path.read_text()}")


@pytest.fixture
def browser():
    """Headless Debian Chromium driven by Playwright."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium package (.ci/run does).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
            ],
        )
        try:
            yield chromium
        finally:
            chromium.close()


def test_a_link_opens_the_table_and_picking_a_version_shows_its_files(server, browser):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(60_000)
    expect.set_options(timeout=60_000)  # the first run imports pandas and plotly
    page.goto(f"{server}/?table={quote(str(TABLE))}&version=1&view=version")

    files = page.locator("[data-testid=stCode]").first
    expect(files).to_contain_text(V1_FILE)
    expect(page.get_by_role("heading", name="Version 1 · WRITE")).to_be_visible()

    picker = page.locator("[data-testid=stSidebar] [data-testid=stSelectbox]").filter(
        has_text="Version ("
    )
    picker.click()
    page.get_by_role("option", name=re.compile(r"^v0 · WRITE")).click()

    expect(page.get_by_role("heading", name="Version 0 · WRITE")).to_be_visible()
    expect(files).to_contain_text(V0_FILE)
    expect(files).not_to_contain_text(V1_FILE)
    expect(page).to_have_url(re.compile(r"[?&]version=0(&|$)"))
    page.screenshot(path=SCREENSHOT, full_page=True)


@pytest.fixture
def warm_up_on(monkeypatch):
    """The app as users get it: Spark warms up when a page that reads rows opens."""
    monkeypatch.setenv("DELTA_INSPECTOR_SPARK_WARMUP", "true")


def test_preview_rows_do_not_wait_for_spark_when_it_warmed_up(warm_up_on, server, browser):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(240_000)
    expect.set_options(timeout=240_000)  # writing the demo table and a first JVM start
    page.goto(f"{server}/?view=preview")
    expect(page.get_by_role("heading", name="Preview", exact=True)).to_be_visible()

    # Nobody asked for rows yet, but the sidebar follows Spark from starting to running.
    sidebar = page.locator("[data-testid=stSidebar]")
    expect(sidebar).to_contain_text(re.compile(r"Spark \d+\.\d+\.\d+ running locally"))
    expect(sidebar).to_contain_text(
        "Delta's own reader is not installed, Delta Inspector reads the files itself"
    )

    page.get_by_role("button", name="Show rows").click()
    expect(page.locator("[data-testid=stDataFrame]").last).to_be_visible()
    expect(page.get_by_text(re.compile(r"Read version \d+: [\d,]+ rows"))).to_be_visible()
    expect(sidebar).to_contain_text("running locally")
    page.screenshot(path="/tmp/delta-inspector-warm-up.png", full_page=True)
