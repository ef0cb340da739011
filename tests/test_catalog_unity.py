"""Specification: ``uc://CATALOG.SCHEMA.TABLE`` opens a Delta table registered in Unity Catalog.

The server is the real open-source one (``tests/unity_server.py``; skipped with one line
when none is available). Tables are real Delta tables at local paths, registered as
external tables; every by-name answer equals the by-path answer, and every failure is one
line with its documented exit code, never echoing the token.
"""

from __future__ import annotations

import json
import shutil
import uuid

import pytest

from inspector.catalog import CatalogKind, resolve_table
from inspector.catalog.browse import list_catalogs, list_schemas, list_tables
from inspector.delta.errors import ExitCode
from inspector.settings import Settings
from tests.conftest import CORPUS, one_error_line
from tests.conftest import run_main as run
from tests.object_stores import closed_port_endpoint

PARTITIONED = "dat-v0.0.2/multi_partitioned/delta"
TOKEN = "dapi-do-not-print-this-token"


@pytest.fixture
def schema(uc_server, monkeypatch):
    """A fresh schema in catalog ``unity``, with the server's URL set as a user sets it."""
    monkeypatch.setenv("DELTA_INSPECTOR_UNITY_CATALOG_URL", uc_server.url)
    name = f"sales_{uuid.uuid4().hex[:8]}"
    uc_server.create_schema("unity", name)
    return name


@pytest.fixture
def orders(uc_server, schema, tmp_path):
    """A real Delta table at a local path, registered as ``uc://unity.SCHEMA.orders``."""
    root = tmp_path / "orders"
    shutil.copytree(CORPUS / PARTITIONED, root)
    return uc_server.register("unity", schema, "orders", root.as_uri()), str(root)


@pytest.mark.parametrize(
    "command", [["history"], ["files", "--version", "1"], ["detail"], ["check"]], ids=str
)
def test_every_by_name_answer_equals_the_by_path_answer(capsys, orders, command):
    name, root = orders
    code, by_path, err = run(capsys, *command, root, "--json")
    assert code == 0, err
    code, by_name, err = run(capsys, *command, name, "--json")
    assert code == 0, err
    assert json.loads(by_name) == json.loads(by_path)


def test_a_name_resolves_to_the_storage_location(uc_server, orders):
    name, root = orders
    table = resolve_table(name, Settings(unity_catalog_url=uc_server.url))
    assert (table.name, table.catalog, table.format) == (name, CatalogKind.UNITY, "delta")
    assert table.location.rstrip("/") in {f"file://{root}", f"file:{root}", root}


def test_the_browser_lists_catalogs_schemas_and_tables(uc_server, schema, orders):
    settings = Settings(unity_catalog_url=uc_server.url)
    assert "unity" in list_catalogs(CatalogKind.UNITY, settings)
    assert schema in list_schemas(CatalogKind.UNITY, settings, "unity")
    listed = list_tables(CatalogKind.UNITY, settings, "unity", schema)
    assert [(t.name, t.format) for t in listed] == [(orders[0], "delta")]


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


def test_a_bad_token_is_one_line_and_exit_5_and_never_echoed(
    capsys, uc_server, orders, monkeypatch
):
    try:
        uc_server.call("GET", "/catalogs", token=TOKEN)
    except OSError:
        pass  # refused: the server checks tokens
    else:
        pytest.skip("this Unity Catalog server does not check tokens (authorization disabled)")
    monkeypatch.setenv("DELTA_INSPECTOR_UNITY_CATALOG_TOKEN", TOKEN)
    code, _, err = run(capsys, "history", orders[0])
    assert code == ExitCode.ENVIRONMENT
    assert "refused the token" in one_error_line(err)
    assert TOKEN not in err


# --- without a server -------------------------------------------------------------------


def test_an_unreachable_server_is_one_line_and_exit_5_and_the_token_never_shown(
    capsys, monkeypatch
):
    monkeypatch.setenv("DELTA_INSPECTOR_UNITY_CATALOG_URL", closed_port_endpoint())
    monkeypatch.setenv("DELTA_INSPECTOR_UNITY_CATALOG_TOKEN", TOKEN)
    code, out, err = run(capsys, "history", "uc://main.sales.orders", "--json")
    assert code == ExitCode.ENVIRONMENT
    assert "Cannot reach the Unity Catalog server" in one_error_line(err)
    assert json.loads(out)["error"]["type"] == "CatalogUnavailable"
    assert TOKEN not in out + err


def test_a_uc_name_without_a_configured_server_says_which_setting_to_set(capsys, monkeypatch):
    monkeypatch.delenv("DELTA_INSPECTOR_UNITY_CATALOG_URL", raising=False)
    code, _, err = run(capsys, "history", "uc://main.sales.orders")
    assert code == ExitCode.ENVIRONMENT
    assert "Set DELTA_INSPECTOR_UNITY_CATALOG_URL" in one_error_line(err)


def test_the_token_is_never_in_the_settings_repr():
    assert TOKEN not in repr(Settings(unity_catalog_token=TOKEN))
