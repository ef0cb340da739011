"""Specification: ``uc://CATALOG.SCHEMA.TABLE`` opens a Delta table registered in Unity Catalog,
and answers exactly as the table's location does.

The server is a real one on loopback (``tests/unity_server.py``: uc-server, or the server
``DELTA_INSPECTOR_TEST_UC_SERVER`` names); these tests are never skipped. Tables are real
Delta tables, on the local disk and in moto's S3, registered as external tables. The
credentials the server vends for S3 come from moto's STS; the operation each command asks
for is read off a recording proxy in front of the server (``tests/recording_proxy.py``).
Every failure is one line with its documented exit code, never echoing the token.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from inspector.catalog import CatalogKind, resolve_table
from inspector.catalog.browse import list_catalogs, list_schemas, list_tables
from inspector.delta.errors import ExitCode
from inspector.settings import Settings
from tests.conftest import CORPUS, one_error_line
from tests.conftest import run_main as run
from tests.object_stores import closed_port_endpoint
from tests.unity_server import UC_SERVER_ENV
from tests.unity_tables import CDF_TABLE, TOKEN_ENV, URL_ENV

TOKEN = "dapi-do-not-print-this-token"
READS = [
    ("history",),
    ("files", "--version", "1"),
    ("detail",),
    ("detail", "--version", "1"),
    ("check",),
    ("diff", "--from", "0", "--to", "latest"),
    ("restore", "--to-version", "1", "--dry-run"),
]


@pytest.fixture(autouse=True)
def _audit(audit):
    """Restores record their plans and commits in the test's own audit log."""


def answers(capsys, table: str, *command: str) -> tuple[int, object]:
    """One command's exit code and JSON answer, the table's own names left out (the name
    and the folder a plan calls the table by are what differ between a name and a path)."""
    code, out, err = run(capsys, command[0], table, *command[1:], "--json")
    assert code in (ExitCode.OK, ExitCode.RESTORE_REFUSED), err
    answer = json.loads(out)
    plan = answer.get("plan") if isinstance(answer, dict) else None
    if isinstance(plan, dict):
        plan.pop("catalogName"), plan.pop("tableName")
    return code, answer


@pytest.mark.parametrize("command", READS, ids=" ".join)
@pytest.mark.parametrize("where", ["local", "in_s3"])
def test_every_by_name_answer_equals_the_by_path_answer(capsys, request, where, command, proxy):
    name, path = request.getfixturevalue(where)
    assert answers(capsys, name, *command) == answers(capsys, path, *command)
    assert set(proxy.operations()) == {"READ"}  # reads ask for read credentials only


@pytest.mark.spark
@pytest.mark.parametrize(
    "command",
    [("show", "--version", "1", "--limit", "1000"), ("changes", "--from", "0", "--limit", "1000")],
    ids=" ".join,
)
@pytest.mark.parametrize("where", ["local", "in_s3"])
def test_rows_by_name_equal_rows_by_path(spark, capsys, request, where, command):
    name, path = request.getfixturevalue(where)
    assert answers(capsys, name, *command) == answers(capsys, path, *command)


@pytest.mark.spark
@pytest.mark.parametrize("where", ["local", "in_s3"])
def test_a_committed_restore_by_name_equals_one_by_path_and_asks_for_write_credentials(
    spark, capsys, request, where, uc_server, schema, s3_server, tmp_path, proxy
):
    name, first = request.getfixturevalue(where)
    if where == "local":
        second = str(shutil.copytree(CORPUS / CDF_TABLE, tmp_path / "by-path"))
    else:
        second = s3_server.upload(CORPUS / CDF_TABLE, "by-path")
    restore = ("restore", "--to-version", "1", "--expect-version", "3", "--yes", "--reason", "r")
    proxy.clear()
    code, by_name = answers(capsys, name, *restore)
    assert code == ExitCode.OK and by_name["committedVersion"] == 4
    assert "READ_WRITE" in proxy.operations()
    assert proxy.operations()[-1] == "READ_WRITE"  # the commit's credentials may write
    code, by_path = answers(capsys, second, *restore)
    assert code == ExitCode.OK and by_path["committedVersion"] == 4
    assert committed_files(capsys, name) == committed_files(capsys, second)
    show = ("show", "--limit", "1000")
    assert rows_of(answers(capsys, name, *show)) == rows_of(answers(capsys, second, *show))


def committed_files(capsys, table: str) -> tuple[list[str], list[str]]:
    """The paths the restore's commit (version 4) added and removed (its order and its
    removes' deletion times are the commit's own)."""
    _, commit = answers(capsys, table, "files", "--version", "4")
    assert isinstance(commit, dict)
    return sorted(a["path"] for a in commit["added"]), sorted(r["path"] for r in commit["removed"])


def rows_of(answer: tuple[int, object]) -> list[str]:
    """A ``show`` answer's rows, in a fixed order."""
    code, shown = answer
    assert code == ExitCode.OK and isinstance(shown, dict)
    return sorted(json.dumps(row, sort_keys=True) for row in shown["rows"])


def test_vended_credentials_are_used_and_never_shown(capsys, in_s3, proxy, sts, tmp_path):
    name, _ = in_s3
    code, out, err = run(capsys, "history", name)
    assert code == 0, err
    (vend,) = proxy.vends()
    vended = vend.answer["aws_temp_credentials"]  # moto's STS issued them
    assert vended["access_key_id"] and vended["session_token"]
    assert any(form["RoleArn"] for form in sts.assumed_roles())
    for secret in (vended["secret_access_key"], vended["session_token"]):
        assert secret not in out + err


def test_a_name_resolves_to_the_storage_location(uc_server, local, proxy):
    name, root = local
    table = resolve_table(name, Settings(unity_catalog_url=proxy.url))
    assert table.name == name
    assert table.location.rstrip("/") in {f"file://{root}", f"file:{root}", root}


def test_the_browser_lists_catalogs_schemas_and_tables(schema, local, proxy):
    settings = Settings(unity_catalog_url=proxy.url)
    assert "unity" in list_catalogs(CatalogKind.UNITY, settings)
    assert schema in list_schemas(CatalogKind.UNITY, settings, "unity")
    listed = list_tables(CatalogKind.UNITY, settings, "unity", schema)
    assert [(t.name, t.format) for t in listed] == [(local[0], "delta")]


def test_an_unknown_table_is_one_line_and_exit_2(capsys, schema):
    code, _, err = run(capsys, "history", f"uc://unity.{schema}.nope")
    assert code == ExitCode.BAD_INPUT
    assert f"no table 'nope' in unity.{schema}" in one_error_line(err)


def test_a_missing_catalog_or_schema_is_named_in_one_line_with_exit_2(capsys, schema):
    code, _, err = run(capsys, "history", "uc://nowhere.sales.orders")
    assert code == ExitCode.BAD_INPUT
    assert "no catalog 'nowhere'" in one_error_line(err)
    code, _, err = run(capsys, "history", "uc://unity.nowhere.orders")
    assert code == ExitCode.BAD_INPUT
    assert "no schema 'nowhere' in catalog 'unity'" in one_error_line(err)


def test_a_table_that_is_not_delta_is_refused_in_one_line(capsys, uc_server, schema, tmp_path):
    name = uc_server.register("unity", schema, "events", tmp_path.as_uri(), kind="PARQUET")
    code, _, err = run(capsys, "history", name)
    assert code == ExitCode.BAD_INPUT
    assert "is a PARQUET table in Unity Catalog" in one_error_line(err)


def test_a_refused_caller_is_one_line_and_exit_5_and_the_token_never_echoed(
    capsys, request, local, monkeypatch
):
    # uc-server has no bearer-token authentication: run it behind-a-proxy style, where a
    # caller who brings only a token is refused (401). Another server (Databricks, the Java
    # server with authorization on) is given a bad token instead.
    if os.environ.get(UC_SERVER_ENV, "").strip():
        refusing = request.getfixturevalue("uc_server")
    else:
        refusing = request.getfixturevalue("uc_server_with_authentication")
    monkeypatch.setenv(URL_ENV, refusing.url)
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    code, out, err = run(capsys, "history", local[0], "--json")
    assert code == ExitCode.ENVIRONMENT
    assert "refused the token (HTTP 401)" in one_error_line(err)
    assert json.loads(out)["error"]["type"] == "CatalogAccessDenied"
    assert TOKEN not in out + err


def test_a_token_the_server_accepts_answers_and_is_never_shown(
    capsys, local, uc_server, monkeypatch
):
    # Authorization is off in uc-server (every caller is anonymous): any token is neither
    # checked nor refused. Another server is given the token it was named with.
    token = uc_server.token or TOKEN
    monkeypatch.setenv(TOKEN_ENV, token)
    code, out, err = run(capsys, "history", local[0])
    assert code == ExitCode.OK, err
    assert token not in out + err


# --- without a server -------------------------------------------------------------------


def test_an_unreachable_server_is_one_line_and_exit_5_and_the_token_never_shown(
    capsys, monkeypatch
):
    monkeypatch.setenv(URL_ENV, closed_port_endpoint())
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    code, out, err = run(capsys, "history", "uc://main.sales.orders", "--json")
    assert code == ExitCode.ENVIRONMENT
    assert "Cannot reach the Unity Catalog server" in one_error_line(err)
    assert json.loads(out)["error"]["type"] == "CatalogUnavailable"
    assert TOKEN not in out + err


def test_a_uc_name_without_a_configured_server_says_which_setting_to_set(capsys, monkeypatch):
    monkeypatch.delenv(URL_ENV, raising=False)
    code, _, err = run(capsys, "history", "uc://main.sales.orders")
    assert code == ExitCode.ENVIRONMENT
    assert f"Set {URL_ENV}" in one_error_line(err)


def test_the_token_is_never_in_the_settings_repr():
    assert TOKEN not in repr(Settings(unity_catalog_token=TOKEN))
