"""End to end in Chromium: the explain and blame journeys on the Preview page of the demo table.

Explain: type a filter, open "Which files does this filter read?", explain it: the phases
and the files Delta reads show. Blame: show rows, select one in the table (its selection
box), trace it: the versions that wrote it show, each linked to the Version and Diff pages.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from inspector.demo import write_demo_table
from tests.test_browser import browser, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

TIMEOUT = 240_000  # the first Spark start on a busy 2-CPU machine


def test_explain_and_blame_journeys_on_the_preview_page(server, browser, tmp_path):  # noqa: F811
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
        grid = main.get_by_test_id("stDataFrame").last
        box = grid.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + 14, box["y"] + 35 + 17)  # the first row's selection box
        expect(main).to_contain_text("Who wrote this row (blame)")
        idle()
        main.get_by_role("button", name="Trace the row").click()
        expect(main).to_contain_text("versions (statistics pruned the rest)")
        page.screenshot(path=str(tmp_path / "blame.png"), full_page=True)
    finally:
        page.screenshot(path=str(tmp_path / "last.png"), full_page=True)
        page.close()
