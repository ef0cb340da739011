"""``blame``: every version that wrote the rows a filter matches, checked against Delta.

Tables are written by Delta in the test, with and without row tracking, through
UPDATE, MERGE, DELETE and a re-insert, with deletion vectors and column mapping. The
answer is compared with reading each version with Delta (``versionAsOf``).
"""

from __future__ import annotations

import json

import pytest

from inspector.cli.main import main
from inspector.log.deltalog import DeltaLog
from inspector.rows.blame import blame_rows
from inspector.rows.blame_records import Method, WriteKind
from inspector.settings import Settings
from tests.conftest import delta_vacuum, one_error_line, run_main


def _write_history(spark, root: str, *, tracking: bool) -> None:
    """v0 create, v1-v2 inserts, v3 UPDATE, v4 MERGE, v5 DELETE, v6 re-insert, v7 other rows."""
    props = "'delta.enableDeletionVectors'='true', 'delta.columnMapping.mode'='name'"
    if tracking:
        props += ", 'delta.enableRowTracking'='true'"
    spark.sql(
        f"CREATE TABLE delta.`{root}` (id BIGINT, name STRING, amount INT) USING delta "
        f"TBLPROPERTIES ({props})"
    )
    spark.sql(
        f"INSERT INTO delta.`{root}` SELECT /*+ COALESCE(1) */ id, concat('n', id), 1 "
        "FROM range(0, 30)"
    )
    spark.sql(
        f"INSERT INTO delta.`{root}` SELECT /*+ COALESCE(1) */ id, concat('n', id), 1 "
        "FROM range(30, 60)"
    )
    spark.sql(f"UPDATE delta.`{root}` SET amount = 2 WHERE id = 42")
    spark.sql(
        f"MERGE INTO delta.`{root}` t USING (SELECT 42L AS id, 'merged' AS name) s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.name = s.name"
    )
    spark.sql(f"DELETE FROM delta.`{root}` WHERE id = 42")
    spark.sql(f"INSERT INTO delta.`{root}` VALUES (42, 'again', 9)")
    spark.sql(f"INSERT INTO delta.`{root}` VALUES (100, 'other', 0)")


@pytest.fixture(scope="module")
def tracked(spark, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("blame") / "tracked")
    _write_history(spark, root, tracking=True)
    return root


@pytest.fixture(scope="module")
def untracked(spark, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("blame") / "untracked")
    _write_history(spark, root, tracking=False)
    return root


def _delta_rows(spark, root: str, version: int, where: str) -> list[dict]:
    df = spark.read.format("delta").option("versionAsOf", version).load(root).where(where)
    return [r.asDict() for r in df.collect()]


def _assert_agrees_with_delta(spark, root: str, blame, where: str) -> None:
    """Each write's after values are the row as Delta reads it at that version, and its
    before values the row at the version before (by row id under row tracking)."""
    for row in blame.rows:
        which = where if row.row_id is None else f"_metadata.row_id = {row.row_id}"
        for w in row.writes:
            if w.after is not None:
                assert dict(w.after) in _delta_rows(spark, root, w.version, which)
            if w.before is not None:
                assert dict(w.before) in _delta_rows(spark, root, w.version - 1, which)
            if w.change is WriteKind.DELETED:
                assert dict(w.before) not in _delta_rows(spark, root, w.version, which)


def test_with_row_tracking_every_write_of_a_row_is_found_and_a_reinsert_is_a_new_row(
    spark, tracked
):
    blame = blame_rows(DeltaLog.open(tracked), 7, "id = 42", settings=Settings(), spark=spark)
    assert blame.method is Method.ROW_TRACKING
    first, second = blame.rows
    assert [(w.version, w.change, w.operation) for w in first.writes] == [
        (2, WriteKind.INSERTED, "WRITE"),
        (3, WriteKind.UPDATED, "UPDATE"),
        (4, WriteKind.UPDATED, "MERGE"),
        (5, WriteKind.DELETED, "DELETE"),
    ]
    assert first.writes[1].before == {"id": 42, "name": "n42", "amount": 1}
    assert first.writes[1].after == {"id": 42, "name": "n42", "amount": 2}
    assert first.writes[2].after == {"id": 42, "name": "merged", "amount": 2}
    assert first.writes[1].row_commit_version == 3
    assert [(w.version, w.change) for w in second.writes] == [(6, WriteKind.INSERTED)]
    assert first.row_id != second.row_id
    ids = {r["row_id"] for r in _tracked_ids(spark, tracked, 4, "id = 42")}
    assert ids == {first.row_id}
    assert 7 not in blame.versions_read  # an insert of other rows: pruned by statistics
    _assert_agrees_with_delta(spark, tracked, blame, "id = 42")


def _tracked_ids(spark, root: str, version: int, where: str) -> list[dict]:
    df = spark.read.format("delta").option("versionAsOf", version).load(root).where(where)
    return [r.asDict() for r in df.select("_metadata.row_id").collect()]


def test_without_row_tracking_rows_are_matched_by_the_filter_alone(spark, untracked):
    blame = blame_rows(DeltaLog.open(untracked), 7, "id = 42", settings=Settings(), spark=spark)
    assert blame.method is Method.PREDICATE
    assert blame.notes  # says that rows are matched by the filter alone
    changes = [[(w.version, w.change) for w in r.writes] for r in blame.rows]
    assert changes == [
        [
            (2, WriteKind.INSERTED),
            (3, WriteKind.UPDATED),
            (4, WriteKind.UPDATED),
            (5, WriteKind.DELETED),
        ],
        [(6, WriteKind.INSERTED)],
    ]
    assert all(r.row_id is None for r in blame.rows)
    _assert_agrees_with_delta(spark, untracked, blame, "id = 42")


def test_row_ids_follow_a_row_after_its_filtered_column_changes(spark, tmp_path):
    root = str(tmp_path / "moved")
    spark.sql(
        f"CREATE TABLE delta.`{root}` (id BIGINT, name STRING) USING delta TBLPROPERTIES "
        "('delta.enableRowTracking'='true', 'delta.enableDeletionVectors'='true')"
    )
    spark.sql(f"INSERT INTO delta.`{root}` VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"UPDATE delta.`{root}` SET id = 20 WHERE id = 2")
    spark.sql(f"UPDATE delta.`{root}` SET name = 'c' WHERE id = 20")
    blame = blame_rows(DeltaLog.open(root), 3, "id = 2", settings=Settings(), spark=spark)
    (row,) = blame.rows
    assert [(w.version, w.change) for w in row.writes] == [
        (1, WriteKind.INSERTED),
        (2, WriteKind.UPDATED),
        (3, WriteKind.UPDATED),
    ]
    assert row.current == {"id": 20, "name": "c"}


def test_blame_json_gives_each_write_its_version_and_operation(spark, tracked, capsys):
    code = main(["blame", tracked, "--where", "id = 42", "--version", "4", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (row,) = out["rows"]
    assert [(w["version"], w["operation"]) for w in row["writes"]] == [
        (2, "WRITE"),
        (3, "UPDATE"),
        (4, "MERGE"),
    ]
    assert row["rowId"] is not None and row["writes"][-1]["timestamp"].endswith("Z")
    assert out["method"] == "row-tracking"


def test_blame_text_names_how_rows_were_found(spark, untracked, capsys):
    assert main(["blame", untracked, "--where", "id = 42"]) == 0
    out = capsys.readouterr().out
    assert "matched by the filter alone" in out and "statistics pruned the rest" in out
    assert "amount: 1 -> 2" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--where", "id ="], "not valid SQL"),
        (["--where", "missing = 1"], "not valid SQL"),
        (["--where", "id = 42", "--version", "50"], "not in this table's log"),
        (["--where", "id >= 0", "--max-rows", "5"], "raise --max-rows"),
    ],
)
def test_bad_input_is_one_line_with_exit_2(spark, tracked, capsys, args, words):
    code, _, err = run_main(capsys, "blame", tracked, *args)
    assert code == 2 and words in one_error_line(err)


def test_log_retention_and_vacuum_cut_the_history_and_say_where(spark, tmp_path):
    root = tmp_path / "cut"
    spark.sql(f"CREATE TABLE delta.`{root}` (id BIGINT) USING delta")
    spark.sql(f"INSERT INTO delta.`{root}` VALUES (1)")
    spark.sql(f"UPDATE delta.`{root}` SET id = 1 WHERE id = 1")
    delta_vacuum(spark, str(root))
    blame = blame_rows(DeltaLog.open(str(root)), 2, "id = 1", settings=Settings(), spark=spark)
    assert [c.version for c in blame.cuts] == [1]
    assert "VACUUM" in blame.cuts[0].reason


def test_versions_before_a_filtered_column_existed_match_no_row(spark, tmp_path):
    root = str(tmp_path / "added")
    spark.sql(f"CREATE TABLE delta.`{root}` (id BIGINT) USING delta")
    spark.sql(f"INSERT INTO delta.`{root}` VALUES (1)")
    spark.sql(f"ALTER TABLE delta.`{root}` ADD COLUMNS (tag STRING)")
    spark.sql(f"INSERT INTO delta.`{root}` VALUES (5, 'x')")
    blame = blame_rows(DeltaLog.open(root), 3, "tag = 'x'", settings=Settings(), spark=spark)
    (row,) = blame.rows
    assert [(w.version, w.change) for w in row.writes] == [(3, WriteKind.INSERTED)]
    assert row.current == {"id": 5, "tag": "x"}
