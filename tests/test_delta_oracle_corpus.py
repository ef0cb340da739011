"""Specification: the full VACUUM plan lists the files of Delta's VACUUM FULL DRY RUN, and a
dry run predicts the operationMetrics of Delta's RESTORE on corpus tables of older writers."""

from __future__ import annotations

import os
import shutil

import pytest

from inspector.log.deltalog import DeltaLog
from inspector.restore import execute_restore, plan_restore
from inspector.restore.planrecord import Engine
from inspector.settings import Settings
from inspector.table import open_table
from tests.conftest import confirmed, vacuum_dry_run

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("mode", ["FULL"])
def test_the_vacuum_plan_lists_the_files_of_vacuum_dry_run(spark, delta_table, tmp_path, mode):
    from inspector.health.vacuum import VacuumMode, plan_vacuum

    copy = str(tmp_path / "t")
    shutil.copytree(delta_table, copy)
    (tmp_path / "t" / "orphan.parquet").write_bytes(b"not referenced")
    theirs = vacuum_dry_run(spark, copy, mode)

    plan = plan_vacuum(DeltaLog.open(copy), retain_hours=0, mode=VacuumMode(mode.lower()))

    assert {
        os.path.join(copy, f.path) if not f.path.startswith("/") else f.path for f in plan.files
    } == theirs


#: Corpus tables from older writers (Spark + Delta 0.x to 3.x, Databricks, delta-rs) whose
#: data files are all present: restored to version 0 by Delta, with our plan's prediction.
CORPUS_RESTORES = (
    "delta-golden/snapshot-repartitioned",
    "delta-kernel-rs/cdf-table-partitioned",
    "delta-rs/simple_table_with_cdc",
    "delta-golden/type-widening",
    "delta-kernel-rs/cdf-column-mapping-name-mode",
    "dat-v0.0.2/with_checkpoint/delta",
)


@pytest.mark.parametrize("relative", CORPUS_RESTORES)
def test_deltas_restore_of_a_corpus_table_commits_the_planned_metrics(
    spark, copy_table, tmp_path, relative
):
    root = str(copy_table(relative))
    settings = Settings(audit_log=str(tmp_path / "audit.jsonl"))
    plan = plan_restore(open_table(root, settings), 0, settings=settings)
    assert plan.passed, [g.message for g in plan.guards if not g.passed]

    result = execute_restore(confirmed(plan, "corpus oracle"), settings=settings, spark=spark)

    assert result.engine is Engine.DELTA
    commit = DeltaLog.open(root).commit(result.committed_version).commit_info
    assert dict(commit.operation_metrics) == plan.metrics.operation_metrics()
