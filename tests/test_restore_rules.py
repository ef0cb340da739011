"""Specification of the restore's rules that need no table: protocol merge, feature support,
guards on metadata, identity high-water marks, in-commit timestamps, the commit writer, the audit log.
"""

from __future__ import annotations

import json
import os

import pytest

from inspector.delta.errors import ConcurrentModification, InvalidInput
from inspector.delta.parse import parse_action
from inspector.delta.protocol import (
    MANAGED_FEATURES,
    REFUSED_FEATURES,
    RESTORABLE_FEATURES,
    all_features,
    covers,
    merge_protocols,
)
from inspector.log.commit_writer import write_commit
from inspector.log.deltalog import DeltaLog
from inspector.restore.actions import merge_high_water_marks, with_ict_enablement
from inspector.restore.audit import Attempt, read_audit, record_attempt
from inspector.restore.guards import (
    append_only_guard,
    features_guard,
    managed_guard,
    row_tracking_guard,
)
from inspector.restore.request import NameSource, parse_target, table_name_source
from tests.conftest import protocol_action


def metadata(configuration=None, schema=None):
    schema = schema or {
        "type": "struct",
        "fields": [{"name": "id", "type": "long", "nullable": True, "metadata": {}}],
    }
    return parse_action(
        {
            "metaData": {
                "id": "t",
                "format": {"provider": "parquet", "options": {}},
                "schemaString": json.dumps(schema),
                "partitionColumns": [],
                "configuration": configuration or {},
            }
        }
    )


def add(path="a.parquet", **extra):
    return parse_action(
        {
            "add": {
                "path": path,
                "partitionValues": {},
                "size": 10,
                "modificationTime": 1,
                "dataChange": True,
                **extra,
            }
        }
    )


DV = protocol_action(3, 7, ["deletionVectors"], ["deletionVectors"])
PROTOCOLS = [
    protocol_action(1, 2),
    protocol_action(1, 4),
    protocol_action(2, 5),
    protocol_action(2, 6),
    DV,
    protocol_action(
        3,
        7,
        ["deletionVectors", "columnMapping"],
        ["deletionVectors", "columnMapping", "rowTracking", "domainMetadata"],
    ),
    protocol_action(1, 7, None, ["appendOnly", "inCommitTimestamp"]),
]


@pytest.mark.parametrize("current", PROTOCOLS)
@pytest.mark.parametrize("target", PROTOCOLS)
def test_the_merged_protocol_is_never_lower_than_either_side(current, target):
    merged = merge_protocols(current, target)
    assert covers(merged, current) and covers(merged, target)


def test_two_legacy_protocols_merge_into_the_higher_legacy_protocol():
    merged = merge_protocols(protocol_action(1, 2), protocol_action(2, 5))
    assert (merged.min_reader_version, merged.min_writer_version) == (2, 5)
    assert merged.reader_features is None and merged.writer_features is None


def test_restoring_before_a_feature_was_dropped_brings_the_feature_back():
    # The current table dropped deletion vectors; the target still has files with them.
    merged = merge_protocols(protocol_action(1, 2), DV)
    assert "deletionVectors" in merged.reader_features
    assert {"deletionVectors", "appendOnly", "invariants"} <= set(merged.writer_features)


def test_a_legacy_target_keeps_the_current_table_features_and_adds_its_implied_ones():
    merged = merge_protocols(DV, protocol_action(1, 2))
    assert (merged.min_reader_version, merged.min_writer_version) == (3, 7)
    assert all_features(merged) == {"deletionVectors", "appendOnly", "invariants"}


@pytest.mark.parametrize(
    "feature", sorted(set(REFUSED_FEATURES) - MANAGED_FEATURES) + ["geospatial", "collations"]
)
def test_a_table_with_a_refused_or_unknown_feature_is_refused_naming_it(feature):
    guard = features_guard([protocol_action(3, 7, [feature], [feature, "appendOnly"])])
    assert not guard.passed
    assert feature in guard.message and guard.override is None


@pytest.mark.parametrize("feature", sorted(MANAGED_FEATURES))
def test_features_of_managed_tables_are_left_to_the_managed_guard(feature):
    guard = features_guard([protocol_action(3, 7, [feature], [feature, "appendOnly"])])
    assert guard.passed and f"{feature}: see not_catalog_managed" in guard.message
    assert "Spark and Delta Lake" not in guard.message


def test_every_supported_feature_passes():
    names = sorted(RESTORABLE_FEATURES)
    guard = features_guard([protocol_action(3, 7, names, names)])
    assert guard.passed, guard.message


def test_a_protocol_newer_than_this_writer_knows_is_refused():
    guard = features_guard([protocol_action(4, 8)])
    assert not guard.passed and "4/8" in guard.message


@pytest.mark.parametrize(
    "proto, config, staged",
    [
        (protocol_action(3, 7, ["catalogManaged"], ["catalogManaged"]), {}, 0),
        (protocol_action(3, 7, ["catalogOwned-preview"], ["catalogOwned-preview"]), {}, 0),
        (
            protocol_action(1, 2),
            {"delta.coordinatedCommits.commitCoordinator-preview": "dynamodb"},
            0,
        ),
        (protocol_action(1, 2), {}, 2),
    ],
)
def test_tables_managed_by_a_catalog_or_coordinator_are_refused(proto, config, staged):
    guard = managed_guard(metadata(config), proto, staged)
    assert not guard.passed and "catalog" in guard.message


def test_an_append_only_table_may_only_get_files_back():
    append_only = metadata({"delta.appendOnly": "true"})
    assert append_only_guard(append_only, []).passed
    refused = append_only_guard(append_only, [add()])
    assert not refused.passed and "append-only" in refused.message
    assert append_only_guard(metadata(), [add()]).passed


def test_row_tracking_needs_row_ids_on_every_re_added_file():
    tracked = protocol_action(1, 7, None, ["rowTracking", "domainMetadata"])
    assert row_tracking_guard(
        tracked, metadata(), [add(baseRowId=0, defaultRowCommitVersion=1)]
    ).passed
    refused = row_tracking_guard(tracked, metadata(), [add()])
    assert not refused.passed and "baseRowId" in refused.message
    suspended = metadata({"delta.rowTrackingSuspended": "true"})
    assert row_tracking_guard(tracked, suspended, [add()]).passed
    assert row_tracking_guard(protocol_action(1, 2), metadata(), [add()]).passed


def identity_schema(step, mark=None):
    md = {
        "delta.identity.start": 1,
        "delta.identity.step": step,
        "delta.identity.allowExplicitInsert": False,
    }
    if mark is not None:
        md["delta.identity.highWaterMark"] = mark
    return json.dumps(
        {
            "type": "struct",
            "fields": [
                {"name": "id", "type": "long", "nullable": True, "metadata": md},
                {"name": "v", "type": "string", "nullable": True, "metadata": {}},
            ],
        }
    )


def _mark(schema_string):
    return json.loads(schema_string)["fields"][0]["metadata"].get("delta.identity.highWaterMark")


@pytest.mark.parametrize(
    "step, target_mark, current_mark, expected",
    [
        (1, 10, 50, 50),  # values 11..50 were generated after the target: never again
        (1, None, 50, 50),
        (-1, -10, -50, -50),  # a negative step counts down
        (1, 50, None, 50),
    ],
)
def test_identity_high_water_marks_never_go_back(step, target_mark, current_mark, expected):
    merged = merge_high_water_marks(
        identity_schema(step, target_mark), identity_schema(step, current_mark)
    )
    assert _mark(merged) == expected


def test_a_schema_without_identity_columns_is_written_unchanged():
    text = metadata().schema_string
    assert merge_high_water_marks(text, text) is text


def test_a_restore_that_turns_in_commit_timestamps_on_records_where():
    body = {"configuration": {"delta.enableInCommitTimestamps": "true"}}
    out = with_ict_enablement(body, metadata(), commit_version=8, ict=1234)
    assert out["configuration"]["delta.inCommitTimestampEnablementVersion"] == "8"
    assert out["configuration"]["delta.inCommitTimestampEnablementTimestamp"] == "1234"


def test_a_restore_keeps_the_in_commit_timestamp_enablement_the_table_has():
    current = metadata(
        {
            "delta.enableInCommitTimestamps": "true",
            "delta.inCommitTimestampEnablementVersion": "3",
            "delta.inCommitTimestampEnablementTimestamp": "999",
        }
    )
    body = {
        "configuration": {
            "delta.enableInCommitTimestamps": "true",
            "delta.inCommitTimestampEnablementVersion": "5",
            "delta.inCommitTimestampEnablementTimestamp": "1000",
        }
    }
    out = with_ict_enablement(body, current, commit_version=9, ict=2000)
    assert out["configuration"]["delta.inCommitTimestampEnablementVersion"] == "3"
    assert out["configuration"]["delta.inCommitTimestampEnablementTimestamp"] == "999"


def test_a_commit_file_is_created_whole(tmp_path):
    path = write_commit(
        str(tmp_path), 7, [{"commitInfo": {"operation": "RESTORE"}}, {"add": {"path": "x"}}]
    )
    assert os.path.basename(path) == "00000000000000000007.json"
    lines = open(path, encoding="utf-8").read().splitlines()
    assert [json.loads(line) for line in lines] == [
        {"commitInfo": {"operation": "RESTORE"}},
        {"add": {"path": "x"}},
    ]
    assert os.listdir(tmp_path) == ["00000000000000000007.json"]  # no temporary file left


def test_an_existing_commit_is_never_overwritten(tmp_path):
    existing = tmp_path / "00000000000000000003.json"
    existing.write_text('{"commitInfo":{"operation":"WRITE"}}\n')
    with pytest.raises(ConcurrentModification, match="version 3"):
        write_commit(str(tmp_path), 3, [{"commitInfo": {"operation": "RESTORE"}}])
    assert existing.read_text() == '{"commitInfo":{"operation":"WRITE"}}\n'
    assert os.listdir(tmp_path) == ["00000000000000000003.json"]


def test_every_attempt_is_appended_to_the_audit_log(tmp_path):
    path = str(tmp_path / "audit" / "log.jsonl")
    record_attempt(path, Attempt(table="/t", from_version=3, to_version=1), outcome="planned")
    record_attempt(
        path,
        Attempt(table="/t", from_version=3, to_version=1, reason="bad load", operator="ana"),
        outcome="committed",
        committed_version=4,
    )
    entries = read_audit(path)
    assert [e.outcome for e in entries] == ["planned", "committed"]
    assert entries[1].who == "ana" and entries[1].reason == "bad load"
    assert entries[1].committed_version == 4 and entries[0].who  # the OS user by default


def test_column_mapping_ids_never_go_back():
    from inspector.restore.actions import restored_metadata

    schema = {
        "type": "struct",
        "fields": [
            {
                "name": "a",
                "type": "long",
                "nullable": True,
                "metadata": {
                    "delta.columnMapping.id": 1,
                    "delta.columnMapping.physicalName": "col-a",
                },
            }
        ],
    }
    target = metadata(
        {"delta.columnMapping.mode": "name", "delta.columnMapping.maxColumnId": "1"}, schema
    )
    current = metadata(
        {"delta.columnMapping.mode": "name", "delta.columnMapping.maxColumnId": "3"}, schema
    )

    restored = restored_metadata(current, target)

    assert restored["configuration"]["delta.columnMapping.maxColumnId"] == "3"
    assert (
        restored_metadata(target, target)["configuration"]["delta.columnMapping.maxColumnId"] == "1"
    )


@pytest.mark.parametrize(
    "current, target, allowed",
    [
        ("name", "name", True),
        ("none", "name", True),
        ("name", "none", False),
        ("id", "name", False),
        ("none", "id", False),
    ],
)
def test_the_column_mapping_mode_only_changes_as_delta_allows(current, target, allowed):
    from inspector.restore.guards import column_mapping_guard

    guard = column_mapping_guard(
        metadata({"delta.columnMapping.mode": current}),
        metadata({"delta.columnMapping.mode": target}),
    )
    assert guard.passed is allowed


def test_a_typed_target_is_a_version_or_else_the_text_of_a_timestamp(corpus):
    log = DeltaLog.open(str(corpus / "dat-v0.0.2" / "basic_partitioned" / "delta"))

    assert parse_target(" 0 ", log) == 0
    assert parse_target("latest", log) == parse_target("Current", log) == log.latest_version
    assert parse_target(" 2024-05-01 12:00:00 ", log) == "2024-05-01 12:00:00"
    with pytest.raises(InvalidInput):
        parse_target("-99", log)


def test_the_name_to_type_comes_from_the_metadata_unless_it_is_the_folder_name():
    assert table_name_source("sales", "s3://bucket/tables/sales/") is NameSource.FOLDER
    assert table_name_source("orders", "/data/sales") is NameSource.METADATA
