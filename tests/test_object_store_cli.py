"""Specification: the CLI answers for a table in S3 as for its local copy.

The table is uploaded to moto's S3 server (a real server on loopback); the storage
options come from the environment (``AWS_*``), as an operator's shell gives them.
Locations in outputs are normalised (the URI and the local path both become ``<root>``),
and file modification times are dropped: an uploaded copy's objects carry the upload time,
and Delta takes a commit's time from its file when no in-commit timestamp is recorded.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.log.deltalog import DeltaLog
from tests.conftest import sales_table

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit, checkpoint 10


@pytest.fixture
def s3_env(s3_server, monkeypatch):
    """The moto server's options as the process environment gives them."""
    monkeypatch.delenv("AWS_CA_BUNDLE", raising=False)
    for key, value in s3_server.options.items():
        monkeypatch.setenv(key, value)
    return s3_server


def _run(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, _ = capsys.readouterr()
    return code, out


MTIMES = {"timestamp", "fileModificationTime", "lastModified", "timestampSource"}


def _without_mtimes(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_mtimes(v) for k, v in value.items() if k not in MTIMES}
    if isinstance(value, list):
        # a problem comparing a commit's time with its file's (the upload) is mtime-bound too
        return [_without_mtimes(v) for v in value if "modification time" not in str(v)]
    if isinstance(value, str):  # problems that quote a file time
        return re.sub(r"\d{4}-\d\d-\d\d[T ][\d:.]+Z?", "<time>", value)
    return value


def _same(capsys, local: Path | str, uri: str, *args: str) -> object:
    """Run one command on both copies; the same exit code and (normalised) JSON."""
    here = _run(capsys, args[0], str(local), *args[1:])
    there = _run(capsys, args[0], uri, *args[1:])
    assert there[0] == here[0]
    ours = _without_mtimes(json.loads(there[1].replace(uri.rstrip("/"), "<root>")))
    assert ours == _without_mtimes(json.loads(here[1].replace(str(local).rstrip("/"), "<root>")))
    return ours


COMMANDS = [
    ("check", "--json"),
    ("check", "--json", "--all-versions"),
    ("history", "--json"),
    ("detail", "--json"),
    ("detail", "--json", "--version", "3"),
    ("files", "--json", "--version", "3"),
    ("diff", "--json", "--from", "0", "--to", "latest"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a))
def test_an_intact_table_in_s3_gives_the_local_answers(s3_env, copy_table, capsys, args):
    local = copy_table(APPENDS)
    _same(capsys, local, s3_env.upload(local), *args)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a))
def test_a_damaged_copy_in_s3_gives_the_local_answers(s3_env, copy_table, capsys, args):
    local = copy_table(APPENDS)
    log = DeltaLog.open(str(local))
    (local / log.commit(log.latest_version).adds[0].path).unlink()  # not replicated yet
    _same(capsys, local, s3_env.upload(local), *args)


def test_check_exit_code_and_last_consistent_version_of_a_damaged_copy_in_s3(
    s3_env, copy_table, capsys
):
    local = copy_table(APPENDS)
    log = DeltaLog.open(str(local))
    (local / log.commit(14).adds[0].path).unlink()

    report = _same(capsys, local, s3_env.upload(local), "check", "--json")

    assert report["lastConsistentVersion"] == 13  # type: ignore[index]


def test_a_restore_in_s3_commits_the_snapshot_a_local_restore_commits(
    s3_env, tmp_path, capsys, spark, monkeypatch
):
    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    local = sales_table(tmp_path / "sales")
    uri = s3_env.upload(local)
    args = ("--to-version", "1", "--expect-version", "4", "--yes", "--reason", "r", "--json")

    for where in (local, uri):
        code, out = _run(capsys, "restore", where, *args)
        assert code == 0, out
        assert json.loads(out)["committedVersion"] == 5
        checks = {c["name"]: c["status"] for c in json.loads(out)["verification"]["checks"]}
        # deltalake re-reads the rows with the table's own storage options, in S3 too
        assert checks["deltalake_rows"] == "passed", out

    ours = DeltaLog.open(uri, storage_options=s3_env.options).snapshot(5)
    theirs = DeltaLog.open(local).snapshot(5)
    assert ours.files == theirs.files
    assert (ours.metadata, ours.protocol) == (theirs.metadata, theirs.protocol)
    assert DeltaLog.open(uri, storage_options=s3_env.options).commit(5).commit_info.operation == (
        "RESTORE"
    )
