"""AWS Glue for the tests: moto's server (the S3 server's process) and Glue's two forms.

A Delta table is registered in Glue as Spark does (a placeholder location, the real path
in the SerDe parameter ``path``) or in the plain form (``table_type`` = ``DELTA``).
Registered from ``tests/conftest.py`` (``pytest_plugins``).
"""

from __future__ import annotations

import uuid

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
