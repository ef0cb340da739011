"""One truth on every page, in headless Chromium: a corpus table with deletion vectors and
column mapping, and a copied table (every file time reset by the copy).

Checks what a user sees: one time form (UTC, milliseconds) that Preview accepts back and
that moves the sidebar to the version it resolves to; the copy's one rule for times;
logical column names on Insights; the compatibility table's caveats; the Timeline's
version axis and change marks. (The rows of each commit are compared with
``history --json`` in ``tests/test_row_figures_agree.py``; the URL of each page's state is
another issue's.) Uses the server and browser of ``tests/test_browser.py``; no Spark.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from tests.conftest import copy_corpus_table
from tests.test_browser import browser, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

DV_MAPPED = "delta-golden/dv-with-columnmapping"  # deletion vectors + column mapping, partitioned
SHOWN_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC")


def _page(browser, url: str):  # noqa: F811
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(90_000)
    expect.set_options(timeout=90_000)  # the first run imports pandas and plotly
    page.goto(url)
    return page


def test_a_copied_deletion_vector_table_reads_the_same_on_every_page(
    server,  # noqa: F811
    browser,  # noqa: F811
    tmp_path,
):
    from playwright.sync_api import expect

    table = copy_corpus_table(DV_MAPPED, tmp_path / "copy")  # new file times: a copy
    link = f"{server}/?table={quote(str(table))}"
    page = _page(browser, f"{link}&view=timeline")
    main = page.locator("[data-testid=stMain]")
    sidebar = page.locator("[data-testid=stSidebar]")

    # The copy's one rule, said once; the sidebar shows the one time form.
    expect(main).to_contain_text("Every page shows each version's history timestamp")
    picker = sidebar.get_by_role("combobox", name=re.compile(r"^Version \("))
    expect(picker).to_have_value(SHOWN_TIME)
    # Marks for what changed besides rows, and a version axis beside the time axes.
    axis = main.locator("[data-testid=stButtonGroup]").filter(has_text="commitInfo")
    axis.get_by_text("version", exact=True).click()
    expect(main.locator(".js-plotly-plot").first).to_be_visible()
    expect(main.locator(".xtitle").first).to_have_text("version")

    # Preview accepts a time the sidebar shows and moves the sidebar to its version.
    label = picker.input_value()
    shown_version = int(re.search(r"v(\d+) ·", label).group(1))
    shown_time = SHOWN_TIME.search(label).group(0)
    page.goto(f"{link}&view=preview&version=0")
    main = page.locator("[data-testid=stMain]")
    main.get_by_text("Timestamp", exact=True).click()
    box = main.get_by_label("Timestamp (UTC unless you give a zone)")
    box.fill(shown_time)
    box.press("Enter")
    expect(main).to_contain_text(f"{shown_time} → version {shown_version}")
    expect(page).to_have_url(re.compile(rf"[?&]version={shown_version}(&|$)"))

    # Insights names columns logically; the physical names are a detail.
    page.goto(f"{link}&view=insights")
    caption = page.get_by_text("Columns with statistics (first file with stats)")
    expect(caption).to_be_visible()
    expect(caption).not_to_contain_text("col-")
    expect(page.get_by_text("Physical column names (column mapping)")).to_be_visible()

    # Overview: delta-rs reads it only with a caveat (to_pyarrow_table refuses it).
    page.goto(f"{link}&view=overview")
    expect(page.locator("[data-testid=stMain]")).to_contain_text("to_pyarrow_table refuses")
    page.screenshot(path=str(tmp_path / "overview.png"), full_page=True)


def test_the_history_table_is_scrolled_to_the_selected_version(
    server,  # noqa: F811
    browser,  # noqa: F811
    corpus,
):
    from playwright.sync_api import expect

    table = corpus / "delta-kernel-rs/cdf-table-with-cdc-and-dvs"
    page = _page(browser, f"{server}/timeline?table={quote(str(table))}&version=4")
    grid = page.locator("[class*=st-key-history_table_4_] .dvn-scroller")
    expect(grid).to_be_visible()
    # Version 4 is the 22nd row of 26, newest first: out of a 12-row view until scrolled.
    page.wait_for_function(
        "() => document.querySelector('[class*=st-key-history_table_4_] .dvn-scroller')"
        ".scrollTop > 0"
    )
    top, view = grid.evaluate("g => [g.scrollTop, g.clientHeight]")
    row = 21 * 35  # the selected row's top in the grid's body (rows of 35 px)
    assert top <= row and row + 35 <= top + view - 36  # in view, under the 36 px header
