"""Retention view specifications: which versions can still be restored, and until when."""

from __future__ import annotations

import pyarrow as pa
from deltalake import DeltaTable, write_deltalake

from inspector.health import check_table, retention
from inspector.health.retention import RetentionState, retention_policy, retention_view
from inspector.log.deltalog import DeltaLog
from inspector.log.index import LogIndex
from inspector.settings import Settings
from inspector.table.history import build_history

DAY, HOUR, WEEK = 86_400_000, 3_600_000, 604_800_000
DELETES = "delta-golden/basic-with-inserts-deletes-checkpoint"  # 0..13 with deletes, checkpoint 10


def test_policy_defaults_and_a_bad_property_falls_back_to_the_default():
    default = retention_policy({})
    custom = retention_policy(
        {
            "delta.logRetentionDuration": "interval 2 days",
            "delta.deletedFileRetentionDuration": "interval 3 months",
        }
    )

    assert (default.log.ms, default.deleted_files.ms) == (30 * DAY, WEEK)
    assert custom.log.ms == 2 * DAY
    assert custom.deleted_files.ms == WEEK
    assert "delta.deletedFileRetentionDuration" in custom.problems[0]


def _vacuumed_table(root) -> None:
    """v0 write, v1 overwrite (removes v0's file), v2/v3 VACUUM START/END deleting it."""
    write_deltalake(str(root), pa.table({"id": [1, 2, 3]}))
    write_deltalake(str(root), pa.table({"id": [4, 5]}), mode="overwrite")
    DeltaTable(str(root)).vacuum(retention_hours=0, enforce_retention_duration=False, dry_run=False)


def test_vacuumed_version_is_marked_from_the_check_and_predicted_without_it(tmp_path):
    root = tmp_path / "vacuumed"
    _vacuumed_table(root)
    log = DeltaLog.open(str(root))
    history = build_history(log, Settings())

    checked = retention_view(log, history, check_table(log, all_versions=True, settings=Settings()))
    predicted = retention_view(log, history)

    for view in (checked, predicted):
        states = {v.version: v.state for v in view.versions}
        assert states == {
            0: RetentionState.DATA_VACUUMED,
            1: RetentionState.RESTORABLE,
            2: RetentionState.RESTORABLE,
            3: RetentionState.RESTORABLE,
        }
        assert [run.version for run in view.vacuums] == [2]
    assert "VACUUM at version 2" in checked.versions[0].reason


def test_files_missing_without_a_vacuum_are_incomplete_not_vacuumed(copy_table):
    root = copy_table(DELETES)
    log = DeltaLog.open(str(root))
    (root / log.commit(13).adds[0].path).unlink()
    log.refresh()

    view = retention_view(
        log,
        build_history(log, Settings()),
        check_table(log, all_versions=True, settings=Settings()),
    )

    assert view.versions[13].state == "incomplete"
    assert "no VACUUM" in view.versions[13].reason
    assert {v.state for v in view.versions[:13]} == {RetentionState.RESTORABLE}


def test_restorable_versions_expire_by_the_first_retention_that_applies(corpus):
    log = DeltaLog.open(str(corpus / DELETES))
    history = build_history(log, Settings())
    removed_at_5 = log.commit(5).removes[0].deletion_timestamp

    view = retention_view(log, history, now_ms=0)

    v4, latest = view.versions[4], view.versions[-1]
    assert (v4.state, v4.expires_by) == (RetentionState.RESTORABLE, "deleted-file retention")
    assert (
        v4.expires_at == removed_at_5 + WEEK
    )  # v4's file was removed by v5; VACUUM may delete it a week later
    assert latest.expires_at is None and "Current version" in latest.reason


def test_versions_whose_log_was_cleaned_up_are_log_expired(copy_table):
    root = copy_table(DELETES)
    for version in range(3):  # log cleanup deleted the oldest commits; checkpoint 10 is the base
        (root / "_delta_log" / f"{version:020d}.json").unlink()
    log = DeltaLog.open(str(root))

    view = retention_view(log, build_history(log, Settings()))

    states = {v.version: v.state for v in view.versions}
    assert {states[v] for v in range(3, 10)} == {RetentionState.LOG_EXPIRED}
    assert {states[v] for v in range(10, 14)} == {RetentionState.RESTORABLE}
    assert view.earliest_version == 10


def test_table_properties_set_the_retention(tmp_path):
    root = tmp_path / "short"
    write_deltalake(
        str(root),
        pa.table({"id": [1]}),
        configuration={
            "delta.logRetentionDuration": "interval 2 days",
            "delta.deletedFileRetentionDuration": "interval 1 hours",
        },
    )
    write_deltalake(str(root), pa.table({"id": [2]}), mode="overwrite")
    log = DeltaLog.open(str(root))

    view = retention_view(log, build_history(log, Settings()))

    assert view.policy.log.ms == 2 * DAY
    removed = log.commit(1).removes[0].deletion_timestamp
    assert view.versions[0].expires_at == removed + HOUR


def _view_with(root, index: LogIndex | None):
    log = DeltaLog.open(str(root), index=index)
    return retention_view(log, build_history(log, Settings()), now_ms=0)


def test_a_later_view_of_an_unchanged_log_reads_the_kept_removals(
    copy_table, tmp_path, monkeypatch
):
    root = copy_table(DELETES)
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    unindexed = _view_with(root, None)

    first = _view_with(root, index)
    monkeypatch.setattr(retention, "_first_removals", _never)  # the trace is not run again
    later = _view_with(root, index)

    assert first == later == unindexed
    assert any(v.expires_by == "deleted-file retention" for v in later.versions)


def test_a_changed_log_works_the_removals_out_afresh_and_never_gives_the_kept_ones(
    copy_table, tmp_path
):
    root = copy_table(DELETES)
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    _view_with(root, index)
    # v14 removes every file: each version's first removal is now known, v13's included
    write_deltalake(str(root), pa.table({"id": [1]}), mode="overwrite")

    later = _view_with(root, index)

    assert later == _view_with(root, None)
    assert later.versions[13].expires_by == "deleted-file retention"


def _never(*_: object) -> dict[int, int]:
    raise AssertionError("the removals were worked out again")


def test_damaged_kept_removals_are_worked_out_afresh(copy_table, tmp_path):
    root = copy_table(DELETES)
    index = LogIndex(str(tmp_path / "cache"), max_bytes=64 * 1024 * 1024)
    _view_with(root, index)
    (kept,) = (tmp_path / "cache").rglob("result-removals.bin")
    kept.write_bytes(kept.read_bytes()[:-7])  # truncated

    assert _view_with(root, index) == _view_with(root, None)
