"""Specification: the history read newest first, a page at a time, is the whole history.

Pages are joined as they arrive: the file-time rule, the schema/properties/protocol
changes and the gaps that span a page boundary are finished from what was read, and each
commit file is read once. The first page lists and reads only its own versions (what the
app's first Timeline screen waits for). Tables: a streaming job's log of 5,000 commits
(``bench/tablegen.py``, a checkpoint every 100 versions), the demo table, the corpus.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bench.tablegen import make_commits_table
from inspector.demo import write_demo_table
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history import HistoryPager, build_history, newest_first
from tests.conftest import CORPUS, corpus_histories
from tests.counting_storage import counted_log

COMMITS = 5_000
IN_COMMIT_TIMES = CORPUS / "delta-kernel-rs" / "in-commit-timestamps-test"


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pages") / "c5000"
    make_commits_table(str(root), COMMITS)
    return root


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> str:
    return write_demo_table(str(tmp_path_factory.mktemp("pages") / "orders"))


def _all_pages(log: DeltaLog, size: int) -> list:
    pager = HistoryPager(log, Settings(), size=size)
    while pager.read_older():
        pass
    return list(pager.entries)


@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_the_demo_history_read_in_pages_is_the_whole_history(demo: str, size: int) -> None:
    # The demo's schema, properties and protocol changes fall on page boundaries at size 1.
    assert _all_pages(DeltaLog.open(demo), size) == build_history(DeltaLog.open(demo), Settings())


@pytest.mark.parametrize(("first", "size"), [(1, 3), (2, 5), (250, 1000)])
def test_a_short_newest_page_then_longer_ones_is_the_whole_history(
    long_log: Path, first: int, size: int
) -> None:
    log = DeltaLog.open(str(long_log))
    pager = HistoryPager(log, Settings(), size=size, first=first)

    pager.read_older()
    newest = len(pager.entries)
    while pager.read_older():
        pass

    assert first <= newest < first + 100  # down to just after a checkpoint
    assert list(pager.entries) == build_history(DeltaLog.open(str(long_log)), Settings())


@pytest.mark.parametrize("size", [700, 2000])
def test_a_long_history_read_in_pages_is_the_whole_history(long_log: Path, size: int) -> None:
    whole = build_history(DeltaLog.open(str(long_log)), Settings())

    assert _all_pages(DeltaLog.open(str(long_log)), size) == whole


@pytest.mark.parametrize("size", [1, 3])
def test_the_history_given_newest_first_page_by_page_is_the_whole_history_reversed(
    demo: str, size: int
) -> None:
    given = list(newest_first(HistoryPager(DeltaLog.open(demo), Settings(), size=size)))

    assert given == build_history(DeltaLog.open(demo), Settings())[::-1]


def test_with_in_commit_timestamps_the_newest_entries_come_before_older_pages_are_read() -> None:
    # In-commit timestamps from version 11 on: no older page can change the newest entries.
    pager = HistoryPager(DeltaLog.open(str(IN_COMMIT_TIMES)), Settings(), size=3)
    entries = newest_first(pager)

    newest = next(entries)

    assert newest.version == 21 and len(pager.entries) == 3  # one page (the log is listed whole)
    assert [e.version for e in entries] == list(range(20, -1, -1))


def test_with_file_times_the_entries_wait_for_the_oldest_page(long_log: Path) -> None:
    # The file-time rule chains each timestamp to the version before: any older page can
    # shift every newer one, so nothing is given before the oldest page is read.
    pager = HistoryPager(DeltaLog.open(str(long_log)), Settings(), size=1000)
    entries = newest_first(pager)

    assert next(entries).version == COMMITS - 1

    assert pager.done


def test_every_corpus_history_read_in_pages_of_two_is_the_whole_history() -> None:
    compared = 0
    for root, whole in corpus_histories():
        assert _all_pages(DeltaLog.open(root), 2) == whole, root
        given = list(newest_first(HistoryPager(DeltaLog.open(root), Settings(), size=2)))
        assert given == whole[::-1], root
        compared += 1
    assert compared > 300


def test_the_file_time_rule_runs_across_a_page_boundary(demo: str, tmp_path: Path) -> None:
    table = tmp_path / "orders"
    shutil.copytree(demo, table)
    log_dir = table / "_delta_log"
    base = os.stat(log_dir / f"{0:020d}.json").st_mtime_ns
    for version in range(4):  # versions 2 and 3 look older than version 1
        mtime = base + [0, 5, 3, 4][version] * 1_000_000_000
        os.utime(log_dir / f"{version:020d}.json", ns=(mtime, mtime))

    whole = build_history(DeltaLog.open(str(table)), Settings())
    paged = _all_pages(DeltaLog.open(str(table)), 1)

    assert paged == whole
    times = [e.timestamps.history for e in paged]
    assert times == sorted(set(times))  # one millisecond apart at least, as Delta does


def test_the_first_page_lists_and_reads_only_its_own_versions(long_log: Path) -> None:
    log, storage = counted_log(long_log)
    pager = HistoryPager(log, Settings(), size=1000)

    pager.read_older()

    first = pager.entries[0].version
    assert [e.version for e in pager.entries] == list(range(first, COMMITS))
    assert first == 3901  # 1,000 versions back, then down to just after checkpoint 3,900
    oldest_listed = COMMITS - 1 - 2 * 1000  # two pages back: room to reach a checkpoint
    assert storage.lists == [f"_delta_log after _delta_log/{oldest_listed - 1:020d}~"]
    commits = [name for name in storage.reads if name.endswith(".json")]
    assert sorted(int(name[:20]) for name in commits) == list(range(first, COMMITS))
    assert not pager.listed and not pager.done


def test_reading_every_page_reads_each_commit_file_once(long_log: Path) -> None:
    log, storage = counted_log(long_log)
    pager = HistoryPager(log, Settings(), size=1000)

    while pager.read_older():
        pass

    assert len(pager.entries) == COMMITS and pager.done
    reads = {int(name[:20]): n for name, n in storage.reads.items() if name.endswith(".json")}
    assert sorted(reads) == list(range(COMMITS))
    # Every commit is present, so no checkpoint is compared with its commits (``check``'s
    # question): each commit file is read once, by its page.
    assert set(reads.values()) == {1}
