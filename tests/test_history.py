"""The history: every timestamp a version has, per-commit counts, and the parse cache."""

from __future__ import annotations

import json
import os
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from deltalake import DeltaTable, write_deltalake

from inspector.delta.text import format_time
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.history_entry import history_record
from inspector.table.history_time import iso

DAY_MS = 86_400_000


@pytest.fixture
def table(tmp_path) -> Path:
    """A small table written by deltalake: create, two appends, an overwrite (versions 0..3)."""
    root = tmp_path / "events"
    write_deltalake(str(root), pd.DataFrame({"id": [1, 2, 3], "kind": ["a", "b", "c"]}))
    write_deltalake(str(root), pd.DataFrame({"id": [4], "kind": ["d"]}), mode="append")
    write_deltalake(str(root), pd.DataFrame({"id": [5, 6], "kind": ["e", "f"]}), mode="append")
    write_deltalake(str(root), pd.DataFrame({"id": [7], "kind": ["g"]}), mode="overwrite")
    return root


def commit_path(root: Path, version: int) -> Path:
    return root / "_delta_log" / f"{version:020d}.json"


def commit_info_timestamp(root: Path, version: int) -> int:
    for line in commit_path(root, version).read_text().splitlines():
        action = json.loads(line)
        if "commitInfo" in action:
            return action["commitInfo"]["timestamp"]
    raise AssertionError("no commitInfo")


def set_mtime(path: Path, ms: int) -> None:
    os.utime(path, ns=(ms * 1_000_000, ms * 1_000_000))


def test_history_time_is_the_file_modification_time_made_monotonic(table):
    written = [commit_info_timestamp(table, v) for v in range(4)]
    base = written[0]
    # Version 2's file claims to be older than version 1's (clock skew, a re-copy...).
    mtimes = [base, base + 10_000, base + 5_000, base + 20_000]
    for version, ms in enumerate(mtimes):
        set_mtime(commit_path(table, version), ms)

    history = build_history(DeltaLog.open(str(table)), Settings(timestamp_tolerance_seconds=3600))

    assert [e.timestamps.file_modification for e in history] == mtimes
    assert [e.timestamps.history for e in history] == [
        base,
        base + 10_000,
        base + 10_001,
        base + 20_000,
    ]
    assert [e.timestamps.commit_info for e in history] == written
    assert {e.timestamps.source for e in history} == {"fileModificationTime"}
    assert [e.timestamps.in_commit for e in history] == [None] * 4
    assert all(e.problems == () for e in history)
    record = history_record(history[2])
    assert record["timestamp"] == iso(base + 10_001)
    assert record["commitInfoTimestamp"] == iso(written[2])
    assert record["fileModificationTime"] == iso(base + 5_000)


def test_a_copied_table_is_flagged_where_file_times_and_commit_times_disagree(table):
    now_ms = commit_info_timestamp(table, 3) + 3 * DAY_MS
    for f in (table / "_delta_log").iterdir():
        set_mtime(f, now_ms)  # what `cp -r` without --preserve does

    log = DeltaLog.open(str(table))
    history = build_history(log, Settings(timestamp_tolerance_seconds=300))

    for entry in history:
        assert len(entry.problems) == 1
        assert entry.problems[0].startswith(
            f"Its commit time ({format_time(entry.timestamps.commit_info)}) and its file's modification "
            f"time ({format_time(now_ms)}) differ by 3d"
        )
        assert entry.problems[0].endswith(
            "the table was probably copied or replicated. "
            "Time travel by timestamp uses the file modification time."
        )
    assert [e.timestamps.history for e in history] == [now_ms, now_ms + 1, now_ms + 2, now_ms + 3]
    lenient = build_history(log, Settings(timestamp_tolerance_seconds=4 * 86_400))
    assert all(e.problems == () for e in lenient)


def test_in_commit_timestamps_are_the_history_time_once_enabled(corpus):
    log = DeltaLog.open(str(corpus / "delta-kernel-rs/in-commit-timestamps-test"))

    history = build_history(log, Settings())

    before, after = history[:11], history[11:]
    assert {e.timestamps.source for e in before} == {"fileModificationTime"}
    assert all(e.timestamps.in_commit is None for e in before)
    assert {e.timestamps.source for e in after} == {"inCommitTimestamp"}
    assert after[0].version == 11  # delta.inCommitTimestampEnablementVersion
    assert [e.timestamps.history for e in after] == [e.timestamps.in_commit for e in after]
    assert after[0].timestamps.history == 1745378843320
    assert all(
        "Time travel by timestamp uses the in-commit timestamp." in e.problems[-1] for e in after
    )


def test_in_commit_timestamps_are_found_when_enabled_before_the_first_retained_commit(copy_table):
    table = copy_table("delta-kernel-rs/in-commit-timestamps-test")
    # Keep versions 13.. only, with a checkpoint at 13 that carries the ICT properties.
    DeltaTable(str(table), version=13).create_checkpoint()
    for version in range(13):
        commit_path(table, version).unlink()
    log = DeltaLog.open(str(table))

    history = build_history(log, Settings())

    assert history[0].version == 13
    assert {e.timestamps.source for e in history} == {"inCommitTimestamp"}


def test_counts_come_from_the_commits_own_actions(table):
    log = DeltaLog.open(str(table))

    history = build_history(log, Settings())

    for entry in history:
        commit = log.commit(entry.version)
        on_disk = sum((table / a.path).stat().st_size for a in commit.adds)
        assert (entry.files.num_added_files, entry.files.added_bytes) == (len(commit.adds), on_disk)
    assert [(e.files.num_added_files, e.files.num_removed_files) for e in history] == [
        (1, 0),
        (1, 0),
        (1, 0),
        (1, 3),
    ]
    assert history[3].files.removed_bytes == sum(e.files.added_bytes for e in history[:3])
    assert [e.files.added_records for e in history] == [3, 1, 2, 1]
    assert history[0].changes_metadata and history[0].changes_protocol
    assert not history[1].changes_metadata
    record = history_record(history[3])
    assert record["operation"] == "WRITE" and record["operationParameters"]["mode"] == "Overwrite"
    assert (record["numAddedFiles"], record["numRemovedFiles"]) == (1, 3)


def test_refresh_parses_only_new_commits(table):
    log = DeltaLog.open(str(table))
    old = {c.version: c for c in log.commits}
    generation = log.generation

    assert log.refresh() is False, "nothing changed"
    write_deltalake(str(table), pd.DataFrame({"id": [8], "kind": ["h"]}), mode="append")
    assert log.refresh() is True

    assert log.latest_version == 4 and log.generation == generation + 1
    for version, commit in old.items():
        assert log.commit(version) is commit, "old commits are not parsed again"
    assert log.snapshot().num_files == 2
    assert [e.version for e in build_history(log, Settings())] == [0, 1, 2, 3, 4]
    assert log.refresh() is False


def test_refresh_reparses_a_commit_file_that_changed(table):
    log = DeltaLog.open(str(table))
    first = log.commit(0)
    path = commit_path(table, 3)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # someone truncates the newest commit
    assert log.refresh() is True
    assert log.commit(0) is first and not log.commit(3).is_complete
    path.write_bytes(data)  # and restores it
    assert log.refresh() is True
    assert log.commit(3).is_complete


def test_iso_is_exact_to_the_millisecond_in_every_year():
    rng = random.Random(11)
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    edges = [-62_135_596_800_000, 253_402_300_799_999, -1, 0, 86_399_999, 86_400_000]
    for ms in edges + [rng.randint(edges[0], edges[1]) for _ in range(20_000)]:
        exact = (epoch + timedelta(milliseconds=ms)).isoformat(timespec="milliseconds")
        assert iso(ms) == exact.replace("+00:00", "Z")
