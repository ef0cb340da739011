"""The table overview (DESCRIBE DETAIL) at the latest version, checked against deltalake."""

from __future__ import annotations

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings
from inspector.table.history import build_history
from inspector.table.overview import describe_detail, table_detail
from tests.conftest import CORPUS


@pytest.mark.parametrize(
    "table",
    [
        "dat-v0.0.2/basic_partitioned/delta",
        "delta-golden/dv-with-columnmapping",
        "delta-kernel-rs/cdf-table-with-cdc-and-dvs",
    ],
)
def test_files_bytes_partitioning_and_protocol_match_deltalake(table):
    path = str(CORPUS / table)
    oracle = DeltaTable(path)
    adds = pa.table(oracle.get_add_actions(flatten=True))

    log = DeltaLog.open(path)
    detail = describe_detail(log, build_history(log, Settings()))

    assert detail.version == oracle.version()
    assert detail.num_files == adds.num_rows
    assert detail.size_in_bytes == sum(adds.column("size_bytes").to_pylist())
    assert list(detail.partition_columns) == oracle.metadata().partition_columns
    assert detail.id == oracle.metadata().id
    protocol = oracle.protocol()
    assert (detail.min_reader_version, detail.min_writer_version) == (
        protocol.min_reader_version,
        protocol.min_writer_version,
    )
    assert set(detail.reader_features) | set(detail.writer_features) == set(
        protocol.reader_features or []
    ) | set(protocol.writer_features or [])


def test_column_mapping_tables_list_physical_names_and_the_log_shape():
    log = DeltaLog.open(str(CORPUS / "delta-golden" / "dv-with-columnmapping"))

    detail = describe_detail(log, build_history(log, Settings()))

    assert detail.column_mapping_mode == "name"
    part = next(c for c in detail.columns if c.name == "part")
    assert part.physical_path[0].startswith("col-") and part.column_id == 1
    assert detail.checkpoint_versions == (10,)
    assert detail.replayed_from == "checkpoint 10 + commits 11..15"
    assert detail.last_modified == build_history(log, Settings())[-1].timestamps.history


def test_state_read_from_does_not_depend_on_what_was_read_before(corpus):
    from inspector.table.overview import state_source

    log = DeltaLog.open(str(corpus / "delta-kernel-java/basic-with-checkpoint"))
    fresh = state_source(log, 13)
    log.snapshot(12)  # a cached snapshot a later replay would start from
    assert log.snapshot(13).replayed_from == "cached version 12 + commit 13"
    assert state_source(log, 13) == fresh == "checkpoint 10 + commits 11..13"
    assert state_source(log, 10) == "checkpoint 10"
    assert state_source(log, 3) == "the empty table + commits 0..3"


def test_a_latest_version_with_only_a_checkpoint_is_last_modified_by_its_history_entry(
    copy_table,
):
    """The history has an entry for a version whose commit file is gone (its checkpoint's
    file time, kept increasing as Delta's history does): the overview's lastModified."""
    root = copy_table("delta-kernel-java/basic-with-checkpoint")
    for version in range(10, 15):
        (root / "_delta_log" / f"{version:020d}.json").unlink()
    log = DeltaLog.open(str(root))
    history = build_history(log, Settings())

    detail, _ = table_detail(log, Settings())

    assert detail.version == history[-1].version == 10
    assert history[-1].problems[0].startswith("Only the checkpoint of this version remains")
    assert detail.last_modified == history[-1].timestamps.history is not None
    assert describe_detail(log, history).last_modified == detail.last_modified
