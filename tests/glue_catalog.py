"""AWS Glue for the tests: moto's server (the S3 server's process) and Glue's two forms.

A Delta table is registered in Glue as Spark does (a placeholder location, the real path
in the SerDe parameter ``path``) or in the plain form (``table_type`` = ``DELTA``).
Registered from ``tests/conftest.py`` (``pytest_plugins``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.object_stores import S3_SECRET


@pytest.fixture
def glue(s3_server):
    """moto's Glue (the S3 server's process) with a fresh database; yields (client, database)."""
    import boto3

    client = boto3.client(
        "glue",
        endpoint_url=s3_server.endpoint,
        aws_access_key_id=s3_server.options["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=S3_SECRET,
        region_name="us-east-1",
    )
    database = f"sales_{uuid.uuid4().hex[:8]}"
    client.create_database(DatabaseInput={"Name": database})
    return client, database


def register_spark_form(client, database: str, name: str, uri: str) -> str:
    """Register a Delta table as Spark does: a placeholder location, the path in the SerDe."""
    client.create_table(
        DatabaseName=database,
        TableInput={
            "Name": name,
            "TableType": "EXTERNAL_TABLE",
            "Parameters": {"spark.sql.sources.provider": "delta", "EXTERNAL": "TRUE"},
            "StorageDescriptor": {
                "Location": f"{uri}-__PLACEHOLDER__",
                "SerdeInfo": {
                    "SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                    "Parameters": {"path": uri, "serialization.format": "1"},
                },
            },
        },
    )
    return f"glue://{database}.{name}"


def register_plain_form(client, database: str, name: str, uri: str, kind: str = "DELTA") -> str:
    """Register a table with its location and ``table_type`` (Athena's and delta-rs's form)."""
    params = {"table_type": kind} if kind == "DELTA" else {"classification": kind}
    client.create_table(
        DatabaseName=database,
        TableInput={
            "Name": name,
            "TableType": "EXTERNAL_TABLE",
            "Parameters": params,
            "StorageDescriptor": {"Location": uri},
        },
    )
    return f"glue://{database}.{name}"


@dataclass(frozen=True, kw_only=True)
class RestorePage:
    """The app's Restore page of a sales table in S3 opened by its Glue name, planned to v1."""

    app: Any
    name: str
    uri: str
    database: str
    audit: Path
    recent: Path


def plan_restore_in_the_app(
    s3_server, glue, tmp_path: Path, monkeypatch, register: Callable[..., str]
) -> RestorePage:
    """Upload the sales table, register it with ``register``, and plan its restore to v1 in
    the app (operator mode; the S3 options set as the user's environment)."""
    from tests.conftest import open_app, sales_table

    for key, value in s3_server.options.items():
        monkeypatch.setenv(key, value)
    client, database = glue
    uri = s3_server.upload(sales_table(tmp_path / "sales"))
    name = register(client, database, "sales", uri)
    at = open_app(monkeypatch, tmp_path, timeout=240, operator=True, table=name, view="restore")
    at.run()
    at.text_input(key="restore_target").input("1")
    at.button(key="restore_plan_button").click().run()
    # open_app keeps the audit log and the recent tables in tmp_path.
    audit, recent = tmp_path / "audit.jsonl", tmp_path / "recent.json"
    return RestorePage(app=at, name=name, uri=uri, database=database, audit=audit, recent=recent)
