"""Specification: the CLI answers for a table in Azure Blob / ADLS Gen2 as for its local copy.

The table is uploaded to Azurite (the Azure emulator, started on loopback by the
``azurite`` fixture) and reached both as ``az://tables/...`` and as
``abfss://tables@devstoreaccount1.dfs.core.windows.net/...``. The options come either
from the standard ``AZURE_*`` variables or from ``--storage-option``; they are the ones
deltalake takes too. Locations in outputs are normalised (``<root>``) and file
modification times dropped: an uploaded copy's objects carry the upload time.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from inspector.delta.errors import ExitCode
from inspector.log.deltalog import DeltaLog
from inspector.restore import execute as restore_module
from inspector.restore.audit import read_audit
from tests.conftest import add_files, copy_corpus_table, one_error_line
from tests.conftest import run_main as run
from tests.object_stores import (
    AZURITE_ACCOUNT,
    AZURITE_KEY,
    Store,
    abfss,
    cli_in_new_process,
    closed_port_endpoint,
    flags,
    read_commands,
    same_answers,
    without_upload_times,
)

# No cloud variable unless a test sets one: options come from where the test says.
pytestmark = pytest.mark.usefixtures("no_cloud_env")

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit, checkpoint 10
WRONG_KEY = base64.b64encode(b"not the account key, but base64 all the same" * 2).decode()


@pytest.fixture(scope="module")
def appends(azurite: Store, tmp_path_factory) -> tuple[Path, str]:
    """An intact table with a checkpoint, locally and in Azurite (read-only: never modify)."""
    local = copy_corpus_table(APPENDS, tmp_path_factory.mktemp("appends") / "appends")
    return local, azurite.upload(local)


COMMANDS = read_commands(3)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a))
def test_every_read_command_by_az_uri_and_azure_variables_gives_the_local_answer(
    azurite, appends, capsys, monkeypatch, args
):
    local, uri = appends
    for key, value in azurite.options.items():
        monkeypatch.setenv(key, value)
    same_answers(capsys, local, uri, *args)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a))
def test_every_read_command_by_abfss_uri_and_storage_options_gives_the_local_answer(
    azurite, appends, capsys, args
):
    local, uri = appends
    same_answers(capsys, local, abfss(uri), *args, extra=flags(azurite.options))


def test_history_json_in_a_fresh_process_equals_the_local_copys(azurite, appends):
    local, uri = appends
    remote = cli_in_new_process("history", "--json", abfss(uri), options=azurite.options)
    here = cli_in_new_process("history", "--json", local, options=azurite.options)
    assert remote.returncode == here.returncode == 0, remote.stderr
    assert without_upload_times(json.loads(remote.stdout)) == without_upload_times(
        json.loads(here.stdout)
    )


def test_the_emulator_switch_and_a_connection_string_reach_the_table_too(
    azurite, appends, capsys, monkeypatch
):
    local, uri = appends
    # AZURE_STORAGE_USE_EMULATOR: the well-known account and key, at AZURITE_BLOB_STORAGE_URL.
    monkeypatch.setenv("AZURE_STORAGE_USE_EMULATOR", "true")
    monkeypatch.setenv("AZURITE_BLOB_STORAGE_URL", azurite.endpoint.rsplit("/", 1)[0])
    same_answers(capsys, local, uri, "history", "--json")
    monkeypatch.delenv("AZURE_STORAGE_USE_EMULATOR")
    connection = (
        f"DefaultEndpointsProtocol=http;AccountName={AZURITE_ACCOUNT};"
        f"AccountKey={AZURITE_KEY};BlobEndpoint={azurite.endpoint};"
    )
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", connection)
    same_answers(capsys, local, uri, "history", "--json")


def test_deltalake_reads_the_same_version_and_files_with_the_same_options(azurite, appends):
    from deltalake import DeltaTable

    _, uri = appends
    theirs = DeltaTable(abfss(uri), storage_options=azurite.options)
    ours = DeltaLog.open(abfss(uri), storage_options=azurite.options).snapshot()
    assert theirs.version() == ours.version == 14
    assert sorted(theirs.file_uris()) == sorted(f"{abfss(uri)}/{a.path}" for a in add_files(ours))


def newest_data_file(local: Path) -> str:
    log = DeltaLog.open(str(local))
    return log.commit(log.latest_version).adds[0].path


@pytest.fixture
def damaged(azurite, copy_table) -> tuple[Path, str]:
    """A copy whose newest data file was deleted from the container (and locally)."""
    local = copy_table(APPENDS)
    uri = azurite.upload(local)
    newest = newest_data_file(local)
    azurite.delete(f"{uri}/{newest}")
    (local / newest).unlink()
    return local, uri


@pytest.mark.parametrize("form", ["az", "abfss"])
def test_check_after_the_newest_data_file_is_deleted_exits_4_at_version_13(
    azurite, damaged, capsys, form
):
    local, uri = damaged
    uri = abfss(uri) if form == "abfss" else uri
    code, out, err = run(capsys, "check", uri, "--json", *flags(azurite.options))
    assert code == ExitCode.INCONSISTENT, err
    report = json.loads(out)
    assert (report["latestVersion"], report["lastConsistentVersion"]) == (14, 13)
    same_answers(
        capsys, local, uri, "check", "--json", "--all-versions", extra=flags(azurite.options)
    )


def test_a_restore_to_the_last_consistent_version_commits_what_a_local_restore_commits(
    azurite, damaged, capsys, spark, monkeypatch, tmp_path
):
    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    local, uri = damaged
    args = ("--to-version", "13", "--expect-version", "14", "--yes", "--reason", "r", "--json")

    for where, extra in ((local, []), (abfss(uri), flags(azurite.options))):
        code, out, err = run(capsys, "restore", where, *args, *extra)
        assert code == ExitCode.OK, err
        assert json.loads(out)["committedVersion"] == 15

    ours = DeltaLog.open(uri, storage_options=azurite.options)
    theirs = DeltaLog.open(str(local))
    # Locally Delta's RESTORE commits, on Azure our own writer: the same live files.
    sizes = {k: a.size for k, a in ours.snapshot(15).files.items()}
    assert sizes == {k: a.size for k, a in theirs.snapshot(15).files.items()}
    assert ours.snapshot(15).metadata == theirs.snapshot(15).metadata
    assert ours.commit(15).commit_info.operation == "RESTORE"
    code, out, err = run(capsys, "check", uri, "--json", *flags(azurite.options))
    assert code == ExitCode.OK, err
    assert json.loads(out)["lastConsistentVersion"] == 15
    code, out, err = run(capsys, "audit", abfss(uri), "--json", *flags(azurite.options))
    assert code == ExitCode.OK, err
    assert AZURITE_KEY not in out and "committed" in out


def test_a_restore_that_loses_the_race_to_an_existing_commit_file_overwrites_nothing(
    azurite, damaged, capsys, spark, monkeypatch, tmp_path
):
    """Another writer's version 15 lands after every check, just before our create-if-absent."""
    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    _, uri = damaged
    winner = f"{uri}/_delta_log/00000000000000000015.json"
    theirs = b'{"commitInfo":{"operation":"OTHER WRITER"}}\n'
    write_commit = restore_module.write_commit

    def other_writer_commits_first(target, version, actions):
        azurite.put(winner, theirs)
        return write_commit(target, version, actions)

    monkeypatch.setattr(restore_module, "write_commit", other_writer_commits_first)
    before = azurite.keys(uri)
    args = ("--to-version", "13", "--expect-version", "14", "--yes", "--reason", "r")

    code, _, err = run(capsys, "restore", uri, *args, *flags(azurite.options))

    assert code == ExitCode.RESTORE_REFUSED, err
    assert "Another writer created version 15" in err and "Traceback" not in err
    assert azurite.read(winner) == theirs
    assert azurite.keys(uri) == sorted([*before, "_delta_log/00000000000000000015.json"])
    assert read_audit(str(tmp_path / "audit.jsonl"))[-1].outcome == "refused"


@pytest.mark.parametrize("where", ["option", "connection string"])
def test_a_wrong_account_key_is_refused_in_one_line_without_showing_it(
    azurite, appends, capsys, where
):
    _, uri = appends
    if where == "option":
        options = {**azurite.options, "AZURE_STORAGE_ACCOUNT_KEY": WRONG_KEY}
    else:
        options = {
            "AZURE_STORAGE_CONNECTION_STRING": f"AccountName={AZURITE_ACCOUNT};"
            f"AccountKey={WRONG_KEY};BlobEndpoint={azurite.endpoint}"
        }

    code, out, err = run(capsys, "history", abfss(uri), "--json", *flags(options))

    assert code == ExitCode.ENVIRONMENT, err
    assert "refused access" in one_error_line(err)
    assert json.loads(out)["error"]["exitCode"] == ExitCode.ENVIRONMENT
    assert WRONG_KEY not in out + err and AZURITE_KEY not in out + err


def test_a_container_that_does_not_exist_is_bad_input(azurite, capsys):
    code, _, err = run(capsys, "history", "az://no-such-container/t", *flags(azurite.options))
    assert code == ExitCode.BAD_INPUT, err
    assert "no-such-container" in one_error_line(err)


def test_an_endpoint_nothing_listens_on_is_one_clear_environment_error(azurite, capsys):
    options = {**azurite.options, "AZURE_STORAGE_ENDPOINT": closed_port_endpoint()}
    code, out, err = run(capsys, "history", "az://tables/t", "--json", *flags(options))
    assert code == ExitCode.ENVIRONMENT, err
    assert "127.0.0.1" in one_error_line(err)
    assert AZURITE_KEY not in out + err


CDF = "delta-kernel-rs/cdf-table-delete-conditional-two-rows"
ROW_COMMANDS = [
    (APPENDS, ("show", "--json", "--version", "3", "--limit", "100")),
    (APPENDS, ("diff", "--json", "--from", "2", "--to", "latest", "--rows")),
    (CDF, ("changes", "--json", "--from", "0")),
]


@pytest.mark.parametrize(("table", "args"), ROW_COMMANDS, ids=lambda a: " ".join(a)[:40])
def test_the_row_commands_on_the_emulator_are_one_line_naming_its_missing_dfs_endpoint(
    azurite, appends, copy_table, capsys, spark, table, args
):
    """Delta Lake reads Azure through Hadoop's ABFS connector, which needs an account's DFS
    endpoint; Azurite serves only the Blob API. That is the emulator's missing endpoint, not
    a user's table: rows on object stores are tested on S3 (test_object_store_rows.py), and
    every log-level command against Azurite above."""
    _, uri = appends
    if table != APPENDS:
        uri = azurite.upload(copy_table(table))
    code, out, err = run(capsys, args[0], abfss(uri), *args[1:], *flags(azurite.options))
    assert code == ExitCode.BAD_INPUT
    assert json.loads(out)["error"]["exitCode"] == ExitCode.BAD_INPUT  # --json: the error object
    line = one_error_line(err)
    assert "no connector" in line and "Azurite" in line
    assert AZURITE_KEY not in out + err


def test_a_replica_in_azure_missing_its_newest_file_is_compared_like_a_local_one(
    azurite, appends, damaged, capsys
):
    primary, _ = appends
    local, uri = damaged
    here = run(capsys, "replica", primary, local, "--json")
    there = run(capsys, "replica", primary, abfss(uri), "--json", *flags(azurite.options))
    assert here[0] == there[0] == ExitCode.INCONSISTENT, there[2]
    ours = without_upload_times(json.loads(there[1].replace(abfss(uri), "<replica>")))
    assert ours == without_upload_times(json.loads(here[1].replace(str(local), "<replica>")))
    assert json.loads(there[1])["replicaLastConsistentVersion"] == 13
