"""Specification: the health check of a table in S3 equals the check of its local copy.

The copy is uploaded to moto's S3 server (a real server on loopback). Sizes come from one
listing of the table prefix; a damaged copy (a data file of the newest version deleted,
another truncated) gives the same verdicts, last consistent version and orphans.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.delta.paths import data_file_path
from inspector.files.filecheck import check_files
from inspector.health import check_table
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from tests.conftest import add_files

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit, checkpoint 10
DV_TABLE = "delta-kernel-java/basic-dv-no-checkpoint"  # a deletion vector at version 1


def _report(log: DeltaLog, **kw) -> dict:
    """The report's JSON with the location normalised."""
    report = check_table(log, settings=Settings(), **kw).to_json()
    text = repr(report).replace(log.table_root.rstrip("/"), "<root>")
    return {"text": text, "last": report}


def _same(local: Path, uri: str, options: dict[str, str], **kw) -> dict:
    here, there = (
        _report(DeltaLog.open(str(local)), **kw),
        _report(DeltaLog.open(uri, storage_options=options), **kw),
    )
    assert there["text"] == here["text"]
    return there["last"]


def _newest_adds(root: Path) -> list[str]:
    log = DeltaLog.open(str(root))
    return [a.path for a in log.commit(log.latest_version).adds]


@pytest.mark.parametrize("table", [APPENDS, DV_TABLE])
@pytest.mark.parametrize("deep", [False, True], ids=["fast", "deep"])
def test_an_intact_table_in_s3_checks_like_its_local_copy(s3_server, copy_table, table, deep):
    local = copy_table(table)
    report = _same(local, s3_server.upload(local), s3_server.options, deep=deep)
    assert report["lastConsistentVersion"] == report["latestVersion"]


def test_a_damaged_copy_in_s3_finds_the_same_last_consistent_version(s3_server, copy_table):
    local = copy_table(APPENDS)
    newest = _newest_adds(local)
    (local / newest[0]).unlink()  # not replicated yet
    (local / "orphan.parquet").write_bytes(b"x" * 7)
    uri = s3_server.upload(local)

    report = _same(local, uri, s3_server.options)

    assert report["lastConsistentVersion"] == report["latestVersion"] - 1
    assert report["orphanFiles"] == 1 and report["orphanBytes"] == 7
    full = _same(local, uri, s3_server.options, all_versions=True)
    assert full["lastConsistentVersion"] == report["lastConsistentVersion"]


def test_a_truncated_file_in_s3_is_a_size_mismatch_like_its_local_copy(s3_server, copy_table):
    local = copy_table(APPENDS)
    target = local / _newest_adds(local)[1]
    target.write_bytes(target.read_bytes()[:-5])

    report = _same(local, s3_server.upload(local), s3_server.options)

    assert report["lastConsistentVersion"] == report["latestVersion"] - 1


def test_the_shared_file_rule_lists_the_prefix_once_in_s3(s3_server, copy_table):
    local = copy_table(APPENDS)
    newest = _newest_adds(local)
    (local / newest[0]).unlink()
    uri = s3_server.upload(local)
    ours = DeltaLog.open(uri, storage_options=s3_server.options)
    snap, theirs = ours.snapshot(), DeltaLog.open(str(local)).snapshot()
    adds = list(add_files(snap))

    remote = check_files(snap.table_root, adds, workers=4, storage=snap.storage)
    here = check_files(theirs.table_root, list(add_files(theirs)), workers=4)

    assert [(i.path, i.state, i.key) for i in remote] == [(i.path, i.state, i.key) for i in here]
    assert [i.local_path for i in remote] == [data_file_path(uri, newest[0])]


def test_a_damaged_replica_in_s3_is_compared_like_its_local_copy(s3_server, copy_table, tmp_path):
    from inspector.connection import StorageOptions
    from inspector.health.replica import compare_replica
    from inspector.table import open_table

    primary = copy_table(APPENDS)
    replica = tmp_path / "replica"
    shutil.copytree(primary, replica)
    (replica / _newest_adds(primary)[0]).unlink()
    uri = s3_server.upload(replica)

    remote = compare_replica(
        open_table(str(primary), Settings()),
        open_table(uri, Settings(storage_options=StorageOptions(s3_server.options))),
        settings=Settings(),
    )
    local = compare_replica(
        open_table(str(primary), Settings()),
        open_table(str(replica), Settings()),
        settings=Settings(),
    )

    assert repr(remote.to_json()).replace(uri, "<replica>") == repr(local.to_json()).replace(
        str(replica), "<replica>"
    )
    assert remote.replica_last_consistent_version == 13
