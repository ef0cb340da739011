"""Specification: every answer agrees with Delta Lake itself, on tables Delta writes here.

Delta 4.4 (its jars from the cache ./dev.sh fills) writes a table with deletion vectors
(DELETE, UPDATE, MERGE), column mapping (rename, drop), the change data feed, row
tracking, in-commit timestamps and v2 checkpoints; then Delta Inspector's history, change
feed and restore plan are compared with DESCRIBE HISTORY, readChangeFeed and the
operationMetrics of Delta's own RESTORE.
"""

from __future__ import annotations

import shutil

import pytest

from inspector.log.deltalog import DeltaLog
from inspector.restore import execute_restore, plan_restore
from inspector.restore.planrecord import Engine
from inspector.rows.session import spark_status
from inspector.settings import Settings
from inspector.table import open_table
from inspector.table.history import build_history
from tests.conftest import confirmed

pytestmark = pytest.mark.spark


def test_the_session_loads_deltas_extension_and_names_its_version(spark):
    assert "DeltaSparkSessionExtension" in spark.conf.get("spark.sql.extensions")
    status = spark_status()
    assert status.delta_version == "4.4.0"
    assert "Delta Lake 4.4.0" in status.describe()


def test_history_equals_describe_history(spark, delta_table):
    ours = build_history(DeltaLog.open(delta_table), Settings())
    theirs = {
        r["version"]: r for r in spark.sql(f"DESCRIBE HISTORY delta.`{delta_table}`").collect()
    }

    assert [e.version for e in ours] == sorted(theirs)
    for entry in ours:
        row = theirs[entry.version]
        assert entry.operation == row["operation"]
        assert entry.timestamps.history == int(row["timestamp"].timestamp() * 1000)
        assert {
            k: str(v) if not isinstance(v, str) else v
            for k, v in entry.operation_parameters.items()
        } == dict(row["operationParameters"]) or entry.operation_parameters.keys() == row[
            "operationParameters"
        ].keys()
        assert {k: str(v) for k, v in entry.operation_metrics.items()} == dict(
            row["operationMetrics"] or {}
        )
        assert entry.user_metadata == row["userMetadata"]
        assert entry.engine_info == row["engineInfo"]


def test_a_dry_run_predicts_the_metrics_of_deltas_restore(spark, delta_table, tmp_path):
    latest = DeltaLog.open(delta_table).latest_version
    for target in (1, 3, 4):
        copy = tmp_path / f"restore-to-{target}"
        shutil.copytree(delta_table, copy)
        settings = Settings(audit_log=str(tmp_path / "audit.jsonl"))
        plan = plan_restore(open_table(str(copy), Settings()), target, settings=settings)
        assert plan.engines().commit is Engine.DELTA
        result = execute_restore(confirmed(plan, "oracle"), settings=settings, spark=spark)

        assert result.engine is Engine.DELTA and result.committed_version == latest + 1
        commit = DeltaLog.open(str(copy)).commit(latest + 1).commit_info
        assert commit.operation == "RESTORE"
        assert dict(commit.operation_metrics) == plan.metrics.operation_metrics(), target
        assert result.verification.ok, [c.name for c in result.verification.failures]
