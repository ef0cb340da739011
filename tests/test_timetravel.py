"""Specification: time travel by version or by timestamp, with Delta's rule and clear errors.

Delta's rule: a timestamp T selects the latest version whose history timestamp is at
or before T. The history timestamp is the commit file's modification time (made
monotonic) or, where enabled, the in-commit timestamp. T before the earliest
readable version or after the latest is an error that shows the table's range.
"""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime, timedelta

import pytest

from inspector.delta.errors import (
    InvalidInput,
    MissingDataFile,
    TimestampOutOfRange,
    VersionNotFound,
)
from inspector.delta.paths import data_file_path
from inspector.log.deltalog import DeltaLog
from inspector.rows.delta_engine import read_snapshot
from inspector.settings import Settings
from inspector.table.timetravel import parse_timestamp, resolve_version, version_at_timestamp
from tests.conftest import CORPUS, add_files

CHECK_WORKERS = Settings().check_workers

UTC = UTC
TABLE = "delta-kernel-rs-golden/basic-with-inserts-deletes-checkpoint/delta"  # versions 0..13
T0 = datetime(2024, 10, 8, 5, 0, 0, tzinfo=UTC)


def _set_commit_times(root, times: dict[int, datetime]) -> None:
    for version, moment in times.items():
        commit = root / "_delta_log" / f"{version:020d}.json"
        os.utime(commit, (moment.timestamp(), moment.timestamp()))


@pytest.fixture
def hourly(copy_table):
    """A copy whose version v was committed at 05:00 + v hours on 2024-10-08 (UTC)."""
    root = copy_table(TABLE)
    _set_commit_times(root, {v: T0 + timedelta(hours=v) for v in range(14)})
    return DeltaLog.open(str(root))


@pytest.mark.parametrize(
    "typed,version",
    [
        ("2024-10-08 05:00:00", 0),  # exactly at a commit: that commit
        ("2024-10-08 05:59:59", 0),  # between commits: the earlier one
        ("2024-10-08T06:00:00Z", 1),
        ("2024-10-08 08:30", 3),
        ("2024-10-08 10:42:52.5", 5),
        ("2024-10-08T12:30:00+02:00", 5),  # 10:30 UTC
        ("2024-10-08 18:00:00 UTC", 13),  # the latest commit, exactly
    ],
)
def test_a_timestamp_selects_the_latest_version_at_or_before_it(hourly, typed, version):
    assert version_at_timestamp(hourly, parse_timestamp(typed), Settings()) == version


def test_a_date_means_midnight_utc():
    assert parse_timestamp("2024-10-08") == datetime(2024, 10, 8, tzinfo=UTC)


@pytest.mark.parametrize("typed", ["yesterday", "2024-13-01", "08/10/2024", ""])
def test_an_unreadable_timestamp_is_invalid_input_with_examples(typed):
    with pytest.raises(InvalidInput, match="2024-10-08 05:42:52"):
        parse_timestamp(typed)


def test_a_timestamp_before_the_first_version_is_out_of_range_and_shows_the_range(hourly):
    with pytest.raises(TimestampOutOfRange) as caught:
        version_at_timestamp(hourly, parse_timestamp("2024-10-08 04:59:59"), Settings())
    assert "before the earliest version" in caught.value.message
    assert "2024-10-08 05:00:00.000 UTC to 2024-10-08 18:00:00.000 UTC" in caught.value.message


def test_a_timestamp_after_the_latest_version_is_out_of_range(hourly):
    with pytest.raises(TimestampOutOfRange, match="after the latest version"):
        version_at_timestamp(hourly, parse_timestamp("2024-10-09"), Settings())


def test_a_copy_whose_file_times_all_changed_resolves_by_the_copy_times(copy_table):
    """Copying gives every commit file the same time; Delta makes them 1 ms apart, and
    ignores the (older) commitInfo timestamps. Time travel to the writer's times fails."""
    root = copy_table(TABLE)
    copied = datetime(2025, 1, 1, tzinfo=UTC)
    _set_commit_times(root, dict.fromkeys(range(14), copied))
    log = DeltaLog.open(str(root))
    assert version_at_timestamp(log, copied, Settings()) == 0
    assert version_at_timestamp(log, copied + timedelta(milliseconds=5), Settings()) == 5
    assert version_at_timestamp(log, copied + timedelta(milliseconds=13), Settings()) == 13
    written = log.commit(3).commit_info.timestamp
    with pytest.raises(TimestampOutOfRange, match="before the earliest"):
        version_at_timestamp(log, datetime.fromtimestamp(written / 1000, tz=UTC), Settings())


def test_in_commit_timestamps_decide_once_enabled_even_in_a_copy(copy_table):
    """Versions 11..21 carry in-commit timestamps (2025-04-23); 0..10 only file times,
    which the copy changed. Times at or after the enablement search the ICT versions."""
    root = copy_table("delta-kernel-rs/in-commit-timestamps-test")
    _set_commit_times(root, {v: datetime(2030, 1, 1, tzinfo=UTC) for v in range(22)})
    log = DeltaLog.open(str(root))
    assert version_at_timestamp(log, parse_timestamp("2025-04-23T03:27:23.320Z"), Settings()) == 11
    assert version_at_timestamp(log, parse_timestamp("2025-04-23 03:27:24"), Settings()) == 14
    assert version_at_timestamp(log, parse_timestamp("2025-04-23T03:27:25.158Z"), Settings()) == 21
    with pytest.raises(TimestampOutOfRange, match="before the earliest"):
        version_at_timestamp(log, parse_timestamp("2025-04-23T03:27:23Z"), Settings())


def test_an_unknown_version_is_refused_with_the_tables_range(hourly):
    with pytest.raises(VersionNotFound, match="versions 0 to 13"):
        resolve_version(hourly, version="14", settings=Settings())
    with pytest.raises(InvalidInput, match="not a version number"):
        resolve_version(hourly, version="v3", settings=Settings())
    with pytest.raises(InvalidInput, match="not both"):
        resolve_version(hourly, version="3", timestamp="2024-10-08", settings=Settings())


def test_a_version_whose_log_expired_is_refused_as_expired():
    log = DeltaLog.open(str(CORPUS / "dat-v0.0.2/no_replay/delta"))  # log starts at checkpoint 2
    with pytest.raises(VersionNotFound, match="expired"):
        resolve_version(log, version=0, settings=Settings())


def test_a_timestamp_resolves_to_a_version_for_show(hourly):
    resolved = resolve_version(hourly, timestamp="2024-10-08 08:30", settings=Settings())
    assert (resolved.version, resolved.timestamp) == (3, datetime(2024, 10, 8, 8, 30, tzinfo=UTC))


@pytest.mark.spark
def test_a_vacuumed_version_names_a_missing_file(spark):
    """The corpus' VACUUMed table: the latest version reads, older versions lost files."""
    log = DeltaLog.open(str(CORPUS / "delta-kernel-rs-golden/snapshot-vacuumed/delta"))
    with pytest.raises(MissingDataFile) as caught:
        # Refused before Spark reads.
        read_snapshot(log.snapshot(0), spark=spark, check_workers=CHECK_WORKERS)
    assert ".parquet, which is missing" in caught.value.message
    assert "vacuumed or not copied" in caught.value.message


def test_a_deleted_data_file_is_named_and_the_version_refused(copy_table, spark):
    root = copy_table("dat-v0.0.2/basic_append/delta")
    log = DeltaLog.open(str(root))
    victim = add_files(log.snapshot(0))[0]
    os.remove(data_file_path(log.table_root, victim.path))
    with pytest.raises(MissingDataFile, match=victim.path.split("/")[-1]):
        read_snapshot(log.snapshot(1), spark=spark, check_workers=CHECK_WORKERS)
    with pytest.raises(MissingDataFile, match="vacuumed or not copied"):
        read_snapshot(log.snapshot(0), spark=spark, check_workers=CHECK_WORKERS)


def test_rows_at_a_resolved_timestamp_are_that_versions_rows(hourly, spark):
    version = version_at_timestamp(hourly, parse_timestamp("2024-10-08 08:30"), Settings())
    snapshot = hourly.snapshot(version)
    assert (
        read_snapshot(snapshot, spark=spark, check_workers=CHECK_WORKERS).count()
        == snapshot.num_records
    )


@pytest.mark.spark
def test_a_copied_table_without_its_data_files_is_refused(copy_table, tmp_path, spark):
    root = copy_table("dat-v0.0.2/basic_append/delta")
    log_only = tmp_path / "log-only"
    shutil.copytree(root / "_delta_log", log_only / "_delta_log")
    with pytest.raises(MissingDataFile, match="and 1 more"):
        read_snapshot(
            DeltaLog.open(str(log_only)).snapshot(), spark=spark, check_workers=CHECK_WORKERS
        )


def test_every_time_the_app_shows_is_accepted_back_and_finds_its_version(copy_table):
    """The one display form (milliseconds, UTC): commits milliseconds apart stay apart."""
    from inspector.delta.text import format_time
    from inspector.table.history import build_history
    from inspector.table.history_time import iso

    root = copy_table(TABLE)
    _set_commit_times(root, {v: T0 + timedelta(milliseconds=7 * v) for v in range(14)})
    log = DeltaLog.open(str(root))
    for entry in build_history(log, Settings()):
        shown = format_time(entry.timestamps.history)
        assert shown is not None and shown.endswith(" UTC") and shown[-8] == "."
        for text in (shown, iso(entry.timestamps.history)):  # the app's form and JSON's
            assert version_at_timestamp(log, parse_timestamp(text), Settings()) == entry.version
