"""The Delta rules written once (``inspector/delta``): intervals, booleans, features, text forms.

Each rule has one implementation; these specifications pin it, so every caller (the
Health page, a restore plan, the reader, the writer) gets the same answer.
"""

from __future__ import annotations

import os
import time

import pyarrow as pa
import pytest
from deltalake import write_deltalake

from inspector.delta.errors import InvalidInput
from inspector.delta.properties import (
    APPEND_ONLY,
    DELETED_FILE_RETENTION,
    ENABLE_CHANGE_DATA_FEED,
    LOG_RETENTION,
    enabled,
    format_duration,
    parse_interval,
    retention,
)
from inspector.delta.protocol import (
    FEATURES,
    MAX_READER_VERSION,
    REFUSED_FEATURES,
    RESTORABLE_FEATURES,
    merge_protocols,
    reader_features,
    writer_features,
)
from inspector.delta.text import partition_label, version_ranges
from inspector.health.retention import retention_view
from inspector.log.deltalog import DeltaLog
from inspector.restore.plan_warnings import retention_warning
from inspector.settings import Settings
from inspector.table import open_table
from inspector.table.history import build_history
from tests.conftest import protocol_action

MS, SECOND, HOUR, DAY, WEEK = 1, 1000, 3_600_000, 86_400_000, 604_800_000


# --- intervals: Delta's parseCalendarInterval + isValidIntervalConfigValue ---------------------


@pytest.mark.parametrize(
    "text, ms",
    [
        ("interval 30 days", 30 * DAY),
        ("interval 1 week", WEEK),
        ("1 week", WEEK),
        ("30 days", 30 * DAY),
        ("interval 2 days 12 hours", 2 * DAY + 12 * HOUR),
        ("INTERVAL 2 DAYS 12 HOURS", 2 * DAY + 12 * HOUR),
        ("interval 168 hours", WEEK),
        ("interval 2 weeks", 2 * WEEK),
        ("interval 90 seconds", 90 * SECOND),
        ("500 milliseconds", 500 * MS),
        ("1.5 seconds", 1500 * MS),  # only seconds may have a fraction
        (".5 second", 500 * MS),
        ("1000 microseconds", 1 * MS),
        ("interval 1 day -1 hour", 23 * HOUR),  # signed parts; only the total must be >= 0
        ("1 day 10 day", 11 * DAY),  # repeated units add up, as in Spark
        ("  interval 0 days  ", 0),
    ],
)
def test_retention_intervals_delta_accepts(text, ms):
    assert parse_interval(text) == ms


@pytest.mark.parametrize(
    "text",
    [
        "",
        "30",
        "1.5 days",  # Spark: "'days' cannot have fractional part"
        "1. hour",
        "interval 1 month",  # months and years have no fixed length: Delta refuses them
        "interval 1 year",
        "interval -1 day",  # negative
        "1day",  # a space must separate number and unit
        "1 dayss",
        "thirty days",
        "interval 1 fortnight",
        "1.1234567891 seconds",  # nanosecond precision at most
        "2234567890 days",  # integer overflow
        "interval",
    ],
)
def test_intervals_delta_refuses_are_refused_with_a_hint(text):
    with pytest.raises(InvalidInput) as err:
        parse_interval(text)
    assert "interval 30 days" in err.value.hint


def test_a_retention_in_force_is_the_tables_value_or_delta_default():
    assert retention({}, LOG_RETENTION).ms == 30 * DAY
    assert retention({}, DELETED_FILE_RETENTION).ms == WEEK
    set_ = retention({DELETED_FILE_RETENTION: "interval 2 days 12 hours"}, DELETED_FILE_RETENTION)
    assert (set_.ms, set_.problem) == (60 * HOUR, None)
    assert set_.describe() == (
        "2 days 12 hours (delta.deletedFileRetentionDuration = 'interval 2 days 12 hours')"
    )
    bad = retention({DELETED_FILE_RETENTION: "1 month"}, DELETED_FILE_RETENTION)
    assert bad.ms == WEEK and bad.text == "interval 1 week"
    assert "1 month" in bad.problem and "default" in bad.problem


def test_durations_are_written_in_exact_units():
    assert format_duration(60 * HOUR) == "2 days 12 hours"
    assert format_duration(WEEK) == "7 days"
    assert format_duration(1500) == "1 second 500 milliseconds"
    assert format_duration(0) == "0 seconds"


# --- booleans ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [("true", True), ("TRUE", True), ("false", False), ("yes", False), (" true", False)],
)
def test_boolean_properties_are_read_as_delta_reads_them(value, expected):
    assert enabled({APPEND_ONLY: value}, APPEND_ONLY) is expected


def test_an_unset_boolean_property_is_delta_default():
    assert enabled({}, ENABLE_CHANGE_DATA_FEED) is False


# --- the retention view and the restore warning agree ------------------------------------------


@pytest.mark.parametrize(
    "text, hours", [("interval 2 days 12 hours", 60), ("1.5 seconds", 0), ("interval 1 week", 168)]
)
def test_the_restore_warning_and_the_retention_view_agree_on_the_same_table(tmp_path, text, hours):
    root = tmp_path / "t"
    write_deltalake(str(root), pa.table({"id": [1]}), configuration={DELETED_FILE_RETENTION: text})
    write_deltalake(str(root), pa.table({"id": [2]}), mode="append")
    log = DeltaLog.open(str(root))
    history = build_history(log, Settings())
    view = retention_view(log, history)
    current, target = log.snapshot(1), log.snapshot(0)
    target_ms = history[0].timestamps.history
    retention_ms = view.policy.deleted_files.ms

    assert retention_ms == parse_interval(text)
    just_inside = retention_warning(current, target, target_ms, now_ms=target_ms + retention_ms)
    just_past = retention_warning(current, target, target_ms, now_ms=target_ms + retention_ms + 1)
    assert just_inside == []
    assert len(just_past) == 1
    assert format_duration(hours * HOUR if hours else 1500) in just_past[0]
    assert f"'{text}'" in just_past[0]


def test_an_invalid_retention_warns_with_the_default_both_ways(tmp_path):
    root = tmp_path / "t"
    write_deltalake(
        str(root), pa.table({"id": [1]}), configuration={DELETED_FILE_RETENTION: "1 month"}
    )
    log = DeltaLog.open(str(root))
    history = build_history(log, Settings())
    view = retention_view(log, history)
    snap = log.snapshot(0)

    assert view.policy.deleted_files.ms == WEEK and view.policy.problems
    warning = retention_warning(snap, snap, 0, now_ms=WEEK + 1)
    assert "7 days" in warning[0] and "1 month" in warning[0]


# --- table features ------------------------------------------------------------------------------


def test_legacy_versions_imply_their_features():
    assert writer_features(protocol_action(1, 2)) == {"appendOnly", "invariants"}
    assert writer_features(protocol_action(2, 5)) >= {"changeDataFeed", "columnMapping"}
    assert reader_features(protocol_action(2, 5)) == {"columnMapping"}
    assert reader_features(protocol_action(1, 6)) == set()


def test_every_feature_is_readable_writable_or_refused_with_a_reason():
    for feature in FEATURES.values():
        assert (feature.restore is None) != (feature.refusal is None), feature.name
    assert set(RESTORABLE_FEATURES).isdisjoint(REFUSED_FEATURES)
    assert MAX_READER_VERSION == 3


def test_variant_shredding_is_restorable():
    # A RESTORE re-adds files unchanged (no shredded data is written).
    assert "variantShredding-preview" in RESTORABLE_FEATURES


def test_merging_a_legacy_protocol_into_table_features_names_the_implied_features():
    merged = merge_protocols(
        protocol_action(3, 7, ["deletionVectors"], ["deletionVectors"]), protocol_action(2, 5)
    )
    assert set(merged.reader_features) == {"deletionVectors", "columnMapping"}
    assert {"columnMapping", "changeDataFeed", "deletionVectors"} <= set(merged.writer_features)


# --- text forms ----------------------------------------------------------------------------------


def test_version_ranges_are_compact():
    assert version_ranges([3, 4, 5, 9]) == "3..5, 9"
    assert version_ranges([]) == ""


def test_partition_labels_are_hive_style_with_nulls_named():
    assert partition_label({"region": "EU", "day": None}) == "region=EU/day=null"
    assert partition_label([("a", "1")]) == "a=1"
    assert partition_label({}) == "(unpartitioned)"


def test_a_restore_plan_warns_with_the_retention_the_health_page_shows(tmp_path, settings, spark):
    from inspector.restore.plan import plan_restore

    root = tmp_path / "t"
    text = "interval 2 days 12 hours"
    write_deltalake(str(root), pa.table({"id": [1]}), configuration={DELETED_FILE_RETENTION: text})
    write_deltalake(str(root), pa.table({"id": [2]}), mode="overwrite")
    three_days_ago = time.time() - 3 * 86_400
    os.utime(root / "_delta_log" / f"{0:020d}.json", (three_days_ago, three_days_ago))
    table = open_table(str(root), Settings())
    log = table.log

    view = retention_view(log, build_history(log, settings))
    plan = plan_restore(table, 0, settings=settings)

    assert view.policy.deleted_files.ms == 60 * HOUR
    (warning,) = [w for w in plan.warnings if "deleted-file retention" in w]
    assert "2 days 12 hours" in warning and f"'{text}'" in warning
