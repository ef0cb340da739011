"""Specification: how Delta Lake on Spark is pointed at object storage through Hadoop's connectors.

The URI mapping and the Hadoop conf are specified as pure functions; the session of the
tests has every connector of the jar cache, and a store none reaches is refused in one line.
"""

from __future__ import annotations

import dataclasses

import pytest

from inspector.delta.errors import InvalidInput, UnsupportedFeature
from inspector.log.deltalog import DeltaLog
from inspector.rows.connectors import (
    ABFS,
    GCS,
    S3A,
    connector_for,
    hadoop_conf,
    hadoop_uri,
    spark_location,
)
from inspector.rows.session import has_class
from inspector.storage import parse_location
from tests.conftest import CORPUS


@pytest.mark.parametrize(
    "uri, connector",
    [
        ("s3://bucket/table", S3A),
        ("s3a://bucket/table", S3A),
        ("abfss://c@acct.dfs.core.windows.net/t", ABFS),
        ("abfs://c@acct.dfs.core.windows.net/t", ABFS),
        ("az://c/t", ABFS),
        ("gs://bucket/t", GCS),
        ("/data/table", None),
        ("file:///data/table", None),
    ],
)
def test_each_scheme_has_its_connector(uri, connector):
    assert connector_for(uri) == connector


@pytest.mark.parametrize(
    "uri, options, expected",
    [
        ("s3://bucket/a/table", {}, "s3a://bucket/a/table"),
        ("s3a://bucket/table", {}, "s3a://bucket/table"),
        (
            "az://container/t/x.parquet",
            {"AZURE_STORAGE_ACCOUNT_NAME": "acct"},
            "abfss://container@acct.dfs.core.windows.net/t/x.parquet",
        ),
        (
            "abfs://container@acct.dfs.core.windows.net/t",
            {},
            "abfss://container@acct.dfs.core.windows.net/t",
        ),
        (
            "abfss://container@acct.dfs.core.windows.net/t",
            {},
            "abfss://container@acct.dfs.core.windows.net/t",
        ),
        ("gs://bucket/t/part-0.parquet", {}, "gs://bucket/t/part-0.parquet"),
    ],
)
def test_uris_are_spelled_as_the_connector_names_them(uri, options, expected):
    assert hadoop_uri(uri, options) == expected


def test_an_azure_container_without_an_account_is_bad_input():
    with pytest.raises(InvalidInput, match="AZURE_STORAGE_ACCOUNT_NAME"):
        hadoop_uri("az://container/t", {})


def test_s3_options_become_per_bucket_s3a_conf():
    conf = hadoop_conf(
        "s3://bucket/t",
        {
            "AWS_ACCESS_KEY_ID": "AKID",
            "AWS_SECRET_ACCESS_KEY": "SECRET",
            "AWS_REGION": "eu-west-1",
            "AWS_ENDPOINT_URL": "http://127.0.0.1:5000",
        },
    )
    assert conf == {
        "fs.s3a.bucket.bucket.access.key": "AKID",
        "fs.s3a.bucket.bucket.secret.key": "SECRET",
        "fs.s3a.bucket.bucket.aws.credentials.provider": (
            "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"
        ),
        "fs.s3a.bucket.bucket.endpoint.region": "eu-west-1",
        "fs.s3a.bucket.bucket.endpoint": "http://127.0.0.1:5000",
        "fs.s3a.bucket.bucket.connection.ssl.enabled": "false",
        "fs.s3a.bucket.bucket.path.style.access": "true",
    }


def test_a_session_token_selects_temporary_credentials_and_names_are_case_free():
    conf = hadoop_conf(
        "s3a://b/t",
        {"aws_access_key_id": "A", "aws_secret_access_key": "S", "aws_session_token": "T"},
    )
    assert conf["fs.s3a.bucket.b.session.token"] == "T"
    assert conf["fs.s3a.bucket.b.aws.credentials.provider"].endswith(
        "TemporaryAWSCredentialsProvider"
    )


def test_no_options_give_no_conf_so_hadoops_own_credential_chain_applies():
    assert hadoop_conf("s3://b/t", {}) == {}
    assert hadoop_conf("gs://b/t", {}) == {}


@pytest.mark.parametrize(
    "options, expected",
    [
        (
            {"AZURE_STORAGE_ACCOUNT_NAME": "acct", "AZURE_STORAGE_ACCOUNT_KEY": "KEY"},
            {"fs.azure.account.key.acct.dfs.core.windows.net": "KEY"},
        ),
        (
            {"AZURE_STORAGE_ACCOUNT_NAME": "acct", "AZURE_STORAGE_SAS_TOKEN": "?sv=1&sig=x"},
            {
                "fs.azure.account.auth.type.acct.dfs.core.windows.net": "SAS",
                "fs.azure.sas.fixed.token.acct.dfs.core.windows.net": "sv=1&sig=x",
            },
        ),
    ],
)
def test_azure_keys_and_sas_tokens_are_per_account(options, expected):
    assert hadoop_conf("az://container/t", options) == expected


def test_an_azure_service_principal_uses_oauth_client_credentials():
    conf = hadoop_conf(
        "abfss://c@acct.dfs.core.windows.net/t",
        {"AZURE_CLIENT_ID": "id", "AZURE_CLIENT_SECRET": "secret", "AZURE_TENANT_ID": "tenant"},
    )
    host = "acct.dfs.core.windows.net"
    assert conf[f"fs.azure.account.auth.type.{host}"] == "OAuth"
    assert conf[f"fs.azure.account.oauth2.client.secret.{host}"] == "secret"
    assert conf[f"fs.azure.account.oauth2.client.endpoint.{host}"] == (
        "https://login.microsoftonline.com/tenant/oauth2/token"
    )


def test_a_gcs_key_file_is_handed_to_the_gcs_connector():
    conf = hadoop_conf("gs://b/t", {"GOOGLE_APPLICATION_CREDENTIALS": "/keys/sa.json"})
    assert conf == {
        "fs.gs.auth.type": "SERVICE_ACCOUNT_JSON_KEYFILE",
        "fs.gs.auth.service.account.json.keyfile": "/keys/sa.json",
    }


@pytest.mark.parametrize(
    "location, local",
    [("/t", True), ("file:///t", True), ("s3://b/t", False), ("az://c/t", False)],
)
def test_local_locations_are_told_from_object_storage(location, local):
    assert parse_location(location).is_local is local


@pytest.mark.spark
def test_the_jar_cache_puts_every_cloud_connector_on_this_sessions_classpath(spark):
    assert all(has_class(spark, c.filesystem_class) for c in (S3A, ABFS, GCS))


@pytest.mark.spark
def test_an_azure_blob_endpoint_no_connector_reaches_is_one_line_naming_the_emulator(spark):
    """Hadoop's ABFS connector speaks only an account's DFS endpoint, so a table behind a
    Blob-only endpoint (the emulator Azurite) gives no rows, in one line. That is the
    emulator's missing endpoint, not a user's table: Azure is tested as the log-level
    commands against Azurite (test_azure_storage.py) plus Delta's row reads on local disk
    and S3 (test_object_store_rows.py), through the same connector code."""
    from inspector.storage.objectstore import ObjectStorage

    snapshot = DeltaLog.open(str(CORPUS / "dat-v0.0.2/basic_append/delta")).snapshot()
    options = {
        "AZURE_STORAGE_ACCOUNT_NAME": "devstoreaccount1",
        "AZURE_STORAGE_ENDPOINT": "http://127.0.0.1:10000/devstoreaccount1",
    }
    store = ObjectStorage("az://container/table", scheme="az", options=options)
    remote = dataclasses.replace(snapshot, table_root="az://container/table", storage=store)
    with pytest.raises(UnsupportedFeature, match="Azurite"):
        spark_location(spark, remote)
