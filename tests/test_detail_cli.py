"""Specification: ``python -m inspector detail TABLE [--version V] [--json]``, the table's
overview (DESCRIBE DETAIL's fields) as the Overview page shows it, checked against deltalake."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from inspector.cli.main import main
from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.overview import describe_detail
from tests.conftest import CORPUS

DESCRIBE_DETAIL = {
    "format",
    "id",
    "name",
    "description",
    "location",
    "createdAt",
    "lastModified",
    "partitionColumns",
    "clusteringColumns",
    "numFiles",
    "sizeInBytes",
    "properties",
    "minReaderVersion",
    "minWriterVersion",
    "tableFeatures",
}


def detail(capsys, *args: object) -> tuple[int, str]:
    code = main(["detail", *map(str, args)])
    out, err = capsys.readouterr()
    assert err == ""
    return code, out


@pytest.mark.parametrize(
    "table",
    [
        "dat-v0.0.2/basic_partitioned/delta",
        "delta-golden/dv-with-columnmapping",
        "delta-kernel-rs/cdf-table-with-cdc-and-dvs",
    ],
)
def test_detail_json_has_describe_details_fields_and_matches_deltalake(capsys, table):
    path = str(CORPUS / table)
    oracle = DeltaTable(path)

    code, out = detail(capsys, path, "--json", "--whole-log")

    record = json.loads(out)
    assert code == 0 and DESCRIBE_DETAIL <= set(record)
    adds = pa.table(oracle.get_add_actions(flatten=True))
    assert record["numFiles"] == adds.num_rows
    assert record["sizeInBytes"] == sum(adds.column("size_bytes").to_pylist())
    assert record["partitionColumns"] == oracle.metadata().partition_columns
    assert record["id"] == oracle.metadata().id and record["version"] == oracle.version()
    protocol = oracle.protocol()
    assert (record["minReaderVersion"], record["minWriterVersion"]) == (
        protocol.min_reader_version,
        protocol.min_writer_version,
    )
    # tableFeatures also names those a legacy protocol implies, as DESCRIBE DETAIL does
    # (tests/test_delta_oracle_features.py); the listed ones are delta-rs's.
    assert set(record["readerFeatures"]) | set(record["writerFeatures"]) == set(
        protocol.reader_features or []
    ) | set(protocol.writer_features or [])
    log = DeltaLog.open(path)
    expected = describe_detail(log, build_history(log, Settings())).to_json()
    assert "compatibility" in record  # tests/test_compatibility.py
    del record["compatibility"]
    assert record == json.loads(json.dumps(expected))


def test_detail_without_the_whole_log_leaves_the_logs_shape_out(capsys):
    path = CORPUS / "delta-kernel-java/basic-with-checkpoint"

    _, fast = detail(capsys, path, "--json")
    _, whole = detail(capsys, path, "--json", "--whole-log")

    shape = ("earliestVersion", "numCommits", "checkpointVersions")
    fast_record, whole_record = json.loads(fast), json.loads(whole)
    assert [fast_record.pop(k) for k in shape] == [None, None, None]
    assert [whole_record.pop(k) for k in shape] == [0, 15, [10]]
    fast_record.pop("compatibility"), whole_record.pop("compatibility")
    # lastModified is the version's history timestamp either way: the file times of the
    # commits before it (from the listing, no commit read) keep the chain increasing, as
    # the Overview and the Timeline have it.
    assert fast_record == whole_record


def test_detail_of_an_older_version_describes_that_version(capsys):
    path = CORPUS / "dat-v0.0.2/multi_partitioned/delta"  # 0: 3 files; 2: overwritten, 2 files

    _, first = detail(capsys, path, "--version", 0, "--json")
    _, latest = detail(capsys, path, "--json")

    assert (json.loads(first)["version"], json.loads(first)["numFiles"]) == (0, 3)
    assert (json.loads(latest)["version"], json.loads(latest)["numFiles"]) == (2, 2)
    assert json.loads(first)["lastModified"] <= json.loads(latest)["lastModified"]


def test_detail_of_the_demo_table_in_text(capsys, tmp_path):
    assert main(["demo", str(tmp_path / "orders")]) == 0
    capsys.readouterr()

    code, out = detail(capsys, tmp_path / "orders")

    assert code == 0
    head, _, rest = out.partition("\nproperties:")
    fields = dict(line.split(None, 1) for line in head.splitlines())
    assert fields["format"] == "delta" and fields["location"] == str(tmp_path / "orders")
    assert (fields["name"], fields["partitionColumns"]) == ("orders", "region")
    assert int(fields["numFiles"]) > 0 and int(fields["minWriterVersion"]) >= 2
    assert "  delta.logRetentionDuration = interval 3650 days" in rest
    assert "\ncolumns:\n  order_id long" in rest
