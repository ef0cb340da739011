"""Specification: ``glue://DATABASE.TABLE`` opens a Delta table registered in AWS Glue.

Glue is moto's server on loopback (the same server holds the tables in S3). Tables are
registered in both of Glue's forms: Spark's (a placeholder location, the real path in the
SerDe parameter ``path``) and the plain one (``table_type`` = ``DELTA``). Every by-name
answer equals the by-path answer; every failure is one line with its documented exit
code, and no secret is printed.
"""

from __future__ import annotations

import json

import pytest

from inspector.catalog import CatalogKind, resolve_table
from inspector.catalog.browse import list_catalogs, list_schemas, list_tables
from inspector.connection import StorageOptions
from inspector.delta.errors import ExitCode
from inspector.settings import Settings
from tests.conftest import CORPUS, one_error_line
from tests.conftest import run_main as run
from tests.glue_catalog import register_plain_form, register_spark_form
from tests.object_stores import S3_SECRET, closed_port_endpoint, flags

pytestmark = pytest.mark.usefixtures("no_cloud_env")

PARTITIONED = "dat-v0.0.2/multi_partitioned/delta"


@pytest.mark.parametrize("register", [register_spark_form, register_plain_form])
@pytest.mark.parametrize(
    "command", [["history"], ["files", "--version", "1"], ["detail"], ["check"]], ids=str
)
def test_every_by_name_answer_equals_the_by_path_answer(capsys, s3_server, glue, register, command):
    client, database = glue
    uri = s3_server.upload(CORPUS / PARTITIONED)
    name = register(client, database, "orders", uri)
    options = flags(s3_server.options)
    code, by_path, err = run(capsys, *command, uri, "--json", *options)
    assert code == 0, err
    code, by_name, err = run(capsys, *command, name, "--json", *options)
    assert code == 0, err
    assert json.loads(by_name) == json.loads(by_path)


def test_a_name_resolves_to_the_location_and_the_credentials_it_was_looked_up_with(s3_server, glue):
    client, database = glue
    uri = s3_server.upload(CORPUS / PARTITIONED)
    name = register_spark_form(client, database, "orders", uri)
    settings = Settings(storage_options=StorageOptions(s3_server.options))
    table = resolve_table(name, settings)
    assert (table.name, table.location) == (name, uri)
    assert table.storage_options["AWS_SECRET_ACCESS_KEY"] == S3_SECRET
    assert S3_SECRET not in repr(table)


def test_the_browser_lists_databases_and_tables_with_format_and_location(s3_server, glue):
    client, database = glue
    uri = s3_server.upload(CORPUS / PARTITIONED)
    register_spark_form(client, database, "orders", uri)
    register_plain_form(client, database, "events", "s3://tables/events", kind="parquet")
    settings = Settings(storage_options=StorageOptions(s3_server.options))
    assert list_catalogs(CatalogKind.GLUE, settings) == ["glue"]
    assert database in list_schemas(CatalogKind.GLUE, settings, "glue")
    listed = list_tables(CatalogKind.GLUE, settings, "glue", database)
    assert [(t.name, t.format, t.location) for t in listed] == [
        (f"glue://{database}.events", "parquet", "s3://tables/events"),
        (f"glue://{database}.orders", "delta", uri),
    ]


def test_an_unknown_table_is_one_line_and_exit_2(capsys, s3_server, glue):
    _, database = glue
    code, _, err = run(capsys, "history", f"glue://{database}.nope", *flags(s3_server.options))
    assert code == ExitCode.BAD_INPUT
    assert f"no table 'nope' in database '{database}'" in one_error_line(err)


def test_a_name_in_a_database_that_does_not_exist_is_one_line_and_exit_2(capsys, s3_server):
    code, _, err = run(capsys, "history", "glue://nowhere.orders", *flags(s3_server.options))
    assert code == ExitCode.BAD_INPUT
    assert "Glue has no database 'nowhere'" in one_error_line(err)


def test_a_glue_table_that_is_not_delta_is_refused_in_one_line(capsys, s3_server, glue):
    client, database = glue
    name = register_plain_form(client, database, "events", "s3://tables/events", "parquet")
    code, _, err = run(capsys, "history", name, *flags(s3_server.options))
    assert code == ExitCode.BAD_INPUT
    assert "not a Delta table in Glue (its format: parquet)" in one_error_line(err)


def test_an_unreachable_glue_endpoint_is_one_line_and_exit_5_without_secrets(capsys):
    options = {
        "AWS_ACCESS_KEY_ID": "testing-key-id",
        "AWS_SECRET_ACCESS_KEY": S3_SECRET,
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL_GLUE": closed_port_endpoint(),
    }
    code, _, err = run(capsys, "history", "glue://sales.orders", *flags(options))
    assert code == ExitCode.ENVIRONMENT
    assert "Cannot reach the Glue endpoint" in one_error_line(err)
    assert S3_SECRET not in err


def test_a_malformed_name_says_how_to_write_it(capsys):
    code, _, err = run(capsys, "history", "glue://orders")
    assert code == ExitCode.BAD_INPUT
    assert "Write it as glue://DATABASE.TABLE." in one_error_line(err)


@pytest.mark.parametrize(
    "command", [["show", "--version", "1"], ["diff", "--from", "0", "--to", "1", "--rows"]]
)
def test_rows_read_by_name_equal_rows_read_by_path(capsys, s3_server, glue, spark, command):
    client, database = glue
    uri = s3_server.upload(CORPUS / PARTITIONED)
    name = register_spark_form(client, database, "orders", uri)
    options = flags(s3_server.options)
    code, by_path, err = run(capsys, command[0], uri, *command[1:], "--json", *options)
    assert code == 0, err
    code, by_name, err = run(capsys, command[0], name, *command[1:], "--json", *options)
    assert code == 0, err
    assert json.loads(by_name) == json.loads(by_path)
