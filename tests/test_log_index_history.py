"""The whole history kept in the log index: a second read of an unchanged table is the kept
history after one listing, k new commits are computed from its end, and anything else
(a rewritten log, other settings, a damaged file, a catalog's staged commit) computes it
afresh, so that it answers exactly as a read without the index.

Real tables written by deltalake, a real cache folder; the counting storage only counts
what the real local storage is asked.
"""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from inspector.log.deltalog import DeltaLog
from inspector.log.index import LogIndex, tables
from inspector.log.index.results import load_result
from inspector.settings import Settings
from inspector.table import history
from inspector.table.history import HistoryPager, build_history, newest_first
from inspector.table.history_entry import HistoryEntry
from inspector.table.history_scan import scan_commits
from tests.at_once import at_once
from tests.conftest import one_row_appends
from tests.counting_storage import CountingStorage, counted_log
from tests.damaged import DAMAGES, damage_file

KEPT = "result-history.bin"


def _index(folder: Path) -> LogIndex:
    return LogIndex(str(folder), max_bytes=64 * 1024 * 1024)


def _history(
    table: Path, index: LogIndex | None, settings: Settings | None = None
) -> tuple[list[HistoryEntry], CountingStorage]:
    log, storage = counted_log(table, index, count_open=True)
    return build_history(log, settings or Settings()), storage


def _reads(storage: CountingStorage, suffix: str) -> int:
    return sum(n for path, n in storage.reads.items() if path.endswith(suffix))


def test_a_second_whole_history_reads_no_commit_and_no_checkpoint(tmp_path):
    table = tmp_path / "t"
    one_row_appends(table, 8, seed=1)
    DeltaTable(str(table)).create_checkpoint()
    one_row_appends(table, 3, seed=2)
    index = _index(tmp_path / "cache")
    cold, _ = _history(table, index)
    warm, storage = _history(table, index)
    assert warm == cold == _history(table, None)[0]
    assert _reads(storage, ".json") == 0
    assert _reads(storage, ".parquet") == 0


def test_the_cli_pages_of_a_kept_history_are_those_of_a_fresh_one(tmp_path):
    table = tmp_path / "t"
    one_row_appends(table, 30, seed=3)
    index = _index(tmp_path / "cache")
    fresh = list(newest_first(HistoryPager(counted_log(table, None)[0], Settings(), size=7)))
    cold = list(newest_first(HistoryPager(counted_log(table, index)[0], Settings(), size=7)))
    warm = list(newest_first(HistoryPager(counted_log(table, index)[0], Settings(), size=7)))
    assert cold == warm == fresh


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_new_commits_are_joined_to_the_kept_history_as_a_fresh_read_joins_them(
    tmp_path, seed, monkeypatch
):
    rng = random.Random(seed)
    table = tmp_path / "t"
    one_row_appends(table, rng.randrange(3, 9), seed=seed)
    index = _index(tmp_path / "cache")
    _history(table, index)
    new = rng.randrange(1, 5)
    one_row_appends(table, new - 1, seed=seed + 100)
    # The last new commit changes the schema: its change is found against the kept metadata.
    wider = pa.table({"x": [1], "y": ["a"]})
    write_deltalake(str(table), wider, mode="append", schema_mode="merge")
    scanned: list[list[int]] = []

    def scan(log: DeltaLog, versions: list[int]):  # the real scan, its versions noted
        scanned.append(list(versions))
        return scan_commits(log, versions)

    monkeypatch.setattr(history, "scan_commits", scan)
    warm, storage = _history(table, index)
    monkeypatch.undo()
    assert warm == _history(table, None)[0]
    assert scanned == [[e.version for e in warm[-new:]]]  # only the new versions computed
    assert _reads(storage, ".json") == new
    assert "schema" in warm[-1].changes
    again, storage = _history(table, index)
    assert again == warm and _reads(storage, ".json") == 0


def test_a_kept_history_of_other_settings_is_not_used(tmp_path):
    table = tmp_path / "t"
    one_row_appends(table, 4, seed=7)
    index = _index(tmp_path / "cache")
    _history(table, index)
    other = Settings(timestamp_tolerance_seconds=1)
    warm, storage = _history(table, index, other)
    assert warm == _history(table, None, other)[0]
    assert _reads(storage, ".json") == 0  # its commits still come from the index


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_kept_history_is_ignored_removed_and_rebuilt(tmp_path, damage):
    table = tmp_path / "t"
    one_row_appends(table, 6, seed=8)
    cache = tmp_path / "cache"
    index = _index(cache)
    cold, _ = _history(table, index)
    (kept,) = cache.glob(f"*/{KEPT}")
    raw = damage_file(kept, damage)
    warm, _ = _history(table, index)
    assert warm == cold
    assert kept.read_bytes() != raw  # written whole again
    log, _ = counted_log(table, index)
    assert log.index is not None and load_result(log.index, "history") is not None


def test_a_log_rewritten_below_the_kept_history_is_read_afresh(tmp_path):
    table = tmp_path / "t"
    one_row_appends(table, 6, seed=9)
    index = _index(tmp_path / "cache")
    _history(table, index)
    DeltaTable(str(table)).create_checkpoint()  # a late checkpoint of a kept version
    (table / "_delta_log" / f"{0:020d}.json").unlink()  # and the oldest commit cleaned up
    warm, _ = _history(table, index)
    assert warm == _history(table, None)[0]
    assert warm[0].version == 1


def test_two_writers_of_the_kept_history_leave_one_that_answers_alike(tmp_path):
    table = tmp_path / "t"
    one_row_appends(table, 20, seed=10)
    expected = _history(table, None)[0]
    found = at_once(lambda: _history(table, _index(tmp_path / "cache"))[0], readers=4)
    assert found == [expected] * 4
    assert len(list((tmp_path / "cache").glob(f"*/{KEPT}"))) == 1
    warm, storage = _history(table, _index(tmp_path / "cache"))
    assert warm == expected and _reads(storage, ".json") == 0


def test_a_catalog_managed_tables_staged_commits_are_never_kept(tmp_path, corpus, monkeypatch):
    monkeypatch.setattr(tables, "LOCAL_FROM", 1)
    source = corpus / "delta-kernel-rs/uc__catalog_managed_0"
    index = _index(tmp_path / "cache")
    log = DeltaLog(str(source), index=index)
    log.refresh()
    assert build_history(log, Settings()) == build_history(DeltaLog.open(str(source)), Settings())
    for kept in (tmp_path / "cache").glob(f"*/{KEPT}"):
        assert b"_staged_commits" not in kept.read_bytes()


def test_a_later_timeline_has_the_whole_history_at_its_first_screen(tmp_path):
    from ui.history_load import HistoryLoad

    table = tmp_path / "t"
    one_row_appends(table, 12, seed=11)
    index = _index(tmp_path / "cache")
    first = HistoryLoad(counted_log(table, index)[0], Settings(), size=5, first=3)
    assert not first.done  # a first open reads its newest page, then the older ones
    first.whole()
    log, storage = counted_log(table, index, count_open=True)
    later = HistoryLoad(log, Settings(), size=5, first=3)
    assert later.done and later.progress() == (12, 12)
    assert list(later.entries) == _history(table, None)[0]
    assert _reads(storage, ".json") == 0
