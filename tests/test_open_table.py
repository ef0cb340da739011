"""Specification: one way to open a table, for both front ends, with credentials for the task.

``inspector.table.open_table`` opens a path, a URI or a catalog name; reads ask a catalog
for ``READ``, and a commit asks again, at commit time, for ``READ_WRITE``
(``for_commit``): a table opened by name is resolved afresh (credentials that expired
since the plan are never used), and a name that points elsewhere by then is refused.

Glue is moto's server on loopback, and the tables are real Delta tables in moto's S3.
Which operation Unity Catalog is asked for is proven against a live server in the Unity
Catalog tests; Glue vends no per-operation credentials, so here the name is resolved again.
"""

from __future__ import annotations

import json

import pytest

from inspector.connection import StorageOptions
from inspector.delta.errors import ConcurrentModification, NotADeltaTable, RefusalReason
from inspector.log.deltalog import DeltaLog
from inspector.restore import RestoreRequest, execute_restore, plan_restore
from inspector.restore.audit import read_audit
from inspector.settings import Settings
from inspector.table import Table, for_commit, open_table
from tests.conftest import CORPUS, sales_table
from tests.glue_catalog import plan_restore_in_the_app, register_plain_form

APPENDS = CORPUS / "dat-v0.0.2" / "basic_append" / "delta"


@pytest.fixture
def s3_settings(s3_server, tmp_path) -> Settings:
    return Settings(
        audit_log=str(tmp_path / "audit.jsonl"),
        storage_options=StorageOptions(s3_server.options),
    )


def test_a_path_opens_with_no_name_and_is_its_own_handle_for_a_commit():
    table = open_table(str(APPENDS), Settings())

    assert isinstance(table, Table)
    assert table.name is None
    assert table.root.rstrip("/").endswith("basic_append/delta")
    assert for_commit(table, Settings()) is table


def test_a_second_table_that_is_not_delta_is_named_by_its_role(tmp_path):
    with pytest.raises(NotADeltaTable, match="^The replica is not a Delta table"):
        open_table(str(tmp_path), Settings(), role="replica")


def test_a_name_opens_the_table_it_points_to_and_keeps_the_name(s3_server, glue, s3_settings):
    client, database = glue
    uri = s3_server.upload(APPENDS)
    name = register_plain_form(client, database, "orders", uri)

    table = open_table(name, s3_settings)

    assert table.name == name
    assert table.root.rstrip("/") == uri.rstrip("/")
    assert table.log.latest_version == DeltaLog.open(str(APPENDS)).latest_version


def test_a_commit_on_a_table_opened_by_name_asks_the_catalog_again(s3_server, glue, s3_settings):
    client, database = glue
    uri = s3_server.upload(APPENDS)
    name = register_plain_form(client, database, "orders", uri)
    read = open_table(name, s3_settings)

    writing = for_commit(read, s3_settings)

    assert writing is not read  # a fresh handle, resolved now: never the cached read one
    assert (writing.name, writing.root) == (read.name, read.root)


def test_a_name_that_points_elsewhere_at_commit_time_is_refused_and_nothing_is_written(
    s3_server, glue, s3_settings, tmp_path
):
    client, database = glue
    uri = s3_server.upload(sales_table(tmp_path / "sales"))
    name = register_plain_form(client, database, "sales", uri)
    plan = plan_restore(open_table(name, s3_settings), 1, settings=s3_settings)
    elsewhere = s3_server.upload(sales_table(tmp_path / "other"))
    client.delete_table(DatabaseName=database, Name="sales")
    register_plain_form(client, database, "sales", elsewhere)
    request = RestoreRequest(
        plan=plan, typed_table_name=plan.table_name, typed_version="1", reason="bad load"
    )

    with pytest.raises(ConcurrentModification, match="now points to") as refused:
        execute_restore(request, settings=s3_settings)

    assert list(refused.value.reasons) == [RefusalReason.TABLE_MOVED]
    options = dict(s3_server.options)
    assert DeltaLog.open(uri, storage_options=options).latest_version == 4
    assert DeltaLog.open(elsewhere, storage_options=options).latest_version == 4
    entries = read_audit(s3_settings.audit_log)
    assert [(e.name, e.outcome) for e in entries] == [(name, "planned"), (name, "refused")]


def test_the_restore_page_commits_a_table_opened_by_name_and_never_shows_its_credentials(
    s3_server, glue, tmp_path, spark, monkeypatch
):
    page = plan_restore_in_the_app(s3_server, glue, tmp_path, monkeypatch, register_plain_form)
    at, name, uri, database = page.app, page.name, page.uri, page.database
    at.text_input(key="restore_confirm_table").input(f"{database}.sales")
    at.text_input(key="restore_confirm_version").input("1")
    at.text_area(key="restore_reason").input("the overwrite at v4").run()
    at.button(key="restore_commit").click().run()

    assert not at.exception and not at.error, [e.value for e in at.error]
    assert DeltaLog.open(uri, storage_options=dict(s3_server.options)).latest_version == 5
    entries = read_audit(str(page.audit))
    assert [(e.name, e.outcome) for e in entries] == [(name, "planned"), (name, "committed")]
    secret = s3_server.options["AWS_SECRET_ACCESS_KEY"]
    assert secret not in page.audit.read_text()
    assert secret not in page.recent.read_text()
    assert secret not in json.dumps(dict(at.query_params))
