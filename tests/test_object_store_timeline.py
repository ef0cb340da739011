"""Specification: on an object store the app's first Timeline screen reads a short newest
page, and the rest of the history follows in the background, the same as read whole. On a
later open (the history kept in the log index) the first screen is the kept newest entries,
read with no commit's GET and without going through the whole listing, only while the log is
still the one they were computed from.

Every commit is a request on an object store, so the first page holds
:data:`ui.history_load.REMOTE_FIRST_PAGE` versions (down to just after a checkpoint), not a
whole window. The log of a streaming job's table of 700 commits (``bench/tablegen.py``, a
checkpoint every 100 versions) is uploaded to moto's S3 server on loopback.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from bench.tablegen import make_commits_table
from inspector.log import relist
from inspector.log.deltalog import DeltaLog
from inspector.log.index import LogIndex
from inspector.settings import Settings
from inspector.table.history import build_history
from ui import history_load
from ui.history_load import REMOTE_FIRST_PAGE, HistoryLoad

COMMITS = 700


@pytest.fixture(scope="module")
def log_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A streaming job's table's ``_delta_log`` alone (the Timeline reads no data file)."""
    made = tmp_path_factory.mktemp("timeline-s3")
    make_commits_table(str(made / "table"), COMMITS)
    shutil.copytree(made / "table" / "_delta_log", made / "log-only" / "_delta_log")
    return made / "log-only"


@pytest.fixture(scope="module")
def s3_log_uri(s3_server, log_only: Path) -> str:
    return s3_server.upload(log_only, "c700")


def test_the_first_page_on_an_object_store_is_short(s3_server, s3_log_uri):
    log = DeltaLog.open(s3_log_uri, storage_options=s3_server.options)

    load = HistoryLoad(log, Settings())

    versions = [e.version for e in load.entries]
    assert versions[-1] == COMMITS - 1 and not load.done
    assert REMOTE_FIRST_PAGE <= len(versions) < REMOTE_FIRST_PAGE + 100  # to a checkpoint


def test_the_rest_read_in_the_background_is_the_whole_history(s3_server, s3_log_uri):
    log = DeltaLog.open(s3_log_uri, storage_options=s3_server.options)
    load = HistoryLoad(log, Settings())

    load.start_background()
    whole = load.whole()

    fresh = DeltaLog.open(s3_log_uri, storage_options=s3_server.options)
    assert list(whole) == build_history(fresh, Settings())


def test_what_follows_the_background_reading_gets_the_whole_history_once_it_is_read(
    s3_server, s3_log_uri
):
    log = DeltaLog.open(s3_log_uri, storage_options=s3_server.options)
    load = HistoryLoad(log, Settings())
    given, finished = [], threading.Event()

    load.start_background(lambda whole: (given.append((load.done, whole)), finished.set()))

    assert finished.wait(timeout=300)
    [(done, whole)] = given
    assert done and whole == load.whole() and len(whole) == COMMITS


# --- A later open: the kept newest entries first


@pytest.fixture
def kept_newest(monkeypatch) -> int:
    """The newest entries kept apart: 100 here (a window of the Timeline in the app)."""
    monkeypatch.setattr(history_load, "KEPT_NEWEST", 100)
    return 100


@pytest.fixture
def classified(monkeypatch) -> list[int]:
    """One item per whole listing classified (instrumentation: the real classifier runs)."""
    made: list[int] = []
    real = relist.listing_of_columns

    def classifies(*args, **kwargs):  # type: ignore[no-untyped-def]
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(relist, "listing_of_columns", classifies)
    return made


def _open(s3_server, uri: str, index: LogIndex | None) -> tuple[DeltaLog, list[str]]:
    """The log opened (as the app's sidebar does), and the commit files it GETs from then on
    (instrumentation: every read still goes to the server)."""
    log = DeltaLog.open(uri, storage_options=s3_server.options, index=index)
    gets: list[str] = []
    read_many = log.storage.read_many

    def counted(paths):  # type: ignore[no-untyped-def]
        gets.extend(p for p in paths if p.endswith(".json"))
        return read_many(paths)

    log.storage.read_many = counted  # type: ignore[method-assign]
    return log, gets


def test_a_later_open_draws_the_kept_newest_entries_first_with_no_get_then_the_whole_kept_history(
    s3_server, log_only, tmp_path, kept_newest, classified
):
    uri = s3_server.upload(log_only, "c700-later")
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    whole = HistoryLoad(_open(s3_server, uri, index)[0], Settings()).whole()  # the first open

    classified.clear()
    log, gets = _open(s3_server, uri, index)
    later = HistoryLoad(log, Settings())

    assert not later.done and later.progress() == (kept_newest, None)
    assert later.entries == tuple(whole[-kept_newest:])
    assert later.known_versions()[-1] == COMMITS - 1 and later.has_commit(COMMITS - 1)
    assert (gets, classified) == ([], [])  # no GET, the whole listing not gone through
    later.start_background()
    assert later.whole() == tuple(whole) and later.done
    assert gets == []
    assert list(whole) == build_history(
        DeltaLog.open(uri, storage_options=s3_server.options), Settings()
    )


@pytest.mark.parametrize("change", ["log cleanup", "recreated", "kept page damaged"])
def test_the_kept_newest_entries_are_not_drawn_once_the_log_is_not_the_one_they_came_from(
    s3_server, log_only, tmp_path, kept_newest, change
):
    uri = s3_server.upload(log_only, f"c700-{change.replace(' ', '-')}")
    cache = tmp_path / "cache"
    index = LogIndex(str(cache), max_bytes=64 * 1024 * 1024)
    HistoryLoad(_open(s3_server, uri, index)[0], Settings()).whole()  # the first open
    if change == "log cleanup":  # the oldest commits expired (a checkpoint at 100 remains)
        for v in range(50):
            s3_server.delete(f"{uri}/_delta_log/{v:020d}.json")
    elif change == "recreated":  # commit 0 written again: another table at the same path
        first = f"{uri}/_delta_log/{0:020d}.json"
        s3_server.put(first, s3_server.read(first).replace(b'"WRITE"', b'"CREATE TABLE"'))
    else:
        (kept,) = cache.glob("*/result-historynewest.bin")
        kept.write_bytes(kept.read_bytes()[:-10])

    later = HistoryLoad(_open(s3_server, uri, index)[0], Settings())

    assert len(later.entries) != kept_newest  # the pager's newest page (or the whole, kept)
    fresh = build_history(DeltaLog.open(uri, storage_options=s3_server.options), Settings())
    assert list(later.whole()) == fresh


def test_a_whole_listing_listed_again_unchanged_is_not_gone_through_again_and_a_change_is_seen(
    s3_server, log_only, tmp_path, classified
):
    uri = s3_server.upload(log_only, "c700-relisted")
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    log = DeltaLog.open(uri, storage_options=s3_server.options, index=index)
    before = log.listing  # the whole folder's, recorded

    log.refresh()  # an app's rerun: the refresh's listing, then the whole one made again
    again = log.listing

    assert again is before and len(classified) == 1
    s3_server.delete(f"{uri}/_delta_log/{0:020d}.json")  # a log cleanup
    log.refresh()
    assert 0 not in log.listing.commits and len(classified) == 2
