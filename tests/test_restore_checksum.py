"""Specification: a restore's verification compares the new version with the target version's
checksum (``.crc``, what its writer recorded): the files' count and bytes and the metadata.
The protocol, set transactions and row-id high-water marks legitimately differ after a
RESTORE and are not compared; a target without a ``.crc`` skips the check, and a restore
that leaves missing files out compares the metadata alone. On a table Delta writes here,
every checksum Delta left matches the health check's replay, and a restore's verification
passes its checksum check."""

from __future__ import annotations

import shutil

import pytest

from inspector.health import check_table
from inspector.health.records import ChecksumStatus
from inspector.log.deltalog import DeltaLog
from inspector.restore import execute_restore, plan_restore
from inspector.restore.verify import CheckStatus, _checksum_check
from inspector.settings import Settings
from inspector.table import open_table
from tests.conftest import confirmed

CDF_DV = "delta-rs/cdf-table-with-cdc-and-dvs"  # 26 versions, each with a .crc


def test_a_version_with_the_targets_state_passes_the_checksum_check(copy_table):
    log = DeltaLog.open(str(copy_table(CDF_DV)))

    status, message = _checksum_check(log, log.snapshot(20), 20, set())

    assert status is CheckStatus.PASSED
    assert "files, bytes and metadata" in message


def test_a_version_with_other_files_fails_the_checksum_check_naming_them(copy_table):
    log = DeltaLog.open(str(copy_table(CDF_DV)))
    other = next(
        v for v in range(20, 0, -1) if log.snapshot(v).num_files != log.snapshot(20).num_files
    )

    status, message = _checksum_check(log, log.snapshot(other), 20, set())

    assert status is CheckStatus.FAILED
    assert "numFiles" in message and "version 20's checksum" in message


def test_a_restore_that_left_files_out_compares_only_the_metadata(copy_table):
    log = DeltaLog.open(str(copy_table(CDF_DV)))
    other = next(
        v for v in range(20, 0, -1) if log.snapshot(v).num_files != log.snapshot(20).num_files
    )

    status, message = _checksum_check(log, log.snapshot(other), 20, {("part-x.parquet", None)})

    assert status is CheckStatus.PASSED and "metadata equal" in message


def test_a_target_without_a_checksum_skips_the_check(copy_table):
    root = copy_table(CDF_DV)
    (root / "_delta_log" / f"{20:020d}.crc").unlink()
    log = DeltaLog.open(str(root))

    status, message = _checksum_check(log, log.snapshot(20), 20, set())

    assert status is CheckStatus.SKIPPED and "no checksum file" in message


@pytest.mark.spark
def test_every_checksum_delta_writes_matches_the_replay(delta_table):
    report = check_table(DeltaLog.open(delta_table), all_versions=True, settings=Settings())

    checked = [v.checksum for v in report.versions if v.checksum is not None]
    assert checked, "Delta writes a .crc beside its commits"
    assert all(c.status is ChecksumStatus.MATCHES for c in checked), checked


@pytest.mark.spark
def test_a_restore_of_a_table_delta_wrote_passes_its_checksum_check(spark, delta_table, tmp_path):
    copy = tmp_path / "orders"
    shutil.copytree(delta_table, copy)
    settings = Settings(audit_log=str(tmp_path / "audit.jsonl"))
    plan = plan_restore(open_table(str(copy), settings), 3, settings=settings)

    result = execute_restore(confirmed(plan, "checksum"), settings=settings, spark=spark)

    (check,) = [c for c in result.verification.checks if c.name == "checksum"]
    assert check.status is CheckStatus.PASSED, check.message
