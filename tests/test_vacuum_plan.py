"""VACUUM planner specifications: the plan equals what delta-rs's VACUUM does, and names the
versions a VACUUM breaks.

Every table is a copy (of a corpus table, or one written here) whose clocks are set
by hand: each tombstone's ``deletionTimestamp`` and each file's modification time are
rewritten to a chosen age before "now", so the plan and deltalake's
``vacuum(dry_run=True, enforce_retention_duration=False)`` (the oracle) see the same
ages without sleeping. Where Delta and delta-rs 1.6.6 disagree, the planner follows
Delta, and the tests name the difference.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from urllib.parse import unquote

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from inspector.delta.paths import data_file_path
from inspector.files.tablefiles import is_hidden
from inspector.health import check_table
from inspector.health.vacuum import VacuumMode, VersionFate, lite_window, plan_vacuum
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from tests.conftest import add_files, tombstones

CHECK_WORKERS = Settings().check_workers

HOUR = 3_600_000
DAY = 24 * HOUR
NOW = int(time.time() * 1000)
CDF_PARTITIONED = "delta-rs/cdf-table"  # 0..3, partitioned, _change_data, 7 tombstones
SIMPLE = "delta-rs/simple_table"  # 0..4, 31 tombstones
LOG_EXPIRED = "delta-rs/checkpoint-cdf-table"  # checkpoint 3, commits 0..2 gone; .crc in partitions
DVS = "delta-rs/cdf-table-with-cdc-and-dvs"  # 0..25, deletion vectors on disk, _change_data
RETENTIONS = [0, 30, 60, 100, 1000]


def age_table(root: Path, *, log: DeltaLog | None = None) -> None:
    """Set the clocks of a copy: version v happened (latest - v + 1) days before NOW.

    Commit v's file and its tombstones get that time (Delta's LITE VACUUM reads the
    commits made before the cutoff); data files added at v get that modification time
    minus an hour (a file is written before it is committed); any other file (change
    data, strays, sidecars) is 40 days old.
    """
    log = log or DeltaLog.open(str(root))
    latest = log.latest_version
    for path in root.rglob("*"):
        if path.is_file() and "_delta_log" not in path.parts:
            _touch(path, NOW - 40 * DAY)
    for commit in log.commits:
        when = NOW - (latest - commit.version + 1) * DAY
        _rewrite_tombstones(Path(commit.file.path), when)
        _touch(Path(commit.file.path), when)
        for add in commit.adds:
            target = root / unquote(add.path)
            if target.exists():
                _touch(target, when - HOUR)


def _touch(path: Path, ms: int) -> None:
    os.utime(path, (ms / 1000, ms / 1000))


def _rewrite_tombstones(commit_file: Path, when: int) -> None:
    lines = commit_file.read_text().splitlines()
    out = []
    for line in lines:
        action = json.loads(line) if line.strip() else None
        if action and "remove" in action:
            action["remove"]["deletionTimestamp"] = when
            line = json.dumps(action)
        out.append(line)
    commit_file.write_text("\n".join(out) + "\n")


def oracle(root: Path, hours: int, *, full: bool) -> list[str]:
    """What deltalake (delta-rs) would delete, as decoded paths relative to the root.

    delta-rs names a path once per tombstone (a file whose deletion vector changed has
    several); it is one file to delete.
    """
    found = DeltaTable(str(root)).vacuum(
        retention_hours=hours, dry_run=True, enforce_retention_duration=False, full=full
    )
    return sorted({unquote(p) for p in found})


def plan_paths(root: Path, hours: float, mode: VacuumMode) -> list[str]:
    return [
        f.path for f in plan_vacuum(DeltaLog.open(str(root)), retain_hours=hours, mode=mode).files
    ]


def delta_keeps(root: Path, path: str, hours: int) -> bool:
    """Files delta-rs's full VACUUM deletes but Delta's keeps: names below the top level that
    Delta hides (``part=1/.x.crc``), and deletion vectors of live files and of tombstones
    within the retention."""
    snapshot = DeltaLog.open(str(root)).snapshot()
    if "/" in path and is_hidden(path, snapshot.partition_columns):
        return True
    cutoff = NOW - hours * HOUR
    kept = [
        *snapshot.files.values(),
        *(r for r in tombstones(snapshot) if (r.deletion_timestamp or 0) >= cutoff),
    ]
    used = {
        r.deletion_vector.relative_or_absolute_path() for r in kept if r.deletion_vector is not None
    }
    return path in used


def written_table(root: Path) -> None:
    """A table written here: appends, an overwrite, a delete, a RESTORE that undid an append;
    plus a stray data file, a failed write's leftovers and hidden files."""
    write_deltalake(
        str(root), pa.table({"id": [1, 2, 3], "p": ["a", "b", "a"]}), partition_by=["p"]
    )
    write_deltalake(str(root), pa.table({"id": [4, 5], "p": ["b", "c"]}), mode="append")
    write_deltalake(
        str(root), pa.table({"id": [6, 7], "p": ["a", "c"]}), partition_by=["p"], mode="overwrite"
    )
    write_deltalake(str(root), pa.table({"id": [8], "p": ["a"]}), mode="append")
    DeltaTable(str(root)).delete("id = 8")
    write_deltalake(str(root), pa.table({"id": [9], "p": ["c"]}), mode="append")
    DeltaTable(str(root)).restore(3)
    (root / "p=a" / "stray-never-committed.parquet").write_bytes(b"PAR1 not really")
    (root / "p=a" / ".hidden-sidecar.crc").write_bytes(b"crc")
    (root / "_tmp_write").mkdir()
    (root / "_tmp_write" / "part-0.parquet").write_bytes(b"leftover")


@pytest.fixture
def aged_written(tmp_path) -> Path:
    root = tmp_path / "written"
    written_table(root)
    age_table(root)
    return root


# --- the file list equals delta-rs's -------------------------------------------------------


@pytest.mark.parametrize("table", [CDF_PARTITIONED, SIMPLE, DVS])
@pytest.mark.parametrize("hours", RETENTIONS)
def test_lite_plan_deletes_what_delta_rs_lite_vacuum_deletes_and_what_deltas_adds(
    copy_table, table, hours
):
    """Delta's LITE (tests/test_delta_oracle_features.py) also deletes the change-data files
    and the deletion vectors the expired commits name; delta-rs 1.6.6's lite does not."""
    root = copy_table(table)
    age_table(root)

    planned = plan_paths(root, hours, VacuumMode.LITE)
    expected = oracle(root, hours, full=False)

    assert set(expected) <= set(planned)
    assert all(
        p.startswith(("_change_data/", "deletion_vector_")) for p in set(planned) - set(expected)
    )


@pytest.mark.parametrize("hours", [0, 60])
def test_lite_plan_of_a_table_whose_first_commits_expired_says_delta_refuses(copy_table, hours):
    """Delta's LITE reads the commits since version 0 (or since its last LITE run): with
    commits 0..2 gone it refuses (DELTA_CANNOT_VACUUM_LITE) where delta-rs deletes."""
    root = copy_table(LOG_EXPIRED)
    age_table(root)

    plan = plan_vacuum(DeltaLog.open(str(root)), retain_hours=hours, mode=VacuumMode.LITE)

    assert plan.files == ()
    assert any("DELTA_CANNOT_VACUUM_LITE" in w for w in plan.warnings)


@pytest.mark.parametrize("table", [CDF_PARTITIONED, SIMPLE, LOG_EXPIRED, DVS])
@pytest.mark.parametrize("hours", RETENTIONS)
def test_full_plan_deletes_what_delta_rs_full_vacuum_deletes_except_what_delta_keeps(
    copy_table, table, hours
):
    root = copy_table(table)
    age_table(root)
    expected = oracle(root, hours, full=True)

    planned = plan_paths(root, hours, VacuumMode.FULL)

    assert planned == [p for p in expected if not delta_keeps(root, p, hours)]


@pytest.mark.parametrize("hours", RETENTIONS)
@pytest.mark.parametrize("mode", list(VacuumMode))
def test_plan_of_a_table_written_here_matches_delta_rs(aged_written, hours, mode):
    expected = oracle(aged_written, hours, full=mode is VacuumMode.FULL)

    planned = plan_paths(aged_written, hours, mode)

    assert planned == [p for p in expected if not delta_keeps(aged_written, p, hours)]


def test_full_mode_deletes_old_strays_but_never_hidden_files_or_recent_ones(aged_written):
    _touch(aged_written / "p=a" / "stray-never-committed.parquet", NOW - 2 * HOUR)

    recent = plan_paths(aged_written, 24, VacuumMode.FULL)
    old = plan_paths(aged_written, 1, VacuumMode.FULL)

    assert "p=a/stray-never-committed.parquet" not in recent
    assert "p=a/stray-never-committed.parquet" in old
    assert not [p for p in old if "hidden" in p or p.startswith("_tmp_write")]


def test_delta_rs_full_vacuum_would_delete_a_deletion_vector_delta_keeps(copy_table):
    """The documented divergence: delta-rs 1.6.6 treats live deletion-vector files as
    unreferenced; deleting them would break the latest version."""
    root = copy_table("delta-kernel-java/basic-dv-no-checkpoint")
    age_table(root)

    assert plan_paths(root, 0, VacuumMode.FULL) == []
    assert [p for p in oracle(root, 0, full=True) if p.startswith("deletion_vector_")]


def test_lite_plan_counts_each_file_once_with_its_size(aged_written):
    plan = plan_vacuum(DeltaLog.open(str(aged_written)), retain_hours=0, mode=VacuumMode.LITE)

    sizes = {f.path: (aged_written / f.path).stat().st_size for f in plan.files}
    assert len(sizes) == len(plan.files) > 0
    assert plan.bytes_to_delete == sum(sizes.values())


# --- which versions stop being readable ----------------------------------------------------


@pytest.mark.parametrize(
    ("table", "hours", "mode"),
    [
        (SIMPLE, 60, VacuumMode.LITE),
        (SIMPLE, 0, VacuumMode.LITE),
        (CDF_PARTITIONED, 30, VacuumMode.FULL),
        (DVS, 100, VacuumMode.LITE),
        ("written", 30, VacuumMode.LITE),
        ("written", 0, VacuumMode.FULL),
    ],
)
def test_after_delta_rs_vacuums_exactly_the_versions_the_plan_called_lost_are_broken(
    copy_table, tmp_path, table, hours, mode
):
    if table == "written":
        root = tmp_path / "written"
        written_table(root)
    else:
        root = copy_table(table)
    age_table(root)
    plan = plan_vacuum(DeltaLog.open(str(root)), retain_hours=hours, mode=mode)
    before = {
        v.version: v.status
        for v in check_table(
            DeltaLog.open(str(root)), all_versions=True, settings=Settings()
        ).versions
    }

    DeltaTable(str(root)).vacuum(
        retention_hours=hours,
        dry_run=False,
        enforce_retention_duration=False,
        full=mode is VacuumMode.FULL,
    )

    after = check_table(DeltaLog.open(str(root)), all_versions=True, settings=Settings())
    broken = {v.version for v in after.versions if not v.is_complete and v.version in before}
    was_broken = {v for v, status in before.items() if status != "complete"}
    assert broken - was_broken == set(plan.versions_lost)
    assert plan.oldest_readable_after == min(
        v for v in before if v not in broken and v <= plan.fates[-1][0]
    )


def test_lost_versions_fail_to_read_and_the_others_read_with_deltalake(aged_written):
    plan = plan_vacuum(DeltaLog.open(str(aged_written)), retain_hours=30, mode=VacuumMode.LITE)
    latest = plan.fates[-1][0]
    assert plan.versions_lost

    DeltaTable(str(aged_written)).vacuum(
        retention_hours=30, dry_run=False, enforce_retention_duration=False
    )

    for version in range(plan.earliest_log_version, latest + 1):
        table = DeltaTable(str(aged_written), version=version)
        if version in plan.versions_lost:
            with pytest.raises(Exception):  # noqa: B017  (deltalake raises OSError or DeltaError)
                table.to_pyarrow_table()
        else:
            assert table.to_pyarrow_table().num_rows >= 0


def test_plan_names_oldest_readable_versions_and_the_restore_it_can_no_longer_undo(aged_written):
    log = DeltaLog.open(str(aged_written))
    restore = max(c.version for c in log.commits if c.commit_info.operation == "RESTORE")

    plan = plan_vacuum(log, retain_hours=0, mode=VacuumMode.LITE)

    assert plan.oldest_readable_before == 0
    assert restore - 1 in plan.versions_lost
    assert plan.restore_undos_lost == (restore,)
    assert plan.oldest_readable_after == min(
        v for v, fate in plan.fates if fate is VersionFate.READABLE
    )
    assert plan.fates[-1][1] is VersionFate.READABLE  # VACUUM never breaks the latest version


def test_a_long_retention_loses_nothing(aged_written):
    plan = plan_vacuum(DeltaLog.open(str(aged_written)), retain_hours=24 * 365)

    assert plan.files == () and plan.versions_lost == []
    assert plan.oldest_readable_after == plan.oldest_readable_before == 0


def test_versions_whose_log_expired_are_named(copy_table):
    root = copy_table(LOG_EXPIRED)

    plan = plan_vacuum(DeltaLog.open(str(root)), retain_hours=24 * 365)

    assert plan.earliest_log_version == 3
    assert plan.fates[0][0] == 3 and plan.oldest_readable_before == 3


def test_versions_already_missing_files_are_not_counted_as_lost(copy_table):
    root = copy_table(SIMPLE)
    age_table(root)
    log = DeltaLog.open(str(root))
    (root / unquote(log.commit(1).adds[0].path)).unlink()

    plan = plan_vacuum(DeltaLog.open(str(root)), retain_hours=0)

    assert dict(plan.fates)[1] is VersionFate.UNREADABLE
    assert 1 not in plan.versions_lost


# --- the retention check -------------------------------------------------------------------


def _retaining_deleted_files(tmp_path, interval: str) -> DeltaLog:
    """A one-row table whose ``delta.deletedFileRetentionDuration`` is ``interval``."""
    root = str(tmp_path / "t")
    retention = {"delta.deletedFileRetentionDuration": interval}
    write_deltalake(root, pa.table({"id": [1]}), configuration=retention)
    return DeltaLog.open(root)


def test_retention_shorter_than_the_tables_is_warned_as_deltas_check_does(tmp_path):
    log = _retaining_deleted_files(tmp_path, "interval 10 days")

    default = plan_vacuum(log)
    nine_days = plan_vacuum(log, retain_hours=9 * 24)

    assert default.retain_hours == 240 and default.warnings == ()
    assert "shorter than the table's deleted-file retention" in nine_days.warnings[0]


def test_the_tables_retention_is_worded_as_every_retention_message(tmp_path):
    """The configured retention as a duration and the property it comes from, as a
    restore's retention warning words it: one wording, ``Retention.describe``."""
    log = _retaining_deleted_files(tmp_path, "interval 10 days")

    plan = plan_vacuum(log, retain_hours=9 * 24)

    assert plan.warnings[0].startswith(
        "A retention of 216 hours is shorter than the table's deleted-file retention "
        "(10 days (delta.deletedFileRetentionDuration = 'interval 10 days')): "
    )


def test_retention_under_seven_days_is_warned_even_when_the_table_allows_it(tmp_path):
    log = _retaining_deleted_files(tmp_path, "interval 1 day")

    plan = plan_vacuum(log, retain_hours=48)

    assert len(plan.warnings) == 1 and "shorter than 7 days" in plan.warnings[0]


@pytest.mark.parametrize("hours", [-1, float("nan"), "soon"])
def test_a_retention_that_is_not_hours_is_refused(tmp_path, hours):
    from inspector.delta.errors import InvalidInput

    root = tmp_path / "t"
    write_deltalake(str(root), pa.table({"id": [1]}))

    with pytest.raises(InvalidInput, match="retention"):
        plan_vacuum(DeltaLog.open(str(root)), retain_hours=hours)


# --- Delta's hidden-path rule --------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "hidden"),
    [
        ("_delta_log/00000000000000000000.json", True),
        (".part-0.parquet.crc", True),
        ("p=a/.part-0.parquet.crc", True),
        ("p=a/_tmp/part-0.parquet", True),
        ("_change_data/cdc-0.parquet", False),
        ("_delta_index/zorder.bin", False),
        ("_p=1/part-0.parquet", False),  # a partition folder of column _p
        ("p=a/part-0.parquet", False),
    ],
)
def test_hidden_paths_follow_deltas_rule(path, hidden):
    assert is_hidden(path, ["p", "_p"]) is hidden


@pytest.mark.spark
def test_spark_cannot_read_a_version_the_plan_called_lost_and_reads_the_oldest_kept(
    aged_written, spark
):
    from inspector.rows.delta_engine import read_snapshot

    plan = plan_vacuum(DeltaLog.open(str(aged_written)), retain_hours=30, mode=VacuumMode.LITE)
    lost, kept = plan.versions_lost[0], plan.oldest_readable_after
    DeltaTable(str(aged_written)).vacuum(
        retention_hours=30, dry_run=False, enforce_retention_duration=False
    )
    log = DeltaLog.open(str(aged_written))
    gone = log.snapshot(lost)

    with pytest.raises(Exception, match="(?i)path does not exist|not found|no such file"):
        spark.read.parquet(
            *[data_file_path(gone.table_root, a.path) for a in add_files(gone)]
        ).count()
    rows = read_snapshot(log.snapshot(kept), spark=spark, check_workers=CHECK_WORKERS).count()
    assert rows == DeltaTable(str(aged_written), version=kept).to_pyarrow_table().num_rows


def test_the_plan_of_a_table_in_s3_equals_the_plan_of_its_local_copy(copy_table, s3_server):
    root = copy_table(CDF_PARTITIONED)
    age_table(root)
    uri = s3_server.upload(root)
    remote = DeltaLog.open(uri, storage_options=s3_server.options)
    local = DeltaLog.open(str(root))

    # LITE reads the commits made before the cutoff, and the upload's commit files are
    # new: plan for a time by which every commit of both copies is older than the cutoff.
    later = NOW + 1100 * HOUR
    for hours in (30, 1000):
        ours = plan_vacuum(remote, retain_hours=hours, now_ms=later)
        theirs = plan_vacuum(local, retain_hours=hours, now_ms=later)
        assert [(f.path, f.size) for f in ours.files] == [(f.path, f.size) for f in theirs.files]
        assert ours.fates == theirs.fates


def test_a_tombstone_whose_file_is_gone_is_counted_not_listed(copy_table):
    """delta-rs's lite dry run names it still; VACUUM can only delete what is there."""
    root = copy_table(SIMPLE)
    age_table(root)
    gone = oracle(root, 0, full=False)[0]
    (root / gone).unlink()

    plan = plan_vacuum(DeltaLog.open(str(root)), retain_hours=0)

    assert gone not in [f.path for f in plan.files]
    assert plan.tombstones_already_deleted == 1
    assert [f.path for f in plan.files] == [p for p in oracle(root, 0, full=False) if p != gone]


def test_a_data_file_of_another_size_makes_its_versions_unreadable_as_the_health_check_says(
    copy_table,
):
    root = copy_table(SIMPLE)
    age_table(root)
    with open(root / unquote(DeltaLog.open(str(root)).commit(1).adds[0].path), "ab") as fh:
        fh.write(b"appended by a bad copy")
    log = DeltaLog.open(str(root))

    plan = plan_vacuum(log, retain_hours=24 * 365)

    health = check_table(log, all_versions=True, settings=Settings())
    assert {v for v, fate in plan.fates if fate is VersionFate.UNREADABLE} == {
        v.version for v in health.versions if not v.is_complete
    }
    assert dict(plan.fates)[1] is VersionFate.UNREADABLE


def test_lite_plan_starts_after_the_window_of_the_last_lite_vacuum(aged_written):
    """Delta records the end of a LITE run's window in _delta_log/_last_vacuum_info; the next
    LITE run reads only the commits after it."""
    log = DeltaLog.open(str(aged_written))
    removed_at = {
        r.path: c.version
        for c in log.commits
        for r in c.removes
        if (aged_written / r.path).exists()
    }
    everything = plan_paths(aged_written, 0, VacuumMode.LITE)
    end = min(removed_at.values())
    (aged_written / "_delta_log" / "_last_vacuum_info").write_text(
        json.dumps({"latestCommitVersionOutsideOfRetentionWindow": end})
    )

    later = plan_paths(aged_written, 0, VacuumMode.LITE)

    assert later == [p for p in everything if removed_at.get(p, end + 1) > end]
    assert len(later) < len(everything)


def test_a_version_whose_file_outside_the_table_folder_is_missing_is_unreadable_already(
    copy_table,
):
    # version 0 adds /some/unqualified/absolute/path (no such file); version 1 removes it
    root = copy_table("delta-golden/canonicalized-paths-normal-a")
    log = DeltaLog(str(root))
    log.refresh()

    plan = plan_vacuum(log, retain_hours=0, mode=VacuumMode.FULL)
    report = check_table(log, all_versions=True, settings=Settings())

    assert plan.fates == ((0, VersionFate.UNREADABLE), (1, VersionFate.READABLE))
    assert [v.is_complete for v in report.versions] == [False, True], "as the check judges"
    assert plan.oldest_readable_before == 1


def test_lite_window_judges_commit_times_by_the_history_rule_made_monotonic(copy_table):
    """A commit whose file looks older than the one before it happened after it (Delta's
    history makes file times monotonic), so LITE does not read it as expired."""
    root = copy_table(SIMPLE)  # versions 0..4, aged one day apart, v4 a day before NOW
    age_table(root)
    log = DeltaLog.open(str(root))
    newest = Path(log.commit(4).file.path)
    _rewrite_tombstones(newest, NOW - 10 * DAY)
    _touch(newest, NOW - 10 * DAY)  # its file time is now before versions 0..3
    fresh = DeltaLog.open(str(root))
    named_by_4 = {r.path for r in fresh.commit(4).removes}  # tombstones "10 days" old

    window = lite_window(fresh, NOW - 2 * DAY - HOUR, {})

    assert named_by_4 and not named_by_4 & window.removed
