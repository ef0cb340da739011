"""The key a row diff is suggested to match rows on, read from each table's own metadata."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from inspector.demo import write_demo_table
from inspector.diff.rowkeys import KeySource, suggest_key
from inspector.log.deltalog import DeltaLog
from tests.conftest import CORPUS


def _suggest(path) -> tuple[tuple[str, ...], KeySource, bool]:
    s = suggest_key(DeltaLog.open(str(path)).snapshot(None))
    return s.columns, s.source, s.identifies_rows


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ("delta-spark/identity_test_written_by_version_5", ("id",)),
        ("delta-rs/issue-2152", ("ID_D_DATE",)),  # an identity column, not the first id-like
    ],
)
def test_identity_columns_come_first(table, key):
    assert _suggest(CORPUS / table) == (key, KeySource.IDENTITY, True)


def test_the_demo_orders_are_keyed_by_order_id_not_customer_id(tmp_path):
    demo = write_demo_table(str(tmp_path / "orders"))
    assert _suggest(demo) == (("order_id",), KeySource.NAMED_ID, True)


def test_a_not_null_or_checked_id_beats_an_earlier_id_by_name(tmp_path):
    schema = pa.schema(
        [
            ("customer_id", pa.int64()),
            ("account_id", pa.int64()),
            pa.field("line_id", pa.int64(), nullable=False),
        ]
    )
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({n: [1] for n in schema.names}, schema=schema))
    assert _suggest(path) == (("line_id",), KeySource.CONSTRAINED_ID, True)

    checked = str(tmp_path / "checked")
    write_deltalake(checked, pa.table({"customer_id": [1], "`odd` id": [2], "accountId": [3]}))
    DeltaTable(checked).alter.add_constraint({"positive": "`accountId` > 0"})
    assert _suggest(checked) == (("accountId",), KeySource.CONSTRAINED_ID, True)


def test_a_column_named_id_beats_other_id_like_names(tmp_path):
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"customer_id": [1], "newid": [2], "id": [3]}))
    assert _suggest(path) == (("id",), KeySource.NAMED_ID, True)


def test_partition_columns_are_suggested_but_do_not_identify_a_row():
    table = CORPUS / "dat-v0.0.2" / "basic_partitioned" / "delta"
    assert _suggest(table) == (("letter",), KeySource.PARTITION, False)
    assert "does not identify one" in suggest_key(DeltaLog.open(str(table)).snapshot(None)).reason


def test_clustering_columns_by_their_logical_name_before_partition_columns(tmp_path):
    """A table without an id whose clustering domain names a column by its physical name."""
    schema = {
        "type": "struct",
        "fields": [
            {"name": "region", "type": "string", "nullable": True, "metadata": {}},
            {
                "name": "day",
                "type": "date",
                "nullable": True,
                "metadata": {
                    "delta.columnMapping.id": 2,
                    "delta.columnMapping.physicalName": "col-9f2c",
                },
            },
        ],
    }
    actions = [
        {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
        {
            "metaData": {
                "id": "t",
                "format": {"provider": "parquet", "options": {}},
                "schemaString": json.dumps(schema),
                "partitionColumns": ["region"],
                "configuration": {},
            }
        },
        {
            "domainMetadata": {
                "domain": "delta.clustering",
                "configuration": json.dumps({"clusteringColumns": [["col-9f2c"]]}),
                "removed": False,
            }
        },
    ]
    log = tmp_path / "t" / "_delta_log"
    log.mkdir(parents=True)
    (log / f"{0:020}.json").write_text("\n".join(json.dumps(a) for a in actions) + "\n")
    assert _suggest(tmp_path / "t") == (("day",), KeySource.CLUSTERING, False)


def test_no_suggestion_says_what_to_do():
    table = CORPUS / "dat-v0.0.2" / "basic_append" / "delta"
    suggestion = suggest_key(DeltaLog.open(str(table)).snapshot(None))
    assert (suggestion.columns, suggestion.source) == ((), KeySource.NONE)
    assert suggestion.to_json()["identifiesRows"] is False
