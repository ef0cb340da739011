"""A table in a local folder, opened again, is listed as an object store's is: the first page
and from just before the newest recorded commit are stat'ed, the rest comes from the listing
record in the log index. A folder's names cost no ``stat``, so every name is compared with the
record too: a commit gone from the middle of the log, a recreated table or a cleaned-up log
makes it list whole again, and the answers equal those read without the index."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from inspector.delta.paths import LOG_DIR
from inspector.log import relist
from inspector.log.deltalog import DeltaLog
from inspector.log.filetimes import commit_times
from inspector.log.index import LogIndex
from inspector.log.listing import list_log
from inspector.settings import Settings
from inspector.storage.local import LocalStorage
from inspector.table.history import build_history
from tests.conftest import one_row_appends


@pytest.fixture
def small_pages(monkeypatch):
    """Pages of 10 entries and a margin of 4: a 30-commit log spans several pages."""
    monkeypatch.setattr(relist, "PAGE", 10)
    monkeypatch.setattr(relist, "OVERLAP", 4)


def _table(path: Path, commits: int = 30) -> Path:
    """``commits`` appends with a checkpoint five versions before the newest."""
    from deltalake import DeltaTable

    one_row_appends(path, commits - 4, seed=3)
    DeltaTable(str(path)).create_checkpoint()
    one_row_appends(path, 4, seed=4)
    return path


def _opened(table: Path, index: LogIndex | None) -> tuple[DeltaLog, list[str]]:
    """The log, and the paths its storage stat'ed one by one (the first page's files)."""
    log = DeltaLog.open(str(table), index=index)
    stated: list[str] = []
    stat_meta = log.storage._stat_meta  # type: ignore[attr-defined]

    def counted(path: str):  # instrumentation: every stat still goes to the folder
        stated.append(path)
        return stat_meta(path)

    log.storage._stat_meta = counted  # type: ignore[attr-defined]
    return log, stated


def _history(table: Path, index: LogIndex | None) -> list:
    return build_history(DeltaLog.open(str(table), index=index), Settings())


def test_a_folder_lists_its_first_page_by_name_and_says_where_it_reaches(tmp_path):
    table = _table(tmp_path / "t", commits=12)
    storage = LocalStorage(str(table))
    assert sorted(storage.names(LOG_DIR) or []) == sorted(os.listdir(table / LOG_DIR))
    names = sorted(f"{LOG_DIR}/{n}" for n in os.listdir(table / LOG_DIR))

    page, reach = storage.list_first(LOG_DIR, 5)
    assert [m.path for m in page] == names[:5] and reach == names[4]
    assert page == [m for m in storage.list(LOG_DIR) if m.path <= reach]
    assert storage.list_first(LOG_DIR, len(names)) == (storage.list(LOG_DIR), None)


def test_a_later_open_stats_only_the_first_page_and_answers_as_a_cold_one(small_pages, tmp_path):
    table = _table(tmp_path / "t")
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    cold = _history(table, index)

    log, stated = _opened(table, index)
    assert commit_times(log, 30) == {
        v: f.modification_time for v, f in list_log(log.storage).commits.items() if v < 30
    }
    assert log.whole_listing is None  # the times came from the record's columns
    assert build_history(log, Settings()) == cold == _history(table, None)
    assert len(stated) == relist.PAGE  # the middle of the log came from the record

    one_row_appends(table, 3, seed=5)
    after = _history(table, index)
    assert after == _history(table, None) and len(after) == 33


@pytest.mark.parametrize(
    "change", ["commit gone from the middle", "recreated", "cleaned up", "stray file added"]
)
def test_a_folder_changed_anywhere_since_the_record_is_listed_whole_again(
    small_pages, tmp_path, change
):
    table = _table(tmp_path / "t")
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    _history(table, index)
    log_dir = table / LOG_DIR

    if change == "commit gone from the middle":  # between the first page and the new part
        (log_dir / f"{15:020d}.json").unlink()
    elif change == "recreated":  # dropped and written again at the same path
        shutil.rmtree(table)
        _table(table, commits=26)
    elif change == "cleaned up":  # the oldest commits expired
        for v in range(3):
            (log_dir / f"{v:020d}.json").unlink()
    else:  # a checksum written late for a middle version
        (log_dir / f"{12:020d}.crc").write_text("{}")

    log = DeltaLog.open(str(table), index=index)
    later = build_history(log, Settings())
    assert later == _history(table, None)
    assert commit_times(log, log.latest_version + 1) == {
        v: f.modification_time for v, f in list_log(log.storage).commits.items()
    }
