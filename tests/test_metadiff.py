"""Schema, property and protocol differences between versions of real tables."""

from __future__ import annotations

import json

from inspector.delta.actions import Metadata
from inspector.delta.parse import parse_action
from inspector.diff.metadiff import (
    MetadataDiff,
    RowKind,
    commit_metadata_change,
    diff_metadata,
    metadata_rows,
)
from inspector.log.deltalog import DeltaLog
from tests.conftest import CORPUS


def diff_at(path: str, version: int) -> MetadataDiff:
    """What the commit of ``version`` changed in metadata and protocol."""
    log = DeltaLog.open(str(CORPUS / path))
    before = log.snapshot(version - 1) if version > 0 else None
    after = log.snapshot(version)
    return diff_metadata(
        (before.metadata, before.protocol) if before else None, (after.metadata, after.protocol)
    )


def names(columns) -> list[str]:
    return [c.name for c in columns]


def changes(diff: MetadataDiff) -> dict[str, list[str]]:
    return {c.name: c.changes for c in diff.columns_changed}


def _features(diff: MetadataDiff, side: str) -> set[str]:
    """The reader and writer features one side of the protocol names."""
    named = [v for v in diff.protocol if v.key in ("readerFeatures", "writerFeatures")]
    return {f for v in named for f in getattr(v, side) or ()}


def test_a_new_table_adds_every_column_and_its_protocol():
    diff = diff_at("dat-v0.0.2/with_schema_change/delta", 0)
    assert names(diff.columns_added) == ["letter", "number"]
    assert not diff.columns_removed and not diff.columns_changed
    assert {(v.key, v.before, v.after) for v in diff.protocol} == {
        ("minReaderVersion", None, 1),
        ("minWriterVersion", None, 2),
    }
    assert not diff.is_empty


def test_an_overwrite_with_a_new_schema_drops_and_adds_columns():
    diff = diff_at("dat-v0.0.2/with_schema_change/delta", 1)
    assert names(diff.columns_removed) == ["letter", "number"]
    assert names(diff.columns_added) == ["num1", "num2"]
    assert not diff.protocol and not diff.table


def test_a_version_compared_with_itself_has_no_differences():
    snapshot = DeltaLog.open(str(CORPUS / "delta-rs/table_with_partitioning_mapping")).snapshot()
    pair = (snapshot.metadata, snapshot.protocol)
    assert diff_metadata(pair, pair).is_empty


def test_a_column_mapping_rename_is_a_rename_not_a_drop_and_an_add():
    diff = diff_at("delta-rs/table_with_partitioning_mapping", 3)  # RENAME COLUMN id -> newid
    assert changes(diff) == {"newid": ["renamed from id"]}
    assert not diff.columns_added and not diff.columns_removed
    assert [(v.key, v.before, v.after) for v in diff.table] == [
        ("partitionColumns", ["id"], ["newid"])
    ]


def test_enabling_column_mapping_changes_properties_and_features_not_columns():
    diff = diff_at("delta-rs/table_with_partitioning_mapping", 2)  # SET TBLPROPERTIES
    assert not diff.columns_added and not diff.columns_removed and not diff.columns_changed
    assert {v.key: v.after for v in diff.properties} == {
        "delta.columnMapping.mode": "name",
        "delta.columnMapping.maxColumnId": "2",
    }
    assert "columnMapping" in _features(diff, "after") - _features(diff, "before")
    assert not _features(diff, "before") - _features(diff, "after")


def test_type_widening_shows_each_widened_column():
    upgrade = diff_at("delta-kernel-rs/type-widening", 1)
    assert {(v.key, v.before, v.after) for v in upgrade.protocol if v.key.startswith("min")} == {
        ("minReaderVersion", 1, 3),
        ("minWriterVersion", 2, 7),
    }
    assert "typeWidening-preview" in _features(upgrade, "after") - _features(upgrade, "before")
    assert {v.key: v.after for v in upgrade.properties} == {"delta.enableTypeWidening": "true"}

    widened = changes(diff_at("delta-kernel-rs/type-widening", 2))
    assert widened["int_long"] == ["type integer -> long"]
    assert widened["decimal_decimal_greater_scale"] == ["type decimal(10,2) -> decimal(20,5)"]
    assert widened["date_timestamp_ntz"] == ["type date -> timestamp_ntz"]
    assert len(widened) == 13


def test_a_nested_field_change_is_reported_on_the_field_not_on_its_struct():
    widened = changes(diff_at("delta-golden/type-widening-nested", 2))
    assert widened == {
        "struct.a": ["type integer -> long"],
        "map": ["type map<integer,integer> -> map<long,long>"],
        "array": ["type array<integer> -> array<long>"],
    }


def _with_schema(metadata: Metadata, edit) -> Metadata:
    """The same metaData action with its schema edited like an ALTER TABLE would."""
    schema = json.loads(metadata.schema_string)
    edit(schema)
    return parse_action({"metaData": {**metadata.raw, "schemaString": json.dumps(schema)}})


def test_renaming_and_extending_a_nested_struct_under_column_mapping():
    snapshot = DeltaLog.open(
        str(CORPUS / "delta-golden/table-with-columnmapping-mode-name")
    ).snapshot()

    def alter(schema):
        struct = next(f for f in schema["fields"] if f["name"] == "nested_struct")
        struct["name"] = "renamed_struct"
        struct["type"]["fields"][0]["name"] = "first"  # nested_struct.aa
        struct["type"]["fields"].append(
            {
                "name": "added",
                "type": "string",
                "nullable": True,
                "metadata": {
                    "delta.columnMapping.id": 999,
                    "delta.columnMapping.physicalName": "col-new",
                },
            }
        )

    diff = diff_metadata(
        (snapshot.metadata, snapshot.protocol),
        (_with_schema(snapshot.metadata, alter), snapshot.protocol),
    )

    assert changes(diff) == {
        "renamed_struct": ["renamed from nested_struct"],
        "renamed_struct.first": ["renamed from nested_struct.aa"],
    }
    assert names(diff.columns_added) == ["renamed_struct.added"]
    assert not diff.columns_removed


def test_a_column_made_not_null_is_reported():
    snapshot = DeltaLog.open(str(CORPUS / "dat-v0.0.2/basic_append/delta")).snapshot()

    def tighten(schema):
        schema["fields"][0]["nullable"] = False

    diff = diff_metadata(
        (snapshot.metadata, snapshot.protocol),
        (_with_schema(snapshot.metadata, tighten), snapshot.protocol),
    )
    assert changes(diff) == {"letter": ["now NOT NULL"]}


def test_a_metadata_diff_flattens_into_rows_columns_first_then_values():
    rows = metadata_rows(diff_at("dat-v0.0.2/with_schema_change/delta", 1))

    kinds = [r.kind for r in rows]
    assert kinds == sorted(kinds, key=list(RowKind).index)  # columns, then table, properties...
    columns = {(r.kind, r.name, r.before, r.after) for r in rows if r.kind.is_column}
    diff = diff_at("dat-v0.0.2/with_schema_change/delta", 1)
    assert columns == {(RowKind.COLUMN_ADDED, c.name, None, c.type) for c in diff.columns_added} | {
        (RowKind.COLUMN_REMOVED, c.name, c.type, None) for c in diff.columns_removed
    }
    assert all(r.column is not None for r in rows if r.kind.is_column)
    assert [r.to_json()["kind"] for r in rows] == [k.value for k in kinds]


def test_a_renamed_column_is_one_changed_row_saying_what_changed():
    rows = metadata_rows(diff_at("delta-rs/table_with_partitioning_mapping", 3))  # id -> newid

    changed = [r for r in rows if r.kind is RowKind.COLUMN_CHANGED]
    assert [(r.name, r.changes) for r in changed] == [("newid", ("renamed from id",))]
    assert [(r.kind, r.name) for r in rows if not r.kind.is_column] == [
        (RowKind.TABLE, "partitionColumns")
    ]


def test_a_commit_that_creates_the_table_changes_everything_from_nothing():
    log = DeltaLog.open(str(CORPUS / "dat-v0.0.2" / "with_schema_change" / "delta"))

    created = commit_metadata_change(log, log.commit(0))
    assert created is not None and created.creates and created.before_unknown is None
    assert created.diff == diff_at("dat-v0.0.2/with_schema_change/delta", 0)

    overwritten = commit_metadata_change(log, log.commit(1))
    assert overwritten is not None and not overwritten.creates
    assert overwritten.diff == diff_at("dat-v0.0.2/with_schema_change/delta", 1)
