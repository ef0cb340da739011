"""Disaster recovery end to end: check a damaged replica, restore to the last consistent
version with the guarded restore, and prove the result (real Spark session).

For each replication failure: the check names the last consistent version; the
restore plan only removes the missing files from the log (nothing missing is
re-added); after the restore every file exists and the rows equal that version's.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import write_deltalake

from inspector.delta.errors import CorruptLog
from inspector.health import check_table, recovery_reason
from inspector.log.deltalog import DeltaLog
from inspector.restore import execute_restore, plan_restore
from inspector.rows.delta_engine import read_snapshot
from inspector.settings import Settings
from inspector.table import open_table
from tests.conftest import confirmed

CHECK_WORKERS = Settings().check_workers

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit, checkpoint 10
FIVE_FILES = "delta-kernel-java/kernel-pagination-all-jsons"  # 0..2, 5 files per commit
DV_TABLE = "delta-kernel-java/basic-dv-no-checkpoint"  # 0 write, 1 delete with a deletion vector
DELETES = "delta-golden/basic-with-inserts-deletes-checkpoint"  # 0..13 with deletes, checkpoint 10


def _lose_newest_file(root: Path) -> set[str]:
    add = DeltaLog.open(str(root)).commit(14).adds[0]
    (root / add.path).unlink()
    return {add.path}


def _truncate_newest_file(root: Path) -> set[str]:
    add = DeltaLog.open(str(root)).commit(14).adds[1]
    os.truncate(root / add.path, add.size // 3)
    return {add.path}


def _lose_three_of_five(root: Path) -> set[str]:
    adds = DeltaLog.open(str(root)).commit(2).adds[:3]
    for add in adds:
        (root / add.path).unlink()
    return {a.path for a in adds}


def _lose_deletion_vector(root: Path) -> set[str]:
    (dv_file,) = root.glob("deletion_vector_*.bin")
    dv_file.unlink()
    return {a.path for a in DeltaLog.open(str(root)).commit(1).adds}  # the file whose DV is gone


def _reset_times_and_lose_newest_file(root: Path) -> set[str]:
    later = time.time() + 86_400 * 30
    for path in root.rglob("*"):
        os.utime(path, (later, later))
    return _lose_newest_file(root)


SCENARIOS = {
    "newest data file deleted": (APPENDS, _lose_newest_file, 13),
    "newest data file truncated": (APPENDS, _truncate_newest_file, 13),
    "only some of several new files": (FIVE_FILES, _lose_three_of_five, 1),
    "deletion vector file missing": (DV_TABLE, _lose_deletion_vector, 0),
    "all file times changed, newest file lost": (APPENDS, _reset_times_and_lose_newest_file, 13),
}


def _rows(log: DeltaLog, version: int, spark) -> list[tuple]:
    return sorted(
        (
            tuple(r)
            for r in read_snapshot(
                log.snapshot(version), spark=spark, check_workers=CHECK_WORKERS
            ).collect()
        ),
        key=repr,
    )


def _recover(root: Path, spark, tmp_path: Path, expected_target: int, lost: set[str]):
    settings = Settings(audit_log=str(tmp_path / "audit.jsonl"))
    table = open_table(str(root), Settings())
    log = table.log
    report = check_table(log, settings=settings)
    assert report.last_consistent_version == expected_target
    assert [v.version for v in report.damaged_versions] == list(
        range(expected_target + 1, report.latest_version + 1)
    )

    plan = plan_restore(table, expected_target, settings=settings)

    removed = {a.path for a in plan.files_to_remove}
    assert lost <= removed  # the missing files only leave the log...
    assert plan.num_file_problems == 0 and plan.passed  # ...and nothing missing is re-added
    result = execute_restore(
        confirmed(plan, recovery_reason(report)), settings=settings, spark=spark
    )
    return log, result


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_restore_to_the_last_consistent_version_leaves_a_complete_table(
    scenario, copy_table, spark, tmp_path
):
    table, damage, target = SCENARIOS[scenario]
    root = copy_table(table)
    lost = damage(root)

    log, result = _recover(root, spark, tmp_path, target, lost)

    after = check_table(DeltaLog.open(str(root)), all_versions=False, settings=Settings())
    assert after.latest_version == result.committed_version and after.is_consistent
    log.refresh()
    assert _rows(log, result.committed_version, spark) == _rows(log, target, spark)
    assert (
        "last consistent version"
        in log.commit(result.committed_version).commit_info.raw["userMetadata"]
    )


def test_recovery_of_a_table_written_here(tmp_path, spark):
    root = tmp_path / "events"
    for i in range(3):
        write_deltalake(
            str(root),
            pa.table({"id": list(range(i * 6, i * 6 + 6)), "p": ["a", "b", "c"] * 2}),
            partition_by=["p"],
            mode="append",
        )
    adds = DeltaLog.open(str(root)).commit(2).adds[:2]
    for add in adds:
        (root / add.path).unlink()

    log, result = _recover(root, spark, tmp_path, 1, {a.path for a in adds})

    log.refresh()
    assert _rows(log, result.committed_version, spark) == _rows(log, 1, spark)
    assert len(_rows(log, result.committed_version, spark)) == 12


def test_no_restore_can_be_planned_on_an_unreadable_latest_version(copy_table, tmp_path):
    root = copy_table(DELETES)
    (root / "_delta_log" / f"{12:020d}.json").unlink()
    table = open_table(str(root), Settings())

    assert check_table(table.log, settings=Settings()).last_consistent_version == 11
    with pytest.raises(CorruptLog):  # raised from the log, before Spark is needed
        plan_restore(table, 11, settings=Settings(audit_log=str(tmp_path / "audit.jsonl")))


def test_the_restore_command_printed_by_check_is_a_valid_dry_run(
    copy_table, spark, tmp_path, monkeypatch, capsys
):
    import json
    import shlex

    from inspector.cli.main import main
    from inspector.health import restore_command

    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    root = copy_table(APPENDS)
    _lose_newest_file(root)
    command = restore_command(check_table(DeltaLog.open(str(root)), settings=Settings()))
    argv = shlex.split(command)[3:]  # drop "python -m inspector"

    assert main([*argv, "--dry-run", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)["plan"]
    assert plan["targetVersion"] == 13 and plan["numMissingFiles"] == 0
    assert plan["numRemovedFiles"] == 2 and plan["numRestoredFiles"] == 0
