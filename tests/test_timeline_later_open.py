"""The Timeline on a later open: the first screen draws the whole kept history at once (a
folder's long one after the newest page), without waiting for the retention band, and a long
whole history is left out of the cyclic collector's walks.

The band is a pass over every commit's removes (seconds for 100,000 commits), worked out in a
background thread; a history longer than one window is drawn before it (AppTest). The tables
are streaming jobs' logs (``bench/tablegen.py``); the band's work waits for the test's
go-ahead, so that the screen drawn before it is seen deterministically.
"""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from bench.tablegen import make_commits_table
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table import open_table
from inspector.table.history import HistoryPager, build_history
from tests.conftest import run_app
from ui import history_load
from ui.history_load import HistoryLoad
from ui.pages import timeline_retention
from ui.pages.timeline_frame import WINDOW

COMMITS = WINDOW + 100


def _figure(at: AppTest) -> dict:
    figure: dict = json.loads(at.get("plotly_chart")[0].proto.spec)
    return figure


def _band_names(at: AppTest) -> set[str]:
    names = {t.get("name") or "" for t in _figure(at)["data"]}
    return {n for n in names if n.startswith("retention: ")}


def _pending(at: AppTest) -> bool:
    return any(timeline_retention.PENDING in c.value for c in at.caption)


@pytest.fixture
def gated_band(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The band's work (the real one) starts when the given event is set (at the latest
    when the test ends)."""
    go, work = threading.Event(), timeline_retention.retention_runs

    def gated(*args: object) -> timeline_retention.Runs:
        go.wait()
        return work(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(timeline_retention, "retention_runs", gated)
    yield go
    go.set()


def test_a_later_open_draws_the_kept_history_first_and_the_retention_band_once_worked_out(
    monkeypatch, tmp_path, gated_band
):
    root = str(tmp_path / "c2100")
    make_commits_table(root, COMMITS)
    monkeypatch.setenv("DELTA_INSPECTOR_LOG_INDEX_FOLDER", str(tmp_path / "log-index"))
    settings = Settings.from_env()
    build_history(open_table(root, settings).log, settings)  # a first open kept it

    at = run_app(monkeypatch, tmp_path, timeout=300, view="timeline", table=root)

    assert not at.get("progress")  # nothing left to read: the kept history is whole
    assert any(f"{COMMITS:,} of {COMMITS:,} versions shown ·" in c.value for c in at.caption)
    assert _pending(at) and not _band_names(at) and not _figure(at)["layout"].get("shapes")

    gated_band.set()
    for work in [t for t in threading.enumerate() if t.name == "retention-band"]:
        work.join()
    at.run()

    assert not at.exception and not _pending(at)
    assert _band_names(at) and _figure(at)["layout"].get("shapes")


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """The collector as a test found it: what a test froze goes back to its generations."""
    yield
    gc.unfreeze()


def test_a_long_history_read_whole_is_left_out_of_the_collectors_walks(
    monkeypatch, tmp_path, unfrozen
):
    root = str(tmp_path / "c300")
    make_commits_table(root, 300)
    monkeypatch.setattr(history_load, "FREEZE_FROM", 300)  # "long": 300 versions here
    frozen = gc.get_freeze_count()

    load = HistoryLoad(DeltaLog.open(root), Settings(), size=100, first=100)

    assert not load.done and gc.get_freeze_count() == frozen  # a page is not the history
    newest = load.entries[-1]
    assert any(o is newest for o in gc.get_objects())

    whole = load.whole()

    assert len(whole) == 300 and gc.get_freeze_count() > frozen + 300
    assert not any(o is newest for o in gc.get_objects())  # no full collection walks it
    assert list(whole) == build_history(DeltaLog.open(root), Settings())


@pytest.fixture
def long_folder(monkeypatch, tmp_path) -> tuple[str, Settings]:
    """A 300-commit table in a folder, "long" (NEWEST_FIRST_FROM: 200 versions here), and
    settings with a log index of its own."""
    root = str(tmp_path / "c300")
    make_commits_table(root, 300)
    monkeypatch.setenv("DELTA_INSPECTOR_LOG_INDEX_FOLDER", str(tmp_path / "log-index"))
    monkeypatch.setattr(history_load, "NEWEST_FIRST_FROM", 200)
    return root, Settings.from_env()


def test_a_long_kept_history_of_a_folder_is_read_after_the_newest_page_not_before_it(
    long_folder, monkeypatch
):
    root, settings = long_folder
    whole = build_history(open_table(root, settings).log, settings)  # a first open kept it

    load = HistoryLoad(open_table(root, settings).log, settings, size=100)

    assert not load.done and load.entries == tuple(whole[-100:])  # the newest page, afresh
    monkeypatch.setattr(HistoryPager, "_read_next", _never)  # no older page is read afresh
    assert load.whole() == tuple(whole)  # the kept whole history, in one step


def test_a_long_folder_log_opened_again_draws_its_kept_newest_page_then_the_kept_history(
    long_folder, monkeypatch
):
    root, settings = long_folder
    monkeypatch.setattr(history_load, "KEPT_NEWEST", 50)
    whole = HistoryLoad(open_table(root, settings).log, settings, size=100).whole()

    monkeypatch.setattr(HistoryPager, "_read_newest", _never)  # nothing is read afresh
    monkeypatch.setattr(HistoryPager, "_read_next", _never)
    load = HistoryLoad(open_table(root, settings).log, settings, size=100)

    assert not load.done and load.entries == whole[-50:]  # the kept newest page
    assert load.whole() == whole  # then the kept whole history, in one step


def _never(*_: object) -> None:
    raise AssertionError("an older page was read, not the kept whole history")
