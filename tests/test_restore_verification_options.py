"""Specification: a restore's verification reads the table as the restore did, or fails saying why.

deltalake, the second engine a restore's rows are compared with, is given the table's
storage options (those typed on the command line too, not only the environment's). A
verification step that cannot run is a failed check that names the reason, never a
silently skipped one.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from inspector.cli.main import main
from tests.conftest import sales_table
from tests.object_stores import closed_port_endpoint, flags

pytestmark = pytest.mark.usefixtures("no_cloud_env")


def _restore(capsys, where: str, *options: str) -> tuple[int, dict]:
    code = main(
        ["restore", where, *options, "--to-version", "1", "--yes", "--reason", "r", "--json"]
    )
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def _check(result: dict, name: str) -> dict:
    return next(c for c in result["verification"]["checks"] if c["name"] == name)


def test_options_typed_on_the_command_line_reach_the_deltalake_check(
    s3_server, tmp_path, capsys, spark, monkeypatch
):
    monkeypatch.setenv("DELTA_INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    uri = s3_server.upload(sales_table(tmp_path / "sales"))

    code, result = _restore(capsys, uri, *flags(s3_server.options))

    assert code == 0, result
    assert _check(result, "deltalake_rows")["status"] == "passed", result["verification"]


def test_a_deltalake_check_that_cannot_reach_the_store_fails_and_says_why(spark, tmp_path):
    from inspector.connection import StorageOptions
    from inspector.log.deltalog import DeltaLog
    from inspector.restore.verify import CheckStatus, _deltalake_check
    from inspector.storage.objectstore import ObjectStorage

    local = DeltaLog.open(str(sales_table(tmp_path / "sales")))
    new, target = local.snapshot(4), local.snapshot(1)
    away = ObjectStorage(
        "s3://nowhere/sales",
        scheme="s3",
        options={
            "AWS_ENDPOINT_URL": closed_port_endpoint(),
            "AWS_ALLOW_HTTP": "true",
            "AWS_ACCESS_KEY_ID": "k",
            "AWS_SECRET_ACCESS_KEY": "s",
            "AWS_REGION": "us-east-1",
        },
    )
    unreachable = dataclasses.replace(new, table_root="s3://nowhere/sales", storage=away)

    status, message = _deltalake_check(unreachable, target, set(), StorageOptions(away.options))

    assert status == CheckStatus.FAILED
    assert message.startswith("deltalake could not read the table to compare its rows (")
