"""Specification: a restore by name (``glue://...``), on the CLI and in the app, is confirmed
by the table's full name, and every audit entry records both the name and the location it
resolved to.

The table is a real Delta table in moto's S3, registered in moto's Glue; the restore runs
on the session's Spark, as a restore by path does.
"""

from __future__ import annotations

import json

from inspector.cli.main import main
from inspector.connection import StorageOptions
from inspector.log.deltalog import DeltaLog
from inspector.restore import RestoreRequest, plan_restore, request_refusals
from inspector.restore.audit import read_audit
from inspector.settings import Settings
from inspector.table import open_table
from tests.conftest import sales_table
from tests.glue_catalog import plan_restore_in_the_app, register_spark_form


def test_a_restore_by_name_commits_and_audits_the_name_and_the_location(
    s3_server, glue, tmp_path, capsys, spark, monkeypatch
):
    for key, value in s3_server.options.items():
        monkeypatch.setenv(key, value)
    audit = tmp_path / "audit.jsonl"
    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", str(audit))
    client, database = glue
    uri = s3_server.upload(sales_table(tmp_path / "sales"))
    name = register_spark_form(client, database, "sales", uri)

    code = main(
        ["restore", name, "--to-version", "1", "--expect-version", "4", "--yes"]
        + ["--reason", "bad overwrite", "--json"]
    )
    out, err = capsys.readouterr()

    assert code == 0, err or out[-3000:]
    result = json.loads(out)
    assert result["committedVersion"] == 5
    assert result["plan"]["tableName"] == f"{database}.sales"
    assert result["plan"]["catalogName"] == name
    assert DeltaLog.open(uri, storage_options=s3_server.options).latest_version == 5
    entries = read_audit(str(audit))
    assert [e.outcome for e in entries] == ["planned", "committed"]
    assert {(e.name, e.table.rstrip("/")) for e in entries} == {(name, uri.rstrip("/"))}
    assert s3_server.options["AWS_SECRET_ACCESS_KEY"] not in audit.read_text()


def test_the_typed_confirmation_of_a_table_opened_by_name_is_its_full_name(
    s3_server, glue, tmp_path, spark
):
    client, database = glue
    uri = s3_server.upload(sales_table(tmp_path / "sales"))
    name = register_spark_form(client, database, "sales", uri)
    settings = Settings(
        audit_log=str(tmp_path / "audit.jsonl"),
        storage_options=StorageOptions(s3_server.options),
    )
    table = open_table(name, settings)
    plan = plan_restore(table, 1, settings=settings)

    def refusals(typed: str) -> list[str]:
        request = RestoreRequest(plan=plan, typed_table_name=typed, typed_version="1", reason="r")
        return [r.reason.value for r in request_refusals(request)]

    assert refusals(uri.rsplit("/", 1)[-1]) == ["not_confirmed"]  # the folder's name is not it
    assert refusals(f"{database}.sales") == []


def test_the_restore_page_of_a_table_opened_by_name_asks_for_its_full_name(
    s3_server, glue, tmp_path, spark, monkeypatch
):
    page = plan_restore_in_the_app(s3_server, glue, tmp_path, monkeypatch, register_spark_form)
    at, name, database = page.app, page.name, page.database
    assert not at.exception and not at.error, [e.value for e in at.error]

    full = f"{database}.sales"
    captions = " ".join(c.value for c in at.caption)
    assert f"Type `{full}`: the table's full name in its catalog" in captions
    at.text_input(key="restore_confirm_table").input(full)
    at.text_input(key="restore_confirm_version").input("1")
    at.text_area(key="restore_reason").input("the overwrite at v4").run()
    assert not at.button(key="restore_commit").disabled
    assert [(e.name, e.outcome) for e in read_audit(str(page.audit))] == [(name, "planned")]
