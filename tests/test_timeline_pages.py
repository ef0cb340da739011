"""The Timeline of a long log (AppTest): the newest page first, older windows read on demand.

A streaming job's log of 5,000 commits (``bench/tablegen.py``, a checkpoint every 100
versions): the first screen is drawn from the newest 2,000-odd versions; a link to an old
version, or the Older button, reads the pages its window needs; the sidebar offers every
version once the log is listed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from bench.tablegen import make_commits_table
from inspector.settings import Settings
from tests.conftest import run_app
from ui.history_load import HistoryLoad
from ui.tables import open_table

APP = str(Path(__file__).resolve().parent.parent / "app.py")
COMMITS = 5_000


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = str(tmp_path_factory.mktemp("timeline-pages") / "c5000")
    make_commits_table(root, COMMITS)
    return root


def _timeline(monkeypatch, tmp_path, **params: str) -> AppTest:
    return run_app(monkeypatch, tmp_path, timeout=300, view="timeline", **params)


def _drawn(at: AppTest) -> list[int]:
    return list(next(d.value for d in at.dataframe if "operation" in d.value.columns)["version"])


def test_the_first_screen_draws_the_newest_versions(long_log, monkeypatch, tmp_path):
    at = _timeline(monkeypatch, tmp_path, table=long_log)

    assert _drawn(at) == list(range(COMMITS - 1, COMMITS - 2001, -1))
    assert at.query_params["version"] == str(COMMITS - 1)


def test_a_link_to_an_old_version_draws_the_window_that_holds_it(long_log, monkeypatch, tmp_path):
    at = _timeline(monkeypatch, tmp_path, table=long_log, version="10")

    # Windows of 2,000 counted from the newest: the one of versions 999..0, the history
    # table holding all of it, scrolled in the browser to the selected version.
    assert _drawn(at) == list(range(999, -1, -1))
    assert at.selectbox(key="version_select").value == 10
    assert at.query_params["window"] == "2"


def test_older_windows_are_read_when_the_user_moves_to_them(long_log, monkeypatch, tmp_path):
    at = _timeline(monkeypatch, tmp_path, table=long_log)

    at.button(key="timeline_older").click().run()
    assert _drawn(at) == list(range(2999, 999, -1))
    at.button(key="timeline_older").click().run()

    assert not at.exception
    assert _drawn(at) == list(range(999, -1, -1))
    assert at.button(key="timeline_older").disabled
    assert at.query_params["version"] == str(COMMITS - 1)  # paging selects nothing


def test_the_history_read_in_pages_starts_with_the_newest_and_ends_whole(long_log):
    log = open_table(long_log, Settings()).log
    load = HistoryLoad(log, Settings(), size=1000)

    assert load.entries[-1].version == COMMITS - 1 and not load.done
    assert load.known_versions()[-1] == COMMITS - 1
    assert load.progress() == (len(load.entries), None)  # the log is not listed yet

    assert [e.version for e in load.whole()] == list(range(COMMITS))
    assert load.all_versions() == tuple(range(COMMITS)) and load.done
