"""Specification: the CLI answers for a table in S3 as for its local copy.

The table is uploaded to moto's S3 server (a real server on loopback); the storage
options come from the environment (``AWS_*``), as an operator's shell gives them.
Locations in outputs are normalised (the URI and the local path both become ``<root>``),
and file modification times are dropped: an uploaded copy's objects carry the upload time,
and Delta takes a commit's time from its file when no in-commit timestamp is recorded.
"""

from __future__ import annotations

import json

import pytest

from inspector.log.deltalog import DeltaLog
from tests.conftest import run_main, sales_table
from tests.object_stores import read_commands, same_answers

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit, checkpoint 10


@pytest.fixture
def s3_env(s3_server, monkeypatch):
    """The moto server's options as the process environment gives them."""
    monkeypatch.delenv("AWS_CA_BUNDLE", raising=False)
    for key, value in s3_server.options.items():
        monkeypatch.setenv(key, value)
    return s3_server


COMMANDS = read_commands(3)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a))
def test_an_intact_table_in_s3_gives_the_local_answers(s3_env, copy_table, capsys, args):
    local = copy_table(APPENDS)
    same_answers(capsys, local, s3_env.upload(local), *args)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a))
def test_a_damaged_copy_in_s3_gives_the_local_answers(s3_env, copy_table, capsys, args):
    local = copy_table(APPENDS)
    log = DeltaLog.open(str(local))
    (local / log.commit(log.latest_version).adds[0].path).unlink()  # not replicated yet
    same_answers(capsys, local, s3_env.upload(local), *args)


def test_check_exit_code_and_last_consistent_version_of_a_damaged_copy_in_s3(
    s3_env, copy_table, capsys
):
    local = copy_table(APPENDS)
    log = DeltaLog.open(str(local))
    (local / log.commit(14).adds[0].path).unlink()

    report = same_answers(capsys, local, s3_env.upload(local), "check", "--json")

    assert report["lastConsistentVersion"] == 13  # type: ignore[index]


def test_a_restore_in_s3_commits_the_snapshot_a_local_restore_commits(
    s3_env, tmp_path, capsys, spark, monkeypatch
):
    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    local = sales_table(tmp_path / "sales")
    uri = s3_env.upload(local)
    args = ("--to-version", "1", "--expect-version", "4", "--yes", "--reason", "r", "--json")

    for where in (local, uri):
        code, out, _ = run_main(capsys, "restore", where, *args)
        assert code == 0, out
        assert json.loads(out)["committedVersion"] == 5
        checks = {c["name"]: c["status"] for c in json.loads(out)["verification"]["checks"]}
        # deltalake re-reads the rows with the table's own storage options, in S3 too
        assert checks["deltalake_rows"] == "passed", out

    ours = DeltaLog.open(uri, storage_options=s3_env.options).snapshot(5)
    theirs = DeltaLog.open(local).snapshot(5)
    # Locally Delta's RESTORE commits, on S3 our own writer: the same live files.
    assert {k: a.size for k, a in ours.files.items()} == {
        k: a.size for k, a in theirs.files.items()
    }
    assert (ours.metadata, ours.protocol) == (theirs.metadata, theirs.protocol)
    assert DeltaLog.open(uri, storage_options=s3_env.options).commit(5).commit_info.operation == (
        "RESTORE"
    )
