"""Specification: tables in Google Cloud Storage (fake-gcs-server on loopback, ``gs://``).

Every read command answers for a table in the emulator's bucket as for its local copy
(locations normalised, upload times dropped: ``same_answers`` in ``tests/object_stores.py``);
``check`` finds a data file deleted from the bucket; a restore there is refused with the
documented message, because the emulator does not serve object_store's conditional put
(docs/object-storage.md), and the refusal overwrites nothing, not even a commit file
that won the race; wrong options are one line, a documented exit code, no secret.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.connection import StorageOptions
from inspector.delta.errors import ExitCode
from inspector.demo import write_demo_table
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table import open_table
from tests.conftest import (
    CORPUS,
    copy_corpus_table,
    one_error_line,
    run_main,
    sales_table,
)
from tests.object_stores import (
    clear_cloud_env,
    cli_in_new_process,
    closed_port_endpoint,
    flags,
    gcs_service_account,
    read_commands,
    same_answers,
)

APPENDS = "delta-kernel-java/basic-with-checkpoint"  # 0..14, 2 files per commit, checkpoint 10
DV_TABLE = "delta-kernel-java/basic-dv-no-checkpoint"  # a deletion vector at version 1
PARTITIONED = "dat-v0.0.2/multi_partitioned/delta"
SECRET = "do-not-print-this-secret"
REFUSAL = "cannot be written safely: the store does not honour create-if-absent puts"


@pytest.fixture
def gcs_env(gcs_server, monkeypatch):
    """The emulator's options as the process environment gives them (no other cloud)."""
    clear_cloud_env(monkeypatch)
    for key, value in gcs_server.options.items():
        monkeypatch.setenv(key, value)
    # The upload gives every file a new time: no warning that a commit's time differs.
    monkeypatch.setenv("DELTA_INSPECTOR_TIMESTAMP_TOLERANCE_SECONDS", str(10**10))
    return gcs_server


@pytest.fixture
def local_table(tmp_path, request) -> Path:
    """A writable local copy of the parametrised table (``demo`` is the built-in demo)."""
    if request.param == "demo":
        return Path(write_demo_table(str(tmp_path / "demo")))
    return copy_corpus_table(request.param, tmp_path / Path(request.param).name)


# A VACUUM plan judges by time (LITE by the commits made before the cutoff, as Delta's LITE
# VACUUM does), and an upload gives the copy's commit files new times: the demo table's
# aged history is the local copy's alone, so vacuum-plan is compared on S3 and Azure,
# whose tables are not aged.
READS = [
    *(c for c in read_commands(1) if c[0] != "vacuum-plan"),
    ("check", "--json", "--all-versions", "--deep"),
]
TABLES = ["demo", APPENDS, DV_TABLE, PARTITIONED]


@pytest.mark.parametrize("local_table", TABLES, indirect=True)
@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a))
def test_every_read_command_answers_for_a_gcs_table_as_for_its_local_copy(
    gcs_env, local_table, capsys, args
):
    same_answers(capsys, local_table, gcs_env.upload(local_table), *args)


def _newest_adds(root: Path | str) -> list[str]:
    log = DeltaLog.open(str(root))
    return [a.path for a in log.commit(log.latest_version).adds]


@pytest.mark.parametrize("local_table", ["demo", APPENDS], indirect=True)
def test_check_finds_the_newest_data_file_deleted_from_the_bucket(gcs_env, local_table, capsys):
    uri = gcs_env.upload(local_table)
    latest = DeltaLog.open(str(local_table)).latest_version
    gcs_env.delete(f"{uri}/{_newest_adds(local_table)[0]}")
    (local_table / _newest_adds(local_table)[0]).unlink()  # the same damage, locally

    code, out, err = run_main(capsys, "check", uri, "--json")

    assert code == ExitCode.INCONSISTENT, err
    report = json.loads(out)
    assert report["latestVersion"] == latest
    assert report["lastConsistentVersion"] == latest - 1
    same_answers(capsys, local_table, uri, "check", "--json")  # the same verdicts as the local copy


def test_history_with_options_given_by_flag_in_a_fresh_process(gcs_server):
    uri = gcs_server.upload(CORPUS / PARTITIONED)
    remote = cli_in_new_process("history", "--json", uri, *flags(gcs_server.options))
    assert remote.returncode == 0, remote.stderr
    versions = [entry["version"] for entry in json.loads(remote.stdout)]
    assert versions == [2, 1, 0]


# --- writing: refused on this store, and never an overwrite -----------------------------


def test_a_restore_on_the_emulator_is_refused_with_the_documented_message(
    gcs_env, tmp_path, capsys, spark, monkeypatch
):
    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    uri = gcs_env.upload(sales_table(tmp_path / "sales"))
    before = {key: gcs_env.read(f"{uri}/{key}") for key in gcs_env.keys(uri)}
    args = ("--to-version", "1", "--expect-version", "4", "--yes", "--reason", "r", "--json")

    code, out, err = run_main(capsys, "restore", uri, *args)

    assert code == ExitCode.RESTORE_REFUSED, err
    assert REFUSAL in err and "400 Bad Request" in err and "Traceback" not in err
    assert json.loads(out)["error"]["exitCode"] == ExitCode.RESTORE_REFUSED
    assert {key: gcs_env.read(f"{uri}/{key}") for key in gcs_env.keys(uri)} == before
    audit = (tmp_path / "audit.jsonl").read_text()
    assert '"outcome": "refused"' in audit or '"outcome":"refused"' in audit


def test_a_restore_that_loses_the_race_to_a_commit_file_overwrites_nothing(
    gcs_env, tmp_path, settings, spark, monkeypatch
):
    """Another writer's version 5 lands after the last check: ours is refused, theirs kept."""
    from inspector.delta.errors import RestoreRefused
    from inspector.restore import RestoreRequest, execute_restore
    from inspector.restore import execute as restore_module
    from inspector.restore.plan import plan_restore

    uri = gcs_env.upload(sales_table(tmp_path / "sales"))
    options = gcs_env.options
    plan = plan_restore(
        open_table(uri, Settings(storage_options=StorageOptions(options))), 1, settings=settings
    )
    winner = f"{uri}/_delta_log/00000000000000000005.json"
    theirs = b'{"commitInfo":{"operation":"OTHER WRITER"}}\n'
    write_commit = restore_module.write_commit

    def other_writer_commits_first(storage, version, actions):
        gcs_env.put(winner, theirs)  # another engine's commit lands just before ours
        return write_commit(storage, version, actions)

    monkeypatch.setattr(restore_module, "write_commit", other_writer_commits_first)
    request = RestoreRequest(
        plan=plan,
        typed_table_name=plan.table_name,
        typed_version=str(plan.target_version),
        reason="r",
        expected_version=4,
    )
    with pytest.raises(RestoreRefused, match=REFUSAL):
        execute_restore(request, settings=settings, spark=spark)

    assert gcs_env.read(winner) == theirs
    assert not [k for k in gcs_env.keys(uri) if "put-probe" in k]


# --- wrong options: one line, a documented exit code, no traceback, no secret ------------


def test_a_bucket_that_does_not_exist(gcs_env, capsys):
    code, out, err = run_main(capsys, "history", "gs://no-such-bucket/t", "--json")
    assert code == ExitCode.BAD_INPUT, err
    assert "does not exist" in one_error_line(err) and "no-such-bucket" in err


def test_a_malformed_service_account_key_is_refused_without_showing_it(gcs_env, capsys):
    key = json.loads(gcs_service_account(gcs_env.endpoint))
    key.update(disable_oauth=False, client_email="x@y.z", private_key=SECRET)
    option = f"GOOGLE_SERVICE_ACCOUNT_KEY={json.dumps(key)}"
    uri = gcs_env.upload(CORPUS / PARTITIONED)

    code, out, err = run_main(capsys, "history", uri, "--json", "--storage-option", option)

    assert code == ExitCode.BAD_INPUT, err
    assert "cannot be opened" in one_error_line(err)
    assert SECRET not in err + out


def test_an_unreachable_endpoint_is_one_environment_error(gcs_env, capsys):
    key = json.loads(gcs_service_account(closed_port_endpoint()))
    option = f"GOOGLE_SERVICE_ACCOUNT_KEY={json.dumps({**key, 'private_key_id': SECRET})}"

    code, out, err = run_main(
        capsys, "history", "gs://tables/t", "--json", "--storage-option", option
    )

    assert code == ExitCode.ENVIRONMENT, err
    assert "cannot be reached" in one_error_line(err)
    assert SECRET not in err + out
