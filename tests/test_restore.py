"""Specification: a guarded restore makes the table's rows those of the target version, says so
in the history, keeps the protocol, carries deletion vectors, identity marks and in-commit
timestamps, and can be undone. Real tables (corpus copies and tables written here), real Spark.
"""

from __future__ import annotations

import json
import shutil

import pytest

from inspector.log.deltalog import DeltaLog
from inspector.restore import execute_restore, plan_restore, plan_undo
from inspector.restore.audit import read_audit
from inspector.restore.planrecord import Engine
from inspector.settings import Settings
from inspector.table import open_table
from inspector.table.history import build_history
from tests.conftest import confirmed, rows, sales_table

pytestmark = pytest.mark.spark


def restore(root, target, settings, spark, **kwargs):
    plan = plan_restore(open_table(str(root), settings), target, settings=settings)
    assert plan.passed, [g.message for g in plan.guards if not g.passed]
    return execute_restore(
        confirmed(plan, kwargs.pop("reason", "test restore"), **kwargs),
        settings=settings,
        spark=spark,
    )


def test_a_restore_brings_back_the_target_rows_and_the_history_records_it(
    tmp_path, settings, spark
):
    table = sales_table(tmp_path / "sales")
    before = DeltaLog.open(table).snapshot()
    plan = plan_restore(open_table(table, settings), 1, settings=settings)

    result = execute_restore(
        confirmed(plan, "overwrite at v4 was a mistake", operator="ana"),
        settings=settings,
        spark=spark,
    )

    assert result.committed_version == 5 and result.pre_restore_version == 4
    assert rows(table, 5, spark) == rows(table, 1, spark)
    entry = build_history(DeltaLog.open(table), Settings())[-1]
    assert (entry.version, entry.operation, entry.read_version) == (5, "RESTORE", 4)
    assert entry.operation_parameters == {"version": 1, "timestamp": None}
    assert entry.operation_metrics == plan.metrics.operation_metrics()
    assert entry.user_metadata == "overwrite at v4 was a mistake"
    # Delta's RESTORE writes no userName outside Databricks; the audit log names the operator.
    assert entry.user == ("ana" if result.engine is Engine.OWN else None)
    assert read_audit(settings.audit_log)[-1].who == "ana"
    assert entry.is_blind_append is False and entry.isolation_level == "Serializable"
    after = DeltaLog.open(table).snapshot()
    assert after.protocol == before.protocol
    assert {p["region"] for p in plan.partitions_touched} == {"eu", "us", "apac"}
    assert result.verification.ok
    assert {c.name: c.status for c in result.verification.checks} == {
        **dict.fromkeys(("files", "metadata", "protocol", "row_count", "deltalake_rows"), "passed"),
        "checksum": "skipped",  # deltalake writes no .crc
    }


def test_the_plan_reports_deltas_metrics_and_rows(tmp_path, settings, spark):
    table = sales_table(tmp_path / "sales")
    handle = open_table(table, Settings())
    log = handle.log
    current, target = log.snapshot(4), log.snapshot(1)

    plan = plan_restore(handle, 1, settings=settings)

    metrics = plan.metrics.to_json()
    assert metrics["numRestoredFiles"] == len(set(target.files) - set(current.files))
    assert metrics["numRemovedFiles"] == len(set(current.files) - set(target.files))
    assert metrics["restoredFilesSize"] == sum(a.size for a in plan.files_to_add)
    assert metrics["removedFilesSize"] == sum(a.size for a in plan.files_to_remove)
    assert metrics["numOfFilesAfterRestore"] == target.num_files
    assert metrics["tableSizeAfterRestore"] == target.size_in_bytes
    assert (plan.rows_before, plan.rows_after) == (1, 5)
    assert any("Streaming readers" in w for w in plan.warnings)
    assert any("join to this one" in w for w in plan.warnings)
    assert DeltaLog.open(table).latest_version == 4  # a plan writes nothing


def test_undo_brings_back_the_pre_restore_rows(tmp_path, settings, spark):
    table = sales_table(tmp_path / "sales")
    pre_restore_rows = rows(table, 4, spark)
    result = restore(table, 1, settings, spark)

    undo = plan_undo(result, settings=settings)
    assert (undo.read_version, undo.target_version) == (5, 4)
    undone = execute_restore(confirmed(undo, "undo"), settings=settings, spark=spark)

    assert undone.committed_version == 6
    assert rows(table, 6, spark) == pre_restore_rows
    outcomes = [(e.outcome, e.to_version) for e in read_audit(settings.audit_log)]
    assert outcomes == [("planned", 1), ("committed", 1), ("planned", 4), ("committed", 4)]


@pytest.mark.parametrize(
    "corpus_table, current, target",
    [
        ("delta-rs/cdf-table-with-cdc-and-dvs", 25, 20),  # across MERGE, UPDATE, DELETE, OPTIMIZE
        ("delta-kernel-java/basic-dv-with-checkpoint", 46, 10),  # a checkpointed DV table
    ],
)
def test_a_restore_across_deletes_and_updates_re_adds_the_right_deletion_vectors(
    copy_table, settings, spark, corpus_table, current, target
):
    table = copy_table(corpus_table)
    log = DeltaLog.open(str(table))
    wanted = log.snapshot(target)
    assert log.latest_version == current

    result = restore(table, target, settings, spark)

    restored = DeltaLog.open(str(table)).snapshot(result.committed_version)
    assert set(restored.files) == set(wanted.files)
    re_added = [a for a in result.plan.files_to_add if a.deletion_vector is not None]
    assert re_added, "the target has files with deletion vectors that the restore must bring back"
    for add in re_added:
        assert (
            restored.files[add.key].raw["deletionVector"]
            == wanted.files[add.key].raw["deletionVector"]
        )
    assert rows(table, result.committed_version, spark) == rows(table, target, spark)
    assert restored.protocol == wanted.protocol
    assert result.verification.ok, [c.message for c in result.verification.failures]


def test_identity_high_water_marks_never_go_back(copy_table, settings, spark):
    table = copy_table("delta-rs/checkpoint-v2-table")  # identity column + V2 checkpoints

    result = restore(table, 2, settings, spark)

    schema = DeltaLog.open(str(table)).snapshot().metadata.schema
    assert schema.get("id").metadata["delta.identity.highWaterMark"] == 44  # not 11, version 2's
    assert rows(table, result.committed_version, spark) == rows(table, 2, spark)
    assert result.verification.ok, [c.message for c in result.verification.failures]


def test_deltas_restore_of_a_table_with_in_commit_timestamps_gets_one_on_its_commit(
    delta_table, tmp_path, settings, spark
):
    table = tmp_path / "orders"
    shutil.copytree(delta_table, table)
    log = DeltaLog.open(str(table))
    previous = log.commit(log.latest_version).commit_info.in_commit_timestamp

    result = restore(table, 1, settings, spark)

    assert result.engine == Engine.DELTA
    _assert_restore_has_an_in_commit_timestamp_after(table, result, previous)
    assert rows(table, result.committed_version, spark) == rows(table, 1, spark)


def test_the_own_writers_restore_of_a_table_with_in_commit_timestamps_gets_one_on_its_commit(
    copy_table, settings, spark
):
    """Our writer (object stores, files left out) keeps the rule too. This corpus copy's
    commit 1 has a stale Hadoop .crc sidecar: Spark reads local files without checking
    them (the raw local file system), so Delta reads it and verifies the restore."""
    from inspector.restore import Override

    table = copy_table("delta-rs/cdc_ict_table")
    log = DeltaLog.open(str(table))
    previous = log.commit(3).commit_info.in_commit_timestamp
    gone = sorted(set(log.snapshot(1).files) - set(log.snapshot().files))[0][0]
    (table / gone).unlink()
    plan = plan_restore(open_table(str(table), settings), 1, settings=settings)
    partial = frozenset({Override.ALLOW_MISSING_FILES})

    result = execute_restore(
        confirmed(plan, "r", overrides=partial), settings=settings, spark=spark
    )

    assert result.engine == Engine.OWN and result.skipped_files == (gone,)
    _assert_restore_has_an_in_commit_timestamp_after(table, result, previous)
    assert result.verification.ok, [c.message for c in result.verification.failures]


def _assert_restore_has_an_in_commit_timestamp_after(table, result, previous: int) -> None:
    log = DeltaLog.open(str(table))
    first_line = json.loads(log.commit_text(result.committed_version).splitlines()[0])
    assert first_line["commitInfo"]["inCommitTimestamp"] > previous
    entry = build_history(log, Settings())[-1]
    assert entry.timestamps.source == "inCommitTimestamp"


def test_a_restore_by_timestamp_restores_the_version_current_at_that_time(
    tmp_path, settings, spark
):
    """Delta restores exactly the confirmed version; the time asked by is in the audit log."""
    table = sales_table(tmp_path / "sales")
    handle = open_table(table, Settings())
    entry = build_history(handle.log, Settings())[2]
    when = entry.timestamp.isoformat()

    plan = plan_restore(handle, when, settings=settings)
    result = execute_restore(confirmed(plan, "by time"), settings=settings, spark=spark)

    assert plan.target_version == 2
    info = DeltaLog.open(table).commit(result.committed_version).commit_info
    assert info.operation == "RESTORE" and int(info.operation_parameters["version"]) == 2
    committed = read_audit(settings.audit_log)[-1]
    assert committed.outcome == "committed" and committed.to_version == 2
    assert committed.to_timestamp is not None
    assert committed.to_timestamp.startswith(entry.timestamp.strftime("%Y-%m-%d %H:%M:%S"))


def test_files_lost_from_the_current_version_are_only_removed_from_the_log(
    tmp_path, settings, spark
):
    table = sales_table(tmp_path / "sales")
    (lost,) = DeltaLog.open(table).commit(4).adds  # "replication" lost the overwrite's file
    (tmp_path / "sales" / lost.path).unlink()

    plan = plan_restore(open_table(table, settings), 1, settings=settings)
    result = execute_restore(confirmed(plan, "recover"), settings=settings, spark=spark)

    assert plan.passed and any("already missing" in w for w in plan.warnings)
    assert lost.key in {a.key for a in plan.files_to_remove}
    assert rows(table, result.committed_version, spark) == rows(table, 1, spark)
    assert result.verification.ok
