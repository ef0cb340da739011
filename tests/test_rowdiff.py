"""Row diff: the rows only in one version, exactly, reading only the files that changed.

The oracle is brute force and independent of the inspector: deltalake (delta-rs)
reads both FULL versions and ``collections.Counter`` takes their multiset difference.
"""

from __future__ import annotations

import threading
from collections import Counter
from datetime import UTC, datetime

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake
from deltalake.query import QueryBuilder

from inspector.delta.errors import InvalidInput
from inspector.log.deltalog import DeltaLog
from inspector.rows.rowdiff import diff_rows
from inspector.settings import Settings

pytestmark = pytest.mark.spark
ALL = 10_000  # a sample page larger than any test table: samples then hold every changed row


def _full_version(path: str, version: int) -> list[dict]:
    """Every row of a version, read by deltalake (DataFusion applies deletion vectors)."""
    table = DeltaTable(path, version=version)
    return pa.table(QueryBuilder().register("t", table).execute("select * from t")).to_pylist()


def _normal(value):
    """A hashable, comparable value: maps (dicts, or Arrow's lists of pairs) and structs as sorted pairs."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    if isinstance(value, dict):
        return tuple(sorted((k, _normal(v)) for k, v in value.items()))
    if isinstance(value, list) and all(isinstance(v, tuple) and len(v) == 2 for v in value):
        return _normal(dict(value))
    if isinstance(value, list):
        return tuple(_normal(v) for v in value)
    return value


def _bag(rows: list[dict], columns: set[str]) -> Counter:
    """A multiset of rows; a column a row lacks compares as null."""
    return Counter(tuple((c, _normal(r.get(c))) for c in sorted(columns)) for r in rows)


def brute_force(path: str, from_version: int, to_version: int) -> tuple[Counter, Counter]:
    """(rows only in ``to``, rows only in ``from``) from the two full versions."""
    before, after = _full_version(path, from_version), _full_version(path, to_version)
    columns = {c for r in before + after for c in r}
    return _bag(after, columns) - _bag(before, columns), _bag(before, columns) - _bag(
        after, columns
    )


def assert_matches_brute_force(path: str, from_version: int, to_version: int, spark):
    added, removed = brute_force(path, from_version, to_version)

    diff = diff_rows(
        DeltaLog.open(path), from_version, to_version, limit=ALL, spark=spark, settings=Settings()
    )

    columns = set(diff.columns)
    assert (diff.added, diff.removed) == (sum(added.values()), sum(removed.values()))
    assert _bag(list(diff.samples.added), columns) == added
    assert _bag(list(diff.samples.removed), columns) == removed
    return diff


def _people(ids, city="Oslo", score=1.0):
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "city": [city] * len(ids),
            "score": [float(score)] * len(ids),
        }
    )


@pytest.fixture
def rewritten(tmp_path):
    """v0..v2 appends (one with a duplicate row) | v3 DELETE | v4 UPDATE | v5 MERGE | v6 OPTIMIZE."""
    path = str(tmp_path / "people")
    write_deltalake(path, _people(range(6)))
    write_deltalake(path, _people(range(6, 12), "Bergen"), mode="append")
    write_deltalake(path, _people([12, 12, 13], "Tromsø"), mode="append")
    DeltaTable(path).delete("id in (1, 7)")
    DeltaTable(path).update(updates={"score": "score + 10"}, predicate="id in (2, 8)")
    source = pa.table(
        {"id": pa.array([3, 20], pa.int64()), "city": ["Oslo", "Bodø"], "score": [5.0, 6.0]}
    )
    (
        DeltaTable(path)
        .merge(source, "t.id = s.id", source_alias="s", target_alias="t")
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .execute()
    )
    DeltaTable(path).optimize.compact()
    return path


def test_optimize_changes_files_but_no_rows(rewritten, spark):
    diff = assert_matches_brute_force(rewritten, 5, 6, spark)

    assert diff.files_read > 1
    assert (diff.added, diff.removed) == (0, 0)


@pytest.mark.parametrize("from_version,to_version", [(2, 3), (3, 4), (4, 5), (5, 0)])
def test_copy_on_write_rewrites_show_only_the_rows_that_changed(
    rewritten, spark, from_version, to_version
):
    assert_matches_brute_force(rewritten, from_version, to_version, spark)


def test_a_key_turns_updates_into_changed_keys_with_before_and_after(rewritten, spark):
    diff = diff_rows(
        DeltaLog.open(rewritten), 2, 6, key=["id"], limit=ALL, spark=spark, settings=Settings()
    )

    assert (diff.added, diff.removed, diff.changed) == (1, 2, 3)
    assert [r["id"] for r in diff.samples.added] == [20]
    assert sorted(r["id"] for r in diff.samples.removed) == [1, 7]
    changed = {
        c.key["id"]: {v.key: (v.before, v.after) for v in c.changes} for c in diff.samples.changed
    }
    assert changed == {
        2: {"score": (1.0, 11.0)},
        3: {"score": (1.0, 5.0)},
        8: {"score": (1.0, 11.0)},
    }


def test_duplicate_rows_count_and_a_duplicate_key_is_refused(rewritten, spark):
    log = DeltaLog.open(rewritten)

    plain = diff_rows(log, 1, 2, limit=ALL, spark=spark, settings=Settings())
    assert plain.added == 3 and Counter(r["id"] for r in plain.samples.added) == {12: 2, 13: 1}

    with pytest.raises(InvalidInput, match=r"id=12 \(2 rows in version 2\)"):
        diff_rows(log, 1, 2, key=["id"], spark=spark, settings=Settings())


def test_samples_are_capped_and_paged(rewritten, spark):
    log = DeltaLog.open(rewritten)
    every = diff_rows(log, 0, 2, limit=ALL, spark=spark, settings=Settings()).samples.added

    pages = [
        diff_rows(log, 0, 2, offset=offset, limit=4, spark=spark, settings=Settings()).samples.added
        for offset in (0, 4, 8)
    ]

    assert [len(p) for p in pages] == [4, 4, 1]
    assert [row for page in pages for row in page] == list(every)


def test_schema_evolution_compares_a_missing_column_as_null(tmp_path, spark):
    path = str(tmp_path / "evolving")
    write_deltalake(path, _people(range(4)))
    more = _people([4, 5]).append_column("note", pa.array(["new", None]))
    write_deltalake(path, more, mode="append", schema_mode="merge")
    DeltaTable(path).update(updates={"note": "'fixed'"}, predicate="id in (0, 4)")

    forward = assert_matches_brute_force(path, 0, 2, spark)
    assert_matches_brute_force(path, 2, 0, spark)
    assert forward.columns == ("id", "city", "score", "note")
    assert {r["id"]: r["note"] for r in forward.samples.removed} == {0: None}


def test_partitioned_table(tmp_path, spark):
    path = str(tmp_path / "partitioned")
    write_deltalake(
        path,
        _people(range(6)).append_column("region", pa.array(["eu", "us"] * 3)),
        partition_by=["region"],
    )
    write_deltalake(
        path,
        _people([6, 7], "Rome").append_column("region", pa.array(["eu", "apac"])),
        partition_by=["region"],
        mode="append",
    )
    DeltaTable(path).delete("region = 'us' and id = 3")
    DeltaTable(path).update(updates={"city": "'Paris'"}, predicate="region = 'eu' and id = 0")

    diff = assert_matches_brute_force(path, 3, 0, spark)
    assert {r["region"] for r in diff.samples.removed} == {"eu", "apac"}


def test_maps_compare_regardless_of_entry_order_and_structs_compare_by_field(tmp_path, spark):
    path = str(tmp_path / "nested")
    tags = pa.array(
        [[("a", "1"), ("b", "2")], [("c", "3")], None], pa.map_(pa.string(), pa.string())
    )
    address = pa.array(
        [{"city": "Oslo", "zip": 150}, {"city": "Rome", "zip": None}, None],
        pa.struct([("city", pa.string()), ("zip", pa.int32())]),
    )
    write_deltalake(
        path, pa.table({"id": pa.array([1, 2, 3], pa.int64()), "tags": tags, "address": address})
    )
    DeltaTable(path).delete("id = 2")

    diff = assert_matches_brute_force(path, 0, 1, spark)

    assert diff.samples.removed == (
        {"id": 2, "tags": {"c": "3"}, "address": {"city": "Rome", "zip": None}},
    )


@pytest.mark.parametrize(
    "table,from_version,to_version",
    [
        ("delta-kernel-rs/table-with-dv-small", 0, 1),
        ("delta-golden/dv-partitioned-with-checkpoint", 3, 12),
        ("delta-kernel-rs/cdf-table-with-cdc-and-dvs", 25, 4),
    ],
)
def test_deletion_vectors_leave_exactly_the_deleted_rows(
    corpus, spark, table, from_version, to_version
):
    path = str(corpus / table)
    diff = assert_matches_brute_force(path, from_version, to_version, spark)
    assert diff.added + diff.removed > 0


def test_a_renamed_column_is_one_column_matched_by_its_column_mapping_id(corpus, spark):
    log = DeltaLog.open(
        str(corpus / "delta-rs/table_with_partitioning_mapping")
    )  # v3: RENAME id -> newid

    forward, backward = (
        diff_rows(log, 2, 4, spark=spark, settings=Settings()),
        diff_rows(log, 4, 2, spark=spark, settings=Settings()),
    )

    assert forward.columns == ("newid", "description") and backward.columns == ("id", "description")
    assert forward.samples.added == ({"newid": 2, "description": "Additional data"},)
    assert backward.samples.removed == ({"id": 2, "description": "Additional data"},)
    assert (forward.removed, backward.added) == (0, 0)


def test_a_changed_deletion_vector_reads_the_same_file_on_both_sides(corpus, spark):
    diff = diff_rows(
        DeltaLog.open(str(corpus / "delta-kernel-rs/table-with-dv-small")),
        0,
        1,
        limit=ALL,
        spark=spark,
        settings=Settings(),
    )

    assert diff.files_read == 2 and (diff.added, diff.removed) == (0, 2)


def test_an_unknown_key_column_is_refused_before_reading(rewritten):
    with pytest.raises(InvalidInput, match="nope"):
        diff_rows(DeltaLog.open(rewritten), 0, 6, key=["nope"], settings=Settings())


def test_versions_without_file_changes_need_no_spark(tmp_path):
    path = str(tmp_path / "props")
    write_deltalake(path, _people(range(3)))
    DeltaTable(path).alter.set_table_properties({"delta.appendOnly": "false"})

    diff = diff_rows(DeltaLog.open(path), 0, 1, key=["id"], settings=Settings())

    assert (diff.added, diff.removed, diff.changed, diff.files_read) == (0, 0, 0, 0)


def test_rows_are_read_from_a_thread_that_did_not_start_spark(tmp_path, spark):
    """An app page runs in a thread of its own; Delta's scan of chosen files reads that
    thread's active session (DELTA_SPARK_SESSION_NOT_SET when it has none)."""
    from inspector.demo import write_demo_table

    root = write_demo_table(str(tmp_path / "orders"))  # has checkpoints, as the journey's
    box: dict[str, object] = {}

    def compare() -> None:
        try:
            box["diff"] = diff_rows(
                DeltaLog.open(root), 11, 12, key=["order_id"], spark=spark, settings=Settings()
            )
        except Exception as exc:  # reported below, in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=compare)
    thread.start()
    thread.join()

    assert "error" not in box, box.get("error")
    diff = box["diff"]
    assert (diff.added, diff.removed, diff.changed) == (0, 2, 0)
