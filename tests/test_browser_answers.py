"""End to end in Chromium: the explain and blame journeys on the Preview page of the demo table.

Explain: type a filter, open "Which files does this filter read?", explain it: the phases
and the files Delta reads show. Blame: show the rows of a filter, click the first row's
selection box in the grid (a canvas: clicked where Streamlit's own tests click it, the
row-marker column, 30 px wide, rows 35 px high under a 35 px header), trace the row: the
versions that wrote it show, and the address bar keeps the filter.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest

from inspector.demo import write_demo_table
from tests.test_browser import browser, server  # noqa: F401  (fixtures)
from ui.pages.preview_answers import ROWS_KEY

pytestmark = pytest.mark.browser

TIMEOUT = 600_000  # the first Spark start, then a read, on a busy 2-CPU machine
#: The middle of the first data row's selection box, from the grid's top left corner.
FIRST_ROW_MARKER = {"x": 15, "y": 35 + 35 / 2}


@contextmanager
def _preview_page(app_url, chromium, tmp_path, link: str = ""):  # noqa: ANN001, ANN202
    """The demo table's Preview page of the app at ``app_url``, opened at ``link`` (more
    query parameters) in a page of the app's size: the page, its main area and a wait for
    the script. On the way out the last state is screenshot and the page closed."""
    from playwright.sync_api import expect

    root = Path(write_demo_table(str(tmp_path / "orders")))
    page = chromium.new_page(viewport={"width": 1400, "height": 1200})
    page.set_default_timeout(TIMEOUT)
    expect.set_options(timeout=TIMEOUT)
    main = page.locator("[data-testid=stMain]")

    def idle() -> None:
        expect(page.get_by_test_id("stApp")).to_have_attribute(
            "data-test-script-state", "notRunning"
        )

    try:
        page.goto(f"{app_url}/preview?table={quote(str(root))}{link}")
        expect(main).to_contain_text("Preview")
        idle()
        yield page, main, idle
    finally:
        page.screenshot(path=str(tmp_path / "last.png"), full_page=True)
        page.close()


def test_explain_journey_on_the_preview_page(server, browser, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    with _preview_page(server, browser, tmp_path) as (page, main, idle):
        # Explain: which files a filter reads
        where = main.get_by_label("Filter (optional SQL WHERE expression, evaluated by Spark)")
        where.fill("region = 'EU'")
        where.press("Enter")
        idle()
        main.get_by_text("Which files does this filter read? (explain)").click()
        main.get_by_role("button", name="Explain the read").click()
        expect(main).to_contain_text("Read by Delta")
        expect(main).to_contain_text("After partition pruning")
        page.screenshot(path=str(tmp_path / "explain.png"), full_page=True)
        idle()

        # Blame: show rows, select the first, trace it
        main.get_by_role("button", name="Show rows").click()
        expect(main).to_contain_text("Select a row in the table")
        idle()


def test_blame_journey_on_the_preview_page(server, browser, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    with _preview_page(server, browser, tmp_path, "&filter=order_id%20%3D%20380") as (
        page,
        main,
        idle,
    ):
        main.get_by_role("button", name="Show rows").click()
        expect(main).to_contain_text("Select a row in the table")
        idle()
        grid = main.locator(f".st-key-{ROWS_KEY}").get_by_test_id("stDataFrame")
        expect(grid.locator("canvas").first).to_be_visible()
        grid.click(position=FIRST_ROW_MARKER)
        expect(main).to_contain_text("Who wrote this row (blame)")
        idle()
        traced = main.get_by_label("Rows to trace (SQL filter, parsed by Spark)")
        expect(traced).to_have_value(re.compile("`order_id` = 380"))
        main.get_by_role("button", name="Trace the row").click()
        expect(main).to_contain_text("matched by the filter alone (no row tracking)")
        expect(main).to_contain_text("row 1")
        idle()
        assert "filter=order_id" in page.url  # the address reopens this preview
        page.screenshot(path=str(tmp_path / "blame.png"), full_page=True)
