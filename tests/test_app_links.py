"""A link reopens the same view: each page's state is in its URL (AppTest).

Every test opens a link, changes what a user would change, then opens the URL the app
wrote in a new session (a reload, or the link pasted into a ticket) and sees the same.
AppTest keeps the query string but not the path, so the copy names its page by ``view=``,
the older link form the app redirects to the page's path.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import CORPUS, run_app, shown_page

TABLE = CORPUS / "delta-kernel-rs" / "cdf-table-with-cdc-and-dvs"  # versions 0 to 25


@pytest.fixture
def new_session(monkeypatch, tmp_path):
    """Opens a link in a new session: no exception, no error shown."""

    def open_link(**params: str) -> AppTest:
        return run_app(monkeypatch, tmp_path, **params)

    return open_link


def _latest_commit_time() -> str:
    """The newest commit's time (its file's), as a user would type it."""
    newest = max((TABLE / "_delta_log").glob("*.json"))
    moment = datetime.fromtimestamp(newest.stat().st_mtime, UTC)
    return moment.isoformat(timespec="milliseconds")


def reopened(at: AppTest, new_session) -> AppTest:
    """The URL ``at`` shows, opened in a new session."""
    return new_session(**dict(at.query_params), view=shown_page(at))


def test_a_link_to_a_diff_reopens_the_same_pair(new_session):
    at = new_session(table=str(TABLE), version="20", view="diff", **{"from": "3", "to": "7"})
    assert at.selectbox(key="diff_from_20").value == 3
    assert at.selectbox(key="diff_to_20").value == 7

    at.selectbox(key="diff_from_20").set_value(5).run()
    assert at.query_params["from"] == "5" and at.query_params["to"] == "7"

    again = reopened(at, new_session)
    assert shown_page(again) == "diff"
    assert again.selectbox(key="diff_from_20").value == 5
    assert again.selectbox(key="diff_to_20").value == 7


def test_a_link_to_changes_reopens_the_same_range_and_filter(new_session, spark):
    # The reopened link reads its feed on Spark at once (no second click): a Spark test.
    at = new_session(table=str(TABLE), version="20", view="changes")
    at.selectbox(key="cdf_from_20").set_value(10).run()
    at.text_input(key="cdf_where").input("_change_type = 'delete'").run()
    assert at.query_params["from"] == "10" and at.query_params["to"] == "20"

    again = reopened(at, new_session)
    assert shown_page(again) == "changes"
    assert again.selectbox(key="cdf_from_20").value == 10
    assert again.selectbox(key="cdf_to_20").value == 20
    assert again.text_input(key="cdf_where").value == "_change_type = 'delete'"


@pytest.mark.parametrize("by", ["Version", "Timestamp"])
def test_a_link_to_a_preview_reopens_the_same_version_or_timestamp_and_filter(new_session, by):
    at = new_session(table=str(TABLE), version="20", view="preview")
    if by == "Version":
        at.selectbox(key="preview_version_20").set_value(4).run()
    else:
        at.radio(key="preview_by").set_value("Timestamp").run()
        at.text_input(key="preview_timestamp").input(_latest_commit_time()).run()
    at.text_input(key="preview_where").input("id > 3").run()

    again = reopened(at, new_session)
    assert shown_page(again) == "preview"
    assert again.radio(key="preview_by").value == by
    if by == "Version":
        assert again.selectbox(key="preview_version_20").value == 4
    else:
        assert again.text_input(key="preview_timestamp").value == _latest_commit_time()
    assert again.text_input(key="preview_where").value == "id > 3"


def test_a_page_s_state_leaves_the_url_with_the_page(new_session):
    at = new_session(table=str(TABLE), version="20", view="diff")
    assert "from" in at.query_params

    at.query_params["view"] = "overview"  # a link to another page
    at.run()

    assert shown_page(at) == "overview"
    assert "from" not in at.query_params and "to" not in at.query_params
