"""Specification: the CLI reads tables in S3 (moto on loopback) with ``--storage-option``.

The options come only from the command line here (no ``AWS_*`` variables), and every
failure (no such bucket, wrong credentials, nothing listening) is one line, a documented
exit code and no traceback, and never shows a secret.
"""

from __future__ import annotations

import json

import pytest

from inspector.delta.errors import ExitCode
from tests.conftest import CORPUS, one_error_line
from tests.conftest import run_main as run
from tests.object_stores import (
    cli_in_new_process,
    closed_port_endpoint,
    flags,
    without_upload_times,
)

# No cloud variable unless a test sets one: options come from where the test says.
pytestmark = pytest.mark.usefixtures("no_cloud_env")

PARTITIONED = "dat-v0.0.2/multi_partitioned/delta"
SECRET = "do-not-print-this-secret"


def test_history_json_of_an_s3_table_equals_its_local_copy(s3_server):
    uri = s3_server.upload(CORPUS / PARTITIONED)
    remote = cli_in_new_process("history", uri, "--json", *flags(s3_server.options))
    local = cli_in_new_process("history", CORPUS / PARTITIONED, "--json")
    assert remote.returncode == local.returncode == 0, remote.stderr + local.stderr
    ours, theirs = json.loads(remote.stdout), json.loads(local.stdout)
    assert without_upload_times(ours) == without_upload_times(theirs)


@pytest.mark.parametrize(
    "command", [["files", "--version", "1"], ["detail"], ["vacuum-plan"]], ids=str
)
def test_every_table_command_takes_storage_options(capsys, s3_server, command):
    uri = s3_server.upload(CORPUS / PARTITIONED)
    code, out, err = run(capsys, *command, uri, "--json", *flags(s3_server.options))
    assert code == 0, err
    assert json.loads(out)


def test_the_health_check_of_an_object_store_table_given_options_by_flag_finds_it_consistent(
    capsys, s3_server
):
    uri = s3_server.upload(CORPUS / PARTITIONED)
    code, out, err = run(capsys, "check", uri, "--json", *flags(s3_server.options))
    assert code == 0, err
    report = json.loads(out)
    assert report["lastConsistentVersion"] == report["latestVersion"] == 2


def test_without_credentials_nothing_opens_and_the_cause_is_said(capsys, s3_server):
    uri = s3_server.upload(CORPUS / PARTITIONED)
    code, _, err = run(capsys, "history", uri)
    assert code in (ExitCode.BAD_INPUT, ExitCode.ENVIRONMENT)
    one_error_line(err)


def test_a_bucket_that_does_not_exist(capsys, s3_server):
    code, _, err = run(capsys, "history", "s3://no-such-bucket/t", *flags(s3_server.options))
    assert code == ExitCode.BAD_INPUT, err  # the location is wrong: bad input
    assert "no-such-bucket" in one_error_line(err)


def test_wrong_credentials_are_refused_without_showing_them(capsys, s3_server):
    uri = s3_server.upload(CORPUS / PARTITIONED)
    wrong = {**s3_server.options, "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_ACCESS_KEY_ID": "nobody"}
    code, out, err = run(capsys, "history", uri, "--json", *flags(wrong))
    # moto accepts any key unless IAM is enforced: then the table simply opens.
    assert code in (ExitCode.OK, ExitCode.ENVIRONMENT), err
    if code:
        one_error_line(err)
    assert SECRET not in err + out


def test_no_network_is_one_clear_environment_error(capsys, s3_server):
    options = {**s3_server.options, "AWS_ENDPOINT_URL": closed_port_endpoint()}
    options["AWS_SECRET_ACCESS_KEY"] = SECRET
    code, out, err = run(capsys, "history", "s3://tables/t", "--json", *flags(options))
    assert code == ExitCode.ENVIRONMENT, err
    line = one_error_line(err)
    assert "127.0.0.1" in line
    assert SECRET not in err + out
    assert json.loads(out)["error"]["exitCode"] == ExitCode.ENVIRONMENT


@pytest.mark.parametrize(
    "bad", ["no-equals-sign", "=value", f"AWS_SECRET_ACCESS_KEY{SECRET}"], ids=str
)
def test_a_malformed_storage_option_is_bad_input(capsys, bad):
    code, out, err = run(capsys, "history", CORPUS / PARTITIONED, "--storage-option", bad)
    assert code == ExitCode.BAD_INPUT
    assert "KEY=VALUE" in one_error_line(err)
    assert SECRET not in err + out


def test_a_secret_option_never_appears_in_an_error(capsys):
    code, out, err = run(
        capsys,
        "history",
        "s3://tables/t",
        "--json",
        "--storage-option",
        f"AWS_SECRET_ACCESS_KEY={SECRET}",
        "--storage-option",
        "AWS_NOT_AN_OPTION=x",
        "--storage-option",
        f"AWS_ENDPOINT_URL={closed_port_endpoint()}",
        "--storage-option",
        "AWS_ALLOW_HTTP=true",
    )
    assert code != 0
    one_error_line(err)
    assert SECRET not in err + out


def test_a_secret_in_the_storage_options_setting_never_appears_in_an_error(capsys, monkeypatch):
    monkeypatch.setenv("DELTA_INSPECTOR_STORAGE_OPTIONS", f"AWS_SECRET_ACCESS_KEY={SECRET}")
    code, out, err = run(capsys, "history", f"/no/such/table/{SECRET}")
    assert code == ExitCode.BAD_INPUT
    assert SECRET not in out + err
