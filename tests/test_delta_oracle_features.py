"""Specification: on a table Delta 4.4 writes with liquid clustering, type widening and row
tracking (besides deletion vectors, column mapping, the change data feed, v2 checkpoints
with sidecars and in-commit timestamps), Delta Inspector's answers are Delta's own:
DESCRIBE DETAIL, DESCRIBE HISTORY, its reader at every version, readChangeFeed, VACUUM
LITE and FULL DRY RUN, the operationMetrics of its RESTORE, the versions its reader
fails on when a file is gone, and the restores it refuses.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from inspector.health.check import check_table
from inspector.health.vacuum import VacuumMode, plan_vacuum
from inspector.log.deltalog import DeltaLog
from inspector.restore import execute_restore, plan_restore
from inspector.restore.planrecord import DeltaOutcome, Engine, deltas_restore
from inspector.settings import Settings
from inspector.table import open_table
from inspector.table.history import build_history
from inspector.table.history_time import iso
from inspector.table.overview import table_detail
from tests.conftest import DELTA_FEATURES, confirmed, vacuum_dry_run

pytestmark = pytest.mark.spark

FEATURES = {**DELTA_FEATURES, "delta.enableTypeWidening": "true"}
#: The version of ALTER COLUMN qty TYPE INT (type widening).
WIDENED = 3


@pytest.fixture(scope="module")
def clustered(spark, tmp_path_factory) -> str:
    """Versions 0..9 written by Delta: create (CLUSTER BY), insert, DELETE, widen a column,
    insert a wide value, UPDATE, MERGE, rename a clustering column, drop a column, OPTIMIZE."""
    root = str(tmp_path_factory.mktemp("delta") / "clustered")
    props = ", ".join(f"'{k}' = '{v}'" for k, v in FEATURES.items())
    for statement in (
        f"CREATE TABLE delta.`{root}` (id INT, region STRING, qty SMALLINT, note STRING) "
        f"USING delta CLUSTER BY (region, id) TBLPROPERTIES ({props})",
        f"INSERT INTO delta.`{root}` SELECT id, IF(id % 2 = 0, 'eu', 'us'), "
        "CAST(id AS SMALLINT), CONCAT('n', id) FROM range(40)",
        f"DELETE FROM delta.`{root}` WHERE id % 7 = 0",
        f"ALTER TABLE delta.`{root}` ALTER COLUMN qty TYPE INT",
        f"INSERT INTO delta.`{root}` VALUES (100, 'eu', 100000, 'wide')",
        f"UPDATE delta.`{root}` SET qty = qty * 10 WHERE id % 5 = 0",
        f"MERGE INTO delta.`{root}` t USING (SELECT id, 'eu' AS region, -1 AS qty, "
        "'merged' AS note FROM range(35, 45)) s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET t.qty = s.qty WHEN NOT MATCHED THEN INSERT *",
        f"ALTER TABLE delta.`{root}` RENAME COLUMN region TO area",
        f"ALTER TABLE delta.`{root}` DROP COLUMN note",
        f"OPTIMIZE delta.`{root}`",
    ):
        spark.sql(statement)
    return root


def copy_of(root: str, tmp_path: Path, name: str) -> str:
    target = tmp_path / name
    shutil.copytree(root, target)
    return str(target)


def test_delta_wrote_every_feature_the_fixture_claims(clustered):
    log = DeltaLog.open(clustered)
    detail, _ = table_detail(log, Settings(), whole_log=True)

    assert {"clustering", "typeWidening", "rowTracking", "deletionVectors", "columnMapping"} | {
        "changeDataFeed",
        "v2Checkpoint",
        "inCommitTimestamp",
    } <= set(detail.table_features)
    assert detail.checkpoint_versions == (3, 6, 9)
    assert os.listdir(os.path.join(clustered, "_delta_log", "_sidecars"))


def describe_detail(spark, root: str) -> dict:
    return spark.sql(f"DESCRIBE DETAIL delta.`{root}`").collect()[0].asDict()


def same_detail(ours: dict, theirs: dict) -> None:
    for key in ("format", "id", "name", "description", "partitionColumns", "numFiles"):
        assert ours[key] == theirs[key], key
    for key in ("sizeInBytes", "minReaderVersion", "minWriterVersion"):
        assert ours[key] == theirs[key], key
    assert ours["clusteringColumns"] == list(theirs["clusteringColumns"])
    assert ours["properties"] == dict(theirs["properties"])
    assert ours["tableFeatures"] == sorted(theirs["tableFeatures"])
    assert ours["location"] == theirs["location"].removeprefix("file:")
    created = theirs["createdAt"]
    assert ours["createdAt"] == (
        None if created is None else iso(round(created.timestamp() * 1000))
    )


def test_detail_equals_describe_detail(spark, clustered):
    log = DeltaLog.open(clustered)
    ours = table_detail(log, Settings())[0].to_json()
    theirs = describe_detail(spark, clustered)

    same_detail(ours, theirs)
    assert ours["clusteringColumns"] == ["area", "id"]  # logical, after the rename


def test_last_modified_is_the_in_commit_timestamp_where_describe_detail_shows_the_file_time(
    spark, clustered
):
    """Pinned: Delta 4.4's DESCRIBE DETAIL shows the latest commit file's modification time
    even with in-commit timestamps; DESCRIBE HISTORY (and Delta Inspector) the in-commit
    timestamp, which a copy of the table keeps."""
    log = DeltaLog.open(clustered)
    latest = log.commit(log.latest_version)
    detail = table_detail(log, Settings())[0]
    history = spark.sql(f"DESCRIBE HISTORY delta.`{clustered}` LIMIT 1").collect()[0]
    theirs = describe_detail(spark, clustered)["lastModified"]

    assert detail.last_modified == latest.commit_info.in_commit_timestamp
    assert detail.last_modified == int(history["timestamp"].timestamp() * 1000)
    assert int(theirs.timestamp() * 1000) == latest.file.modification_time


@pytest.mark.parametrize(
    "relative",
    [
        "dat-v0.0.2/basic_partitioned/delta",
        "delta-kernel-rs/cdf-column-mapping-name-mode",
        "delta-golden/type-widening",
    ],
)
def test_detail_of_corpus_tables_equals_describe_detail(spark, copy_table, relative):
    root = str(copy_table(relative))
    ours = table_detail(DeltaLog.open(root), Settings())[0].to_json()

    same_detail(ours, describe_detail(spark, root))


def test_history_equals_describe_history(spark, clustered):
    ours = build_history(DeltaLog.open(clustered), Settings())
    theirs = {r["version"]: r for r in spark.sql(f"DESCRIBE HISTORY delta.`{clustered}`").collect()}

    assert [e.version for e in ours] == sorted(theirs)
    for entry in ours:
        row = theirs[entry.version]
        assert entry.operation == row["operation"]
        assert entry.timestamps.history == int(row["timestamp"].timestamp() * 1000)
        assert {k: str(v) for k, v in entry.operation_metrics.items()} == dict(
            row["operationMetrics"] or {}
        )
        assert entry.operation_parameters.keys() == row["operationParameters"].keys()


def test_a_change_feed_across_the_type_change_of_a_mapped_column_is_refused_in_one_line(
    spark, clustered
):
    """Pinned: with column mapping, Delta's readChangeFeed refuses a range across ALTER
    COLUMN TYPE (a schema change), as it does across a rename; the refusal is one line
    saying to split the range."""
    from inspector.delta.errors import UnsupportedFeature
    from inspector.rows.changefeed import build_changes

    log = DeltaLog.open(clustered)
    with pytest.raises(UnsupportedFeature, match="incompatible data schema") as caught:
        build_changes(log, 1, 6, settings=Settings(), spark=spark)
    assert "split a change range" in caught.value.hint


@pytest.mark.parametrize("mode", ["LITE", "FULL"])
def test_the_vacuum_plan_lists_the_files_of_vacuum_dry_run(spark, clustered, tmp_path, mode):
    copy = copy_of(clustered, tmp_path, "t")
    Path(copy, "orphan.parquet").write_bytes(b"not referenced")
    theirs = vacuum_dry_run(spark, copy, mode)
    theirs = {p.removeprefix(copy + "/") for p in theirs if not os.path.isdir(p)}

    plan = plan_vacuum(DeltaLog.open(copy), retain_hours=0, mode=VacuumMode(mode.lower()))

    assert {f.path for f in plan.files} == theirs
    assert any(p.startswith("deletion_vector_") for p in theirs)
    assert ("orphan.parquet" in theirs) is (mode == "FULL")


def test_a_table_missing_a_file_is_unreadable_by_delta_at_exactly_the_versions_check_names(
    spark, clustered, tmp_path
):
    copy = copy_of(clustered, tmp_path, "damaged")
    log = DeltaLog.open(copy)
    os.remove(os.path.join(copy, log.commit(1).adds[0].path))

    report = check_table(DeltaLog.open(copy), all_versions=True, settings=Settings())
    failing = set()
    for version in range(log.earliest_version, log.latest_version + 1):
        try:
            spark.read.format("delta").option("versionAsOf", version).load(copy).collect()
        except Exception as exc:  # noqa: BLE001  (Delta raises a Py4J/Spark error)
            assert "FILE_NOT_EXIST" in str(exc) or "FileNotFound" in str(exc), version
            failing.add(version)

    assert {v.version for v in report.versions if not v.is_complete} == failing
    assert failing and log.latest_version not in failing


def test_a_dry_run_predicts_the_metrics_of_deltas_restore_across_type_widening(
    spark, clustered, tmp_path
):
    copy = copy_of(clustered, tmp_path, "restore")
    latest = DeltaLog.open(copy).latest_version
    settings = Settings(audit_log=str(tmp_path / "audit.jsonl"))
    plan = plan_restore(open_table(copy, settings), WIDENED - 1, settings=settings)
    assert plan.engines().commit is Engine.DELTA
    assert deltas_restore(plan.guards, plan.file_problems).outcome is DeltaOutcome.COMMITS

    result = execute_restore(confirmed(plan, "oracle"), settings=settings, spark=spark)

    commit = DeltaLog.open(copy).commit(latest + 1).commit_info
    assert dict(commit.operation_metrics) == plan.metrics.operation_metrics()
    # The cross-engine check is skipped, saying why: delta-rs cannot read type widening.
    assert result.verification.ok, [c.message for c in result.verification.failures]
    (cross,) = [c for c in result.verification.checks if c.name == "deltalake_rows"]
    assert cross.status == "skipped" and "TypeWidening" in cross.message


def test_the_plan_says_deltas_restore_refuses_a_missing_data_file(spark, clustered, tmp_path):
    copy = copy_of(clustered, tmp_path, "missing")
    gone = DeltaLog.open(copy).commit(1).adds[0].path
    os.remove(os.path.join(copy, gone))
    settings = Settings(audit_log=str(tmp_path / "audit.jsonl"))

    plan = plan_restore(open_table(copy, settings), 2, settings=settings)
    verdict = deltas_restore(plan.guards, plan.file_problems)

    assert verdict.outcome is DeltaOutcome.REFUSES and gone in verdict.paths
    assert plan.to_json()["deltaRestore"]["outcome"] == "refuses"
    with pytest.raises(Exception) as refused:  # noqa: PT011  (a Py4J/Spark error)
        spark.sql(f"RESTORE TABLE delta.`{copy}` TO VERSION AS OF 2")
    assert os.path.basename(gone) in str(refused.value)
    assert DeltaLog.open(copy).latest_version == plan.read_version  # nothing written


def test_the_plan_says_deltas_restore_commits_an_unreadable_version_without_a_deletion_vector(
    spark, clustered, tmp_path
):
    """Delta's RESTORE checks only that data files exist: without a deletion-vector file of
    the target it commits, and the restored version cannot be read. Our guard refuses."""
    copy = copy_of(clustered, tmp_path, "no-dv")
    target = DeltaLog.open(copy).snapshot(2)
    dv = next(a.deletion_vector for a in target.files.values() if a.deletion_vector)
    os.remove(os.path.join(copy, dv.relative_or_absolute_path()))
    settings = Settings(audit_log=str(tmp_path / "audit.jsonl"))

    plan = plan_restore(open_table(copy, settings), 2, settings=settings)
    verdict = deltas_restore(plan.guards, plan.file_problems)

    assert verdict.outcome is DeltaOutcome.COMMITS_UNREADABLE and not plan.passed
    spark.sql(f"RESTORE TABLE delta.`{copy}` TO VERSION AS OF 2")
    assert DeltaLog.open(copy).latest_version == plan.read_version + 1
    with pytest.raises(Exception, match="FILE_NOT_EXIST|FileNotFound"):
        spark.read.format("delta").load(copy).collect()
