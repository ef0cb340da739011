"""File diff between two versions: what a postmortem sees before any row is read."""

from __future__ import annotations

import itertools
import json
import os

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from inspector.delta.errors import CorruptLog, VersionNotFound
from inspector.diff.filediff import diff_files
from inspector.log.deltalog import DeltaLog
from tests.conftest import add_files


def _rows(ids, part, offset=0.0):
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "p": [part] * len(ids),
            "v": [float(i) + offset for i in ids],
        }
    )


@pytest.fixture
def orders(tmp_path):
    """v0 write (a, b) | v1 append (a, c) | v2 DELETE id=3 | v3 UPDATE id=12 | v4 OPTIMIZE."""
    path = str(tmp_path / "orders")
    write_deltalake(
        path,
        pa.concat_tables([_rows(range(5), "a"), _rows(range(5, 10), "b")]),
        partition_by=["p"],
    )
    write_deltalake(
        path,
        pa.concat_tables([_rows(range(10, 15), "a"), _rows(range(15, 20), "c")]),
        partition_by=["p"],
        mode="append",
    )
    DeltaTable(path).delete("id = 3")
    DeltaTable(path).update(updates={"v": "v + 100"}, predicate="id = 12")
    DeltaTable(path).optimize.compact()
    return path


def _keys(files):
    return {f.key for f in files}


def test_diff_lists_files_only_in_either_version_in_both_directions(orders):
    log = DeltaLog.open(orders)
    snap1, snap4 = log.snapshot(1), log.snapshot(4)

    forward, backward = diff_files(log, 1, 4), diff_files(log, 4, 1)

    assert _keys(forward.only_in_from) == set(snap1.files) - set(snap4.files)
    assert _keys(forward.only_in_to) == set(snap4.files) - set(snap1.files)
    assert (forward.from_version, forward.to_version) == (1, 4)
    assert (backward.from_version, backward.to_version) == (4, 1)
    assert backward.only_in_from == forward.only_in_to
    assert backward.only_in_to == forward.only_in_from


def test_sides_carry_the_totals_of_each_version(orders):
    log = DeltaLog.open(orders)

    diff = diff_files(log, 4, 1)

    assert (diff.from_side.num_files, diff.from_side.num_records) == (3, 19)
    assert (diff.to_side.num_files, diff.to_side.num_records) == (4, 20)
    assert diff.to_side.size_in_bytes == log.snapshot(1).size_in_bytes
    assert diff.from_side.size_in_bytes == log.snapshot(4).size_in_bytes


def test_partition_summary_counts_files_bytes_and_records_per_partition(orders):
    log = DeltaLog.open(orders)

    diff = diff_files(log, 0, 2)  # append touches a and c, delete rewrites one file of a

    by_label = {p.label: p.totals for p in diff.by_partition}
    assert set(by_label) == {"p=a", "p=c"}
    a_files_v0 = [f for f in add_files(log.snapshot(0)) if f.partition_values["p"] == "a"]
    assert by_label["p=a"].files_added == 2 and by_label["p=a"].files_removed == 1
    assert by_label["p=a"].records_added == 4 + 5 and by_label["p=a"].records_removed == 5
    assert by_label["p=a"].bytes_removed == a_files_v0[0].size
    assert by_label["p=c"].files_added == 1 and by_label["p=c"].files_removed == 0
    assert by_label["p=c"].records_added == 5
    assert diff.totals.records_added - diff.totals.records_removed == 19 - 10


def test_commit_summary_shows_what_each_commit_in_between_contributed(orders):
    log = DeltaLog.open(orders)

    commits = diff_files(log, 4, 1).by_commit

    assert [(c.version, c.operation) for c in commits] == [
        (2, "DELETE"),
        (3, "UPDATE"),
        (4, "OPTIMIZE"),
    ]
    delete, update, optimize = (c.totals for c in commits)
    assert (
        delete.files_added,
        delete.files_removed,
        delete.records_added,
        delete.records_removed,
    ) == (1, 1, 4, 5)
    assert (update.records_added, update.records_removed) == (5, 5)
    assert (optimize.files_added, optimize.files_removed) == (1, 2)
    assert optimize.records_added == optimize.records_removed == 9
    assert all(c.timestamp for c in commits)


def test_a_file_added_and_removed_between_the_versions_is_in_neither(tmp_path):
    path = str(tmp_path / "t")
    write_deltalake(path, _rows(range(3), "a"), partition_by=["p"])
    write_deltalake(path, _rows(range(3, 6), "b"), partition_by=["p"], mode="append")
    DeltaTable(path).delete("p = 'b'")  # removes the whole file written at v1
    log = DeltaLog.open(path)

    diff = diff_files(log, 0, 2)

    assert diff.only_in_from == () and diff.only_in_to == ()
    assert diff.by_partition == ()
    assert [c.totals.files_added - c.totals.files_removed for c in diff.by_commit] == [1, -1]


def test_same_version_is_an_empty_diff(orders):
    diff = diff_files(DeltaLog.open(orders), 2, 2)

    assert (diff.only_in_from, diff.only_in_to, diff.by_commit, diff.by_partition) == (
        (),
        (),
        (),
        (),
    )
    assert diff.metadata.is_empty


def test_schema_evolution_shows_in_the_metadata_diff(tmp_path):
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"id": [1, 2]}))
    write_deltalake(path, pa.table({"id": [3], "note": ["x"]}), mode="append", schema_mode="merge")
    log = DeltaLog.open(path)

    forward, backward = diff_files(log, 0, 1), diff_files(log, 1, 0)

    assert [c.name for c in forward.metadata.columns_added] == ["note"]
    assert [c.name for c in backward.metadata.columns_removed] == ["note"]
    assert forward.by_commit[0].changes_metadata


@pytest.mark.parametrize(
    "table",
    [
        "delta-golden/dv-partitioned-with-checkpoint",
        "delta-kernel-rs/cdf-table-with-cdc-and-dvs",
        "delta-rs/table_with_deletion_logs",
    ],
)
def test_file_diff_equals_the_set_difference_of_full_replays(corpus, table):
    log = DeltaLog.open(str(corpus / table))
    versions = [c.version for c in log.commits]
    snapshots = {v: log.snapshot(v) for v in versions}

    for a, b in itertools.product(versions[:: max(1, len(versions) // 8)], versions):
        diff = diff_files(log, a, b)
        assert _keys(diff.only_in_from) == set(snapshots[a].files) - set(snapshots[b].files), (a, b)
        assert _keys(diff.only_in_to) == set(snapshots[b].files) - set(snapshots[a].files), (a, b)
        assert diff.to_side.num_files == snapshots[b].num_files
        assert diff.to_side.num_records == snapshots[b].num_records


def test_a_changed_deletion_vector_shows_the_file_on_both_sides(corpus):
    log = DeltaLog.open(str(corpus / "delta-kernel-rs/table-with-dv-small"))

    diff = diff_files(log, 0, 1)

    assert [f.path for f in diff.only_in_from] == [f.path for f in diff.only_in_to]
    assert diff.only_in_from[0].deletion_vector is None
    assert diff.only_in_to[0].deletion_vector.cardinality == 2
    assert diff.totals.records_removed - diff.totals.records_added == 2


def test_a_missing_commit_in_between_is_a_corrupt_log(orders):
    os.remove(os.path.join(orders, "_delta_log", f"{2:020d}.json"))
    log = DeltaLog.open(orders)

    with pytest.raises(CorruptLog, match="version 2 is missing"):
        diff_files(log, 1, 3)


def test_a_version_outside_the_log_is_not_found(orders):
    with pytest.raises(VersionNotFound, match="versions 0 to 4"):
        diff_files(DeltaLog.open(orders), 1, 9)


def test_markdown_postmortem_tells_the_story_of_the_commits_in_between(orders):
    from inspector.present.report import markdown_report, to_json

    diff = diff_files(DeltaLog.open(orders), 1, 4)

    report = markdown_report(diff, table=orders, max_files=1)

    assert report.startswith("# Postmortem: version 1 → version 4")
    for expected in (
        "| 2 |",
        "DELETE",
        "UPDATE",
        "OPTIMIZE",
        "## Partitions",
        "| p=a |",
        "### Removed (only in the from version): 2",
        "… and 1 more (see the JSON export)",
        "Rows were not compared",
    ):
        assert expected in report
    exported = json.loads(to_json(diff, table=orders))
    assert (exported["from"], exported["to"], len(exported["files"]["removed"])) == (1, 4, 2)
