"""Specification: row commands read a table in S3 (moto on loopback) like its local copy.

``show``, ``diff --rows`` and ``changes`` start Spark; with the options given only as
``--storage-option`` flags (no ``AWS_*`` variable), Delta Lake reads the bucket through
Hadoop's S3 connector (``s3a://``, per-bucket conf) and the answers equal those of the
same table on the local disk. Rows on Azure are tested this way too, on S3: Azurite serves
no DFS endpoint for Hadoop's ABFS connector (see test_connectors.py).
"""

from __future__ import annotations

import json

import pytest

from inspector.cli.main import main
from inspector.demo import write_demo_table
from tests.conftest import CORPUS
from tests.object_stores import flags

# No cloud variable unless a test sets one: options come from where the test says.
pytestmark = pytest.mark.usefixtures("no_cloud_env")

CDF_TABLE = "delta-kernel-rs/cdf-table"


def run_json(capsys, *args: object) -> dict:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def same_rows(shown: dict) -> list[str]:
    """The rows as sorted JSON text, without ``_commit_timestamp``: the upload gives the
    commit files new modification times, which is what that column reports."""
    return sorted(
        json.dumps({k: v for k, v in row.items() if k != "_commit_timestamp"}, sort_keys=True)
        for row in shown["rows"]
    )


@pytest.fixture(scope="module")
def demo_in_s3(s3_server, tmp_path_factory):
    local = write_demo_table(str(tmp_path_factory.mktemp("demo") / "orders"))
    return local, s3_server.upload(local, "orders")


@pytest.mark.spark
@pytest.mark.parametrize("version", ["3", "latest"])
def test_show_of_a_table_in_s3_returns_the_rows_of_its_local_copy(
    spark, capsys, s3_server, demo_in_s3, version
):
    local, uri = demo_in_s3
    pick = [] if version == "latest" else ["--version", version]
    theirs = run_json(capsys, "show", local, *pick, "--limit", "10000", "--json")
    ours = run_json(
        capsys, "show", uri, *pick, "--limit", "10000", "--json", *flags(s3_server.options)
    )
    assert ours["numRows"] == theirs["numRows"] > 0
    assert same_rows(ours) == same_rows(theirs)


@pytest.mark.spark
def test_the_row_diff_of_a_table_in_s3_equals_its_local_copys(spark, capsys, s3_server, demo_in_s3):
    local, uri = demo_in_s3
    args = ("--from", "2", "--to", "latest", "--rows", "--json")
    theirs = run_json(capsys, "diff", local, *args)
    ours = run_json(capsys, "diff", uri, *args, *flags(s3_server.options))
    assert ours["rows"] == theirs["rows"]


@pytest.mark.spark
def test_the_change_data_feed_of_a_table_in_s3_equals_its_local_copys(spark, capsys, s3_server):
    uri = s3_server.upload(CORPUS / CDF_TABLE)
    args = ("--from", "0", "--limit", "10000", "--json")
    theirs = run_json(capsys, "changes", CORPUS / CDF_TABLE, *args)
    ours = run_json(capsys, "changes", uri, *args, *flags(s3_server.options))
    assert ours["counts"] == theirs["counts"] and ours["numRows"] == theirs["numRows"] > 0
    assert same_rows(ours) == same_rows(theirs)


def _without_times(blame: dict) -> dict:
    """The blame without each write's time: the upload gives the commit files new
    modification times, which the history's time of a version may come from."""
    for row in blame["rows"]:
        for write in row["writes"]:
            write.pop("timestamp")
    return blame


@pytest.mark.spark
def test_blame_of_a_row_in_s3_equals_its_local_copys(spark, capsys, s3_server, demo_in_s3):
    local, uri = demo_in_s3
    args = ("--where", "order_id = 380", "--json")
    theirs = _without_times(run_json(capsys, "blame", local, *args))
    ours = _without_times(run_json(capsys, "blame", uri, *args, *flags(s3_server.options)))
    assert ours["rows"] == theirs["rows"] and len(theirs["rows"]) == 1
    assert ours["versionsRead"] == theirs["versionsRead"]
    assert ours["cuts"] == theirs["cuts"] == []
    assert len(theirs["rows"][0]["writes"]) > 1  # inserted, then changed


@pytest.mark.spark
def test_explain_of_a_table_in_s3_keeps_the_files_of_its_local_copy(
    spark, capsys, s3_server, demo_in_s3
):
    local, uri = demo_in_s3
    args = ("--where", "region = 'EU' AND order_id > 600", "--json")
    theirs = run_json(capsys, "explain", local, *args)
    ours = run_json(capsys, "explain", uri, *args, *flags(s3_server.options))
    assert ours["read"] == theirs["read"] and theirs["read"]["files"] > 0
    assert ours["files"] == theirs["files"]
    assert ours["logKeepsFewer"] == theirs["logKeepsFewer"] == []
