"""End to end: ``streamlit run app.py`` on a loopback port, driven in headless Chromium.

Playwright cannot download browsers here, so it drives Debian's ``chromium``
(``/usr/bin/chromium``; ``./dev.sh test`` installs it). The server picks its own free
port (``--server.port 0``) and the test reads it from the server's output, so two runs
never race for a port. Without Chromium the test is skipped on a laptop and fails in CI.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

from inspector.desktop.server import stop_process
from tests.conftest import CORPUS, REPO

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
TABLE = CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta"
V0_FILE = "letter=a/part-00000-a08d296a-d2c5-4a99-bea9-afcea42ba2e9.c000.snappy.parquet"
V1_FILE = "letter=e/part-00000-847cf2d1-1247-4aa0-89ef-2f90c68ea51e.c000.snappy.parquet"
SERVING = re.compile(r"URL: (http://127\.0\.0\.1:\d+)")


@pytest.fixture
def server(tmp_path):
    """The app served by ``streamlit run`` on a port the OS picks; stopped after the test."""
    env = dict(
        os.environ,
        DELTA_INSPECTOR_RECENT_TABLES_FILE=str(tmp_path / "recent.json"),
        DELTA_INSPECTOR_DEMO_PATH=str(tmp_path / "demo"),
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.port",
            "0",
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        url = _served_url(proc, tmp_path / "server.log")
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=30) as resp:
            assert resp.status == 200
        yield url
    finally:
        stop_process(proc, timeout=15)


def _served_url(proc: subprocess.Popen, log_path: Path) -> str:
    """The URL streamlit prints once it listens; its output then goes on into ``log_path``."""
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if match := SERVING.search(line):
            threading.Thread(target=_drain, args=(proc.stdout, log_path), daemon=True).start()
            return match.group(1)
    pytest.fail(f"streamlit exited with {proc.wait()} before serving:\n{''.join(seen)}")


def _drain(stream, log_path: Path) -> None:
    with open(log_path, "a") as log:
        for line in stream:
            log.write(line)


@pytest.fixture
def browser():
    """Headless Debian Chromium driven by Playwright."""
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing: install Debian's chromium package (./dev.sh test does)."
        if os.environ.get("CI"):
            pytest.fail(message)  # CI must run the browser test, never skip it silently
        pytest.skip(message)
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


def test_a_link_opens_the_table_and_picking_a_version_shows_its_files(server, browser, tmp_path):
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
    page.screenshot(path=str(tmp_path / "version-0.png"), full_page=True)


def test_a_copied_address_reopens_the_same_page_and_pair_after_a_reload(server, browser):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(60_000)
    expect.set_options(timeout=60_000)
    page.goto(f"{server}/?table={quote(str(TABLE))}&version=1&view=diff&from=1&to=0")
    # The old ?view= link moves to the page's path, with the pair in the query string.
    expect(page).to_have_url(re.compile(r"/diff\?.*from=1.*to=0|/diff\?.*to=0.*from=1"))
    copied = page.url
    assert "view=" not in copied

    again = browser.new_page(viewport={"width": 1400, "height": 1000})
    again.goto(copied)  # a reload, or the address pasted into a ticket
    main = again.locator("[data-testid=stMain]")
    expect(main.get_by_text("Backwards: from the newer version to the older one")).to_be_visible()
    expect(main.get_by_role("combobox", name="From version")).to_have_value("1")
    expect(main.get_by_role("combobox", name="To version")).to_have_value("0")
    expect(again).to_have_url(copied)

    # Another page from the navigation: the table and version stay, the pair leaves the URL.
    sidebar = again.locator("[data-testid=stSidebar]")
    sidebar.get_by_test_id("stSidebarNavLink").filter(has_text=re.compile("Overview$")).click()
    expect(again).to_have_url(re.compile(r"/overview\?table=[^&]+&version=1$"))

    # A link in the page-path form opens its page directly.
    direct = browser.new_page(viewport={"width": 1400, "height": 1000})
    direct.goto(f"{server}/version?table={quote(str(TABLE))}&version=0")
    expect(direct.get_by_role("heading", name="Version 0 · WRITE")).to_be_visible()


@pytest.fixture
def warm_up_on(monkeypatch):
    """The app as users get it: Spark warms up when a page that reads rows opens."""
    monkeypatch.setenv("DELTA_INSPECTOR_SPARK_WARMUP", "true")


def test_preview_rows_do_not_wait_for_spark_when_it_warmed_up(
    warm_up_on, server, browser, tmp_path
):
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(240_000)
    expect.set_options(timeout=240_000)  # writing the demo table and a first JVM start
    page.goto(f"{server}/?view=preview")
    expect(page.get_by_role("heading", name="Preview", exact=True)).to_be_visible()

    # Nobody asked for rows yet, but the sidebar follows Spark from starting to running.
    sidebar = page.locator("[data-testid=stSidebar]")
    expect(sidebar).to_contain_text(re.compile(r"Spark \d+\.\d+\.\d+ running locally"))
    expect(sidebar).to_contain_text(re.compile(r"Delta Lake \d+\.\d+\.\d+ reads rows and commits"))

    page.get_by_role("button", name="Show rows").click()
    expect(page.locator("[data-testid=stDataFrame]").last).to_be_visible()
    expect(page.get_by_text(re.compile(r"Read version \d+: [\d,]+ rows"))).to_be_visible()
    expect(sidebar).to_contain_text("running locally")
    page.screenshot(path=str(tmp_path / "warm-up.png"), full_page=True)
