"""End to end in Chromium: the operator's journey on a copy of the demo table.

Timeline → select a version by clicking its mark on the chart → Preview with a bad filter
(the reason shows without a click) → Diff with rows → Health on the copy with a missing file
→ the recovery button → a restore plan → a wrong typed name ("does not match") → the right
name → the commit (the sidebar and header show the new latest version) → the Audit view
lists the attempt → the missing file is put back and the undo is committed (a new latest
version, and the Audit view shows the first restore undone).
Navigation goes through the sidebar so the session (and the restore result) is kept.
A screenshot of every step is saved under ``tmp_path``.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import pytest

from inspector.demo import write_demo_table
from inspector.log.deltalog import DeltaLog
from tests.test_browser import browser, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

TIMEOUT = 240_000  # the first Spark start on a busy 2-CPU machine


@pytest.fixture
def operator_mode(monkeypatch, tmp_path):
    """The server runs in operator mode, with its own audit log."""
    monkeypatch.setenv("DELTA_INSPECTOR_OPERATOR_MODE", "true")
    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.jsonl"))


@pytest.fixture
def page(browser, tmp_path):  # noqa: F811
    """A page whose last state is saved as ``last.png``, passed or failed."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        yield page
    finally:
        page.screenshot(path=str(tmp_path / "last.png"), full_page=True)


def test_the_operator_journey_from_timeline_to_undo(operator_mode, server, page, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    root = Path(write_demo_table(str(tmp_path / "orders")))
    latest = DeltaLog.open(str(root)).latest_version
    page.set_default_timeout(TIMEOUT)
    expect.set_options(timeout=TIMEOUT)
    shots = iter(range(1, 100))

    def shot(name: str) -> None:
        page.screenshot(path=str(tmp_path / f"{next(shots):02d}-{name}.png"), full_page=True)

    sidebar = page.locator("[data-testid=stSidebar]")
    main = page.locator("[data-testid=stMain]")

    def go(title: str) -> None:
        sidebar.get_by_test_id("stSidebarNavLink").filter(has_text=re.compile(f"{title}$")).click()

    def idle() -> None:
        """The app has finished its run: input typed now is not lost to a rerun."""
        expect(page.get_by_test_id("stApp")).to_have_attribute(
            "data-test-script-state", "notRunning"
        )

    # Timeline
    page.goto(f"{server}/?table={quote(str(root))}&view=timeline")
    expect(main.locator("[data-testid=stPlotlyChart]").first).to_be_visible()
    expect(main).to_contain_text(f"latest: v{latest}")
    expect(sidebar).to_contain_text(f"Version ({latest + 1} in the log)")
    shot("timeline")

    # Select a version by clicking its mark on the Timeline chart
    page.mouse.click(*_mark_position(page, latest - 1))
    expect(page).to_have_url(re.compile(rf"[?&]version={latest - 1}(&|$)"))
    idle()
    picker = sidebar.get_by_role("combobox", name=re.compile(r"^Version \("))
    expect(picker).to_have_value(re.compile(rf"^v{latest - 1} · "))
    expect(main).to_contain_text(f"selected (v{latest - 1})")  # the ring's legend entry
    shot("version-clicked-on-the-chart")

    # Preview with a bad filter: the reason is visible without a click
    go("Preview")
    expect(main.get_by_role("heading", name="Preview", exact=True)).to_be_visible()
    idle()
    where = main.get_by_label("Filter (optional SQL WHERE expression, evaluated by Spark)")
    where.fill("no_such_column > 1")
    where.press("Enter")
    idle()
    expect(where).to_have_value("no_such_column > 1")
    main.get_by_role("button", name="Show rows").click()
    error = main.locator("[data-testid=stAlertContentError]").first
    expect(error).to_be_visible()
    expect(error).to_contain_text("is not valid SQL for this table")
    # This run started Spark: the sidebar, drawn after the page, already says so
    expect(sidebar).to_contain_text(
        re.compile(
            r"Spark \d+\.\d+\S* running locally(?: \(started in \d+ s\))?; Delta Lake \d+\.\d+\S* reads rows"
        )
    )
    shot("preview-bad-filter")

    # Diff with rows
    go("Diff")
    main.get_by_role("tab", name="Rows").click()
    main.get_by_role("button", name="Compare rows").click()
    expect(main.locator("[data-testid=stDataFrame]:visible").first).to_be_visible()
    shot("diff-rows")

    # Health on the copy with a missing file of the newest version
    missing = root / DeltaLog.open(str(root)).commit(latest).adds[0].path
    kept = missing.read_bytes()
    missing.unlink()
    go("Health")
    main.get_by_role("button", name="Run check").click()
    recover = main.get_by_role("button", name=re.compile(r"Restore to the last consistent version"))
    expect(recover).to_be_visible()
    shot("health-missing-file")
    target = int(re.search(r"\(v(\d+)\)", recover.inner_text()).group(1))

    # The recovery button opens the Restore page pre-filled; plan it
    recover.click()
    expect(main.get_by_role("heading", name="Restore", exact=True)).to_be_visible()
    main.get_by_role("button", name="Plan restore").click()
    expect(main.get_by_text("Confirm", exact=True)).to_be_visible()
    idle()
    shot("restore-plan")

    # A wrong typed name: a visible reason
    name_box = main.get_by_label(re.compile(r"^Type the table name"))
    name_box.fill("not-the-table")
    name_box.press("Enter")
    expect(main.get_by_text("does not match").first).to_be_visible()
    shot("restore-wrong-name")

    # The right name and version
    label = main.locator("[data-testid=stTextInput]").filter(has_text="Type the table name")
    expected = re.search(r"Type the table name: (\S+)", label.inner_text()).group(1)
    name_box.fill(expected)
    name_box.press("Enter")
    version_box = main.get_by_label(re.compile(r"^Type the target version"))
    version_box.fill(str(target))
    version_box.press("Enter")
    reason = main.get_by_label(re.compile(r"^Reason"))
    if not reason.input_value():
        reason.fill("browser journey test")
    expect(main.get_by_text(re.compile(r"Matches")).first).to_be_visible()
    shot("restore-right-name")

    # The commit: the sidebar shows the new latest version
    _commit_restore(main, sidebar, target, committed=latest + 1)
    shot("restore-committed")

    # The Audit view lists the attempt: committed, from the latest to the target version
    go("Audit")
    expect(main.get_by_role("heading", name="Audit", exact=True)).to_be_visible()
    expect(main.get_by_text(re.compile(r"\d+ of \d+ attempts shown"))).to_be_visible()
    # The grid's accessible row holds its cells' text: status, from, to, committed version
    done = _grid_rows(main).filter(has_text="verified")
    expect(done).to_contain_text(f"verified{latest}{target}{latest + 1}")
    shot("audit")

    # The missing file is found in a backup and put back; the undo restores the latest
    # version before the restore, and commits a new latest version
    missing.write_bytes(kept)
    go("Restore")
    # Wait for the Restore page's run to end: a click during it would interrupt the run
    # before the page is recorded in the URL, and the next run would go back to Audit.
    expect(main.get_by_role("heading", name="Restore", exact=True)).to_be_visible()
    idle()
    undo = main.get_by_role("button", name=f"Undo: restore back to version {latest}")
    expect(undo).to_be_visible()
    undo.click()
    expect(main.get_by_text("Confirm", exact=True)).to_be_visible()
    idle()  # the planned undo's run has filled the form: typing now does not race it
    main.get_by_label(re.compile(r"^Type the table name")).fill(expected)
    main.get_by_label(re.compile(r"^Type the table name")).press("Enter")
    version_box = main.get_by_label(re.compile(r"^Type the target version"))
    version_box.fill(str(latest))
    version_box.press("Enter")
    expect(main.get_by_label(re.compile(r"^Reason"))).to_have_value(re.compile(r"^Undo of"))
    shot("undo-planned")
    _commit_restore(main, sidebar, latest, committed=latest + 2)
    assert DeltaLog.open(str(root)).latest_version == latest + 2
    shot("undo-committed")

    # The Audit view: the first restore is undone by the new version
    go("Audit")
    expect(main.get_by_text(re.compile(r"\d+ of \d+ attempts shown"))).to_be_visible()
    undone = _grid_rows(main).filter(has_text="undone")
    expect(undone).to_contain_text(f"undone{latest}{target}{latest + 1}{latest + 2}")
    expect(_grid_rows(main).filter(has_text="verified")).to_contain_text(
        f"verified{latest + 1}{latest}{latest + 2}"
    )
    shot("audit-after-undo")


def _commit_restore(main, sidebar, target: int, *, committed: int) -> None:
    """Commit the planned restore to ``target``; the page and the sidebar then show version
    ``committed`` as the latest."""
    from playwright.sync_api import expect

    commit = main.get_by_role("button", name=f"Commit restore to version {target}")
    expect(commit).to_be_enabled()
    commit.click()
    expect(main.get_by_text(re.compile(rf"Committed version {committed}")).first).to_be_visible()
    expect(main).to_contain_text(f"latest: v{committed}")
    expect(sidebar).to_contain_text(f"Version ({committed + 1} in the log)")


def _mark_position(page, version: int) -> tuple[float, float]:
    """Where, on the page, the Timeline chart draws the mark of ``version`` (its y value).

    Plotly catches clicks on its drag layer and picks the closest point, so the test
    clicks at the mark's centre, computed from the chart's own axes.
    """
    return tuple(
        page.evaluate(
            """(version) => {
                const gd = document.querySelector("[data-testid=stPlotlyChart] .js-plotly-plot");
                const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
                const box = gd.querySelector(".main-svg").getBoundingClientRect();
                for (const trace of gd.calcdata) {
                    if (trace[0].trace.hoverinfo === "skip") continue;  // the rings
                    for (const point of trace) {
                        if (point.y === version) {
                            return [box.left + xa._offset + xa.c2p(point.x),
                                    box.top + ya._offset + ya.c2p(point.y)];
                        }
                    }
                }
                throw new Error("no mark for version " + version);
            }""",
            version,
        )
    )


def _grid_rows(main):
    """The data rows of the visible grid (its accessible table; the header row is not selectable)."""
    grid = main.locator("[data-testid=stDataFrame]:visible").first
    return grid.locator("[role=row][aria-selected]")
