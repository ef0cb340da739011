"""End to end in Chromium: the explain journey on the Preview page of the demo table.

Explain: type a filter, open "Which files does this filter read?", explain it: the phases
and the files Delta reads show. Then the rows: the table invites a row selection (blame).
Selecting a row in the grid (a canvas) is covered by AppTest (tests/test_app_answers.py);
clicking its selection box here is still to do.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from inspector.demo import write_demo_table
from tests.test_browser import browser, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

TIMEOUT = 240_000  # the first Spark start on a busy 2-CPU machine


def test_explain_journey_on_the_preview_page(server, browser, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    root = Path(write_demo_table(str(tmp_path / "orders")))
    page = browser.new_page(viewport={"width": 1400, "height": 1200})
    page.set_default_timeout(TIMEOUT)
    expect.set_options(timeout=TIMEOUT)
    main = page.locator("[data-testid=stMain]")

    def idle() -> None:
        expect(page.get_by_test_id("stApp")).to_have_attribute(
            "data-test-script-state", "notRunning"
        )

    try:
        page.goto(f"{server}/preview?table={quote(str(root))}")
        expect(main).to_contain_text("Preview")
        idle()
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
    finally:
        page.screenshot(path=str(tmp_path / "last.png"), full_page=True)
        page.close()
