"""The change data feed (``changes``) against deltalake's ``load_cdf`` on real tables."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from inspector.delta.errors import (
    ExitCode,
    InvalidInput,
    MissingDataFile,
    UnsupportedFeature,
    VersionNotFound,
)
from inspector.delta.jsonvalue import json_value
from inspector.log.deltalog import DeltaLog
from inspector.rows.changefeed import ChangeDataFeedDisabled, build_changes, change_page
from inspector.settings import Settings
from inspector.table.history import build_history
from tests.conftest import CORPUS, run_cli

ALL = 1_000_000
CDF = {"delta.enableChangeDataFeed": "true"}
# Corpus tables with the change data feed that deltalake's load_cdf reads.
CORPUS_TABLES = [
    "delta-kernel-rs/cdf-table",
    "delta-kernel-rs/cdf-table-simple",
    "delta-kernel-rs/cdf-table-non-partitioned",
    "delta-kernel-rs/cdf-table-partitioned",
    "delta-kernel-rs/cdf-table-update-ops",
    "delta-kernel-rs/cdf-table-delete-conditional-two-rows",
    "delta-kernel-rs/cdf-table-delete-conditional-all-rows",
    "delta-kernel-rs/cdf-table-delete-unconditional",
    "delta-kernel-rs/cdf-table-data-change",
    "delta-kernel-rs/cdf-column-mapping-name-mode",
    "delta-kernel-rs/cdf-column-mapping-id-mode",
    "delta-kernel-rs/table-with-cdf",
    "delta-rs/cdf-table-non-partitioned",
    "delta-rs/cdc_ict_table",  # in-commit timestamps
    "delta-rs/simple_table_with_cdc",
    "delta-rs/checkpoint-cdf-table",  # the log starts at a checkpoint (version 3)
    # Deletion vectors (read by deltalake 1.6.6, whose own writer does not write DVs):
    "delta-kernel-rs/cdf-table-with-dv",  # inline and on-disk DVs only, no cdc files
    "delta-kernel-rs/cdf-table-with-cdc-and-dvs",  # DV deletes, cdc updates/merges, OPTIMIZE
]
# Sub-ranges of the DV table: DV deletes then OPTIMIZE (dataChange false), a DELETE with two
# DVs, its OPTIMIZE and a MERGE with cdc files, the last DELETE and the append after it.
DV_RANGES = [(2, 3), (5, 6), (16, 18), (24, 25)]
DV_TABLE = "delta-kernel-rs/cdf-table-with-cdc-and-dvs"
# The first version compared: the feed is off before it (metaData configuration in _delta_log:
# the column-mapping tables enable it at version 1, table-with-cdf sets it to false at 2), or
# the log starts there (checkpoint-cdf-table).
FIRST_ENABLED = {
    "delta-kernel-rs/cdf-column-mapping-name-mode": 1,
    "delta-kernel-rs/cdf-column-mapping-id-mode": 1,
    "delta-kernel-rs/table-with-cdf": 3,
    "delta-rs/checkpoint-cdf-table": 3,
}
DISABLED = {
    "delta-kernel-rs/cdf-column-mapping-name-mode": "0",
    "delta-kernel-rs/cdf-column-mapping-id-mode": "0",
    "delta-kernel-rs/table-with-cdf": "2",
}


def written(path: Path) -> str:
    """A CDF table: create, append, update, delete, merge (versions 0..4)."""
    p = str(path)
    write_deltalake(p, pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]}), configuration=CDF)
    write_deltalake(p, pa.table({"id": [4, 5], "v": ["d", "e"]}), mode="append")
    dt = DeltaTable(p)
    dt.update(updates={"v": "'B'"}, predicate="id = 2")
    dt.delete("id = 3")
    src = pa.table({"id": [1, 9], "v": ["A", "z"]})
    (
        dt.merge(src, "t.id = s.id", source_alias="s", target_alias="t")
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .execute()
    )
    return p


def expected(path: str, start: int, end: int) -> Counter:
    table = pa.table(DeltaTable(path).load_cdf(starting_version=start, ending_version=end))
    table = table.drop_columns(["_commit_timestamp"])
    return Counter(
        tuple(sorted((k, json_value(v)) for k, v in row.items())) for row in table.to_pylist()
    )


def ours(path: str, start: int, end: int, spark) -> Counter:
    feed = build_changes(
        DeltaLog.open(path), start, end, settings=Settings(), limit=ALL, spark=spark
    )
    assert feed.num_rows == len(feed.rows) == sum(feed.counts.values())
    return Counter(
        tuple(sorted((k, json_value(v)) for k, v in row.items() if k != "_commit_timestamp"))
        for row in feed.rows
    )


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> str:
    return written(tmp_path_factory.mktemp("cdf") / "t")


@pytest.mark.parametrize(("start", "end"), [(0, 4), (0, 0), (2, 3), (4, 4), (1, 2)])
def test_written_table_matches_load_cdf(table, start, end, spark):
    assert ours(table, start, end, spark) == expected(table, start, end)


#: Ranges Delta's readChangeFeed refuses, by design: with column mapping, a range across a
#: non-additive schema change (deltalake reads it). One line says to split the range.
DELTA_REFUSES = {"delta-kernel-rs/table-with-cdf": "incompatible data schema"}
#: The last version compared where Delta's feed and delta-rs/delta-kernel-rs differ: the
#: inline deletion vector of version 5 is damaged (it marks row 28,168 of a 10-row file);
#: Delta reads no change from it (and none back at 6), the Rust engines delete value 3.
LAST_AGREED = {"delta-kernel-rs/cdf-table-with-dv": 4}


@pytest.mark.parametrize("relative", CORPUS_TABLES)
def test_corpus_tables_match_load_cdf(relative, spark):
    path = str(CORPUS / relative)
    last = LAST_AGREED.get(relative, DeltaTable(path).version())
    first = FIRST_ENABLED.get(relative, 0)
    if relative in DELTA_REFUSES:
        with pytest.raises(UnsupportedFeature, match=DELTA_REFUSES[relative]) as caught:
            ours(path, first, last, spark)
        assert "split a change range" in caught.value.hint
        return
    found = ours(path, first, last, spark)
    try:
        wanted = expected(path, first, last)
    except Exception as exc:  # deltalake's own limits (e.g. %-encoded paths): ours must still read
        if "dv" in relative:
            raise  # the deletion-vector tables are the point: deltalake 1.6.6 reads them
        pytest.skip(f"deltalake's load_cdf cannot read this table: {str(exc)[:120]}")
    assert found == wanted


@pytest.mark.parametrize(("start", "end"), DV_RANGES)
def test_deletion_vector_ranges_match_load_cdf(start, end, spark):
    path = str(CORPUS / DV_TABLE)
    assert ours(path, start, end, spark) == expected(path, start, end)


def test_deletion_vector_changes_match_delta_kernel_rs(spark):
    """Independent of deltalake: the rows delta-kernel-rs's own test expects (kernel/tests/cdf.rs,
    cdf_with_deletion_vector), where each commit only swaps a deletion vector. Version 5's
    inline vector is damaged (it marks row 28,168 of a 10-row file): delta-kernel-rs deletes
    value 3 there and inserts it back at 6; Delta Lake, whose answer is shown, reads no
    change from either (see LAST_AGREED)."""
    feed = build_changes(
        DeltaLog.open(str(CORPUS / "delta-kernel-rs/cdf-table-with-dv")),
        0,
        6,
        settings=Settings(),
        limit=ALL,
        spark=spark,
    )
    by_version = {
        0: [("insert", v) for v in range(10)],
        1: [("delete", 0), ("delete", 9)],
        2: [("insert", 0), ("insert", 9)],
        3: [("delete", v) for v in (0, 1, 4, 5)],
        4: [("insert", 1), ("insert", 4)],
        5: [("insert", 0), ("insert", 5)],
    }
    wanted = Counter((kind, value, v) for v, rows in by_version.items() for kind, value in rows)
    found = Counter((r["_change_type"], r["value"], r["_commit_version"]) for r in feed.rows)
    assert found == wanted


def _ids(kind: str, version: int, ids) -> list[tuple]:
    return [(i, kind, version) for i in ids]


# The two name-mode column-mapping tables hold the same changes.
NAME_MODE_ROWS = [
    (1, "Alice", 100.0, "delete", 4),
    (2, "Bob", 200.0, "update_preimage", 2),
    (2, "Bob", 250.0, "update_postimage", 2),
    (4, "David", 400.0, "insert", 3),
]

# What delta-kernel-rs's own tests expect (kernel/tests/integration/features/cdf.rs at b14c3fb):
# an oracle independent of deltalake, for the tables whose %-encoded file names or column
# mapping deltalake 1.6.6's load_cdf cannot read. (columns, first version, rows)
KERNEL_EXPECTED = {
    "cdf-table-simple": (
        ("id",),
        0,
        _ids("insert", 0, range(10))
        + _ids("delete", 1, range(10))
        + _ids("insert", 2, range(20, 25)),
    ),
    "cdf-table-update-ops": (  # this fixture's cdc files say update_pre / update_post
        ("id",),
        0,
        _ids("insert", 0, range(10))
        + _ids("update_pre", 1, range(20, 25))
        + _ids("update_post", 2, range(30, 35)),
    ),
    "cdf-table-data-change": (("id",), 0, _ids("insert", 0, range(10))),
    "cdf-table-delete-unconditional": (
        ("id",),
        0,
        _ids("insert", 0, range(10)) + _ids("delete", 1, range(10)),
    ),
    "cdf-table-delete-conditional-all-rows": (
        ("id",),
        0,
        _ids("insert", 0, range(10)) + _ids("delete", 1, range(10)),
    ),
    "cdf-table-delete-conditional-two-rows": (
        ("id",),
        0,
        _ids("insert", 0, range(10)) + _ids("delete", 1, (2, 8)),
    ),
    "cdf-table-partitioned": (
        ("id", "text", "part"),
        0,
        [(i, "old", i % 2, "insert", 0) for i in range(6)]
        + [(3, "old", 1, "delete", 1), (1, "old", 1, "update_preimage", 1)]
        + [(1, "new", 1, "update_postimage", 1)]
        + [(i, "old", 0, "delete", 2) for i in (0, 2, 4)],
    ),
    "cdf-column-mapping-name-mode": (("id", "name", "value"), 1, NAME_MODE_ROWS),
    "cdf-column-mapping-id-mode": (
        ("id", "name", "value"),
        1,
        [
            (2, "Frank", 250.0, "update_preimage", 2),
            (2, "Frank", 275.0, "update_postimage", 2),
            (3, "Grace", 350.0, "delete", 4),
            (4, "Henry", 450.0, "insert", 3),
        ],
    ),
    # Reader 3 / writer 7 with columnMapping and deletionVectors enabled (none in commits).
    "cdf-column-mapping-name-mode-3-7": (("id", "name", "value"), 1, NAME_MODE_ROWS),
}


@pytest.mark.parametrize("name", sorted(KERNEL_EXPECTED))
def test_corpus_tables_match_delta_kernel_rs_expected_rows(name, spark):
    columns, first, rows = KERNEL_EXPECTED[name]
    path = str(CORPUS / "delta-kernel-rs" / name)
    feed = build_changes(
        DeltaLog.open(path), first, DeltaTable(path).version(), settings=Settings(), limit=ALL,
        spark=spark,
    )  # fmt: skip
    keys = (*columns, "_change_type", "_commit_version")
    assert Counter(tuple(r[k] for k in keys) for r in feed.rows) == Counter(rows)


def test_pages_cover_the_feed_once_in_a_stable_order(table, spark):
    log = DeltaLog.open(table)
    whole = build_changes(log, 0, 4, settings=Settings(), limit=ALL, spark=spark)
    first = build_changes(log, 0, 4, settings=Settings(), limit=4, spark=spark)
    pages = [first] + [
        change_page(log, first, offset, settings=Settings(), spark=spark) for offset in (4, 8)
    ]
    assert [len(p.rows) for p in pages] == [4, 4, 3] and [p.offset for p in pages] == [0, 4, 8]
    assert all(p.counts == whole.counts and p.num_rows == 11 for p in pages)
    assert [row for p in pages for row in p.rows] == list(whole.rows)  # no gap, no repeat
    versions = [(r["_commit_version"], r["_change_type"]) for r in whole.rows]
    assert versions[:3] == [(0, "insert")] * 3
    assert versions[5:7] == [(2, "update_preimage"), (2, "update_postimage")]
    assert change_page(log, first, 4, settings=Settings(), spark=spark).rows == pages[1].rows


@pytest.mark.parametrize(("relative", "versions"), sorted(DISABLED.items()))
def test_corpus_versions_without_the_feed_are_named(relative, versions):
    path = str(CORPUS / relative)
    with pytest.raises(ChangeDataFeedDisabled, match=rf"version\(s\) {versions},"):
        build_changes(DeltaLog.open(path), 0, DeltaTable(path).version(), settings=Settings())


def test_counts_per_type_and_version(table, spark):
    feed = build_changes(DeltaLog.open(table), 0, 4, settings=Settings(), limit=2, spark=spark)
    assert len(feed.rows) == 2
    assert feed.counts == {"insert": 6, "delete": 1, "update_preimage": 2, "update_postimage": 2}
    assert feed.per_version[3] == {"delete": 1}
    assert feed.per_version[0] == {"insert": 3}


def test_filter_applies_to_change_columns(table, spark):
    feed = build_changes(
        DeltaLog.open(table),
        0,
        4,
        settings=Settings(),
        where="_change_type = 'delete'",
        spark=spark,
    )
    assert feed.num_rows == 1 and feed.rows[0]["id"] == 3


def test_versions_without_the_feed_are_named(tmp_path):
    p = str(tmp_path / "t")
    write_deltalake(p, pa.table({"id": [1]}))
    write_deltalake(p, pa.table({"id": [2]}), mode="append")
    with pytest.raises(ChangeDataFeedDisabled, match=r"version\(s\) 0\.\.1"):
        build_changes(DeltaLog.open(p), 0, 1, settings=Settings())


def test_out_of_range_and_reversed(table):
    with pytest.raises(VersionNotFound):
        build_changes(DeltaLog.open(table), 0, 9, settings=Settings())
    with pytest.raises(InvalidInput):
        build_changes(DeltaLog.open(table), 3, 1, settings=Settings())


def test_vacuumed_change_files_are_named(tmp_path, spark):
    p = written(tmp_path / "t")
    for f in (Path(p) / "_change_data").iterdir():
        f.unlink()
    with pytest.raises(MissingDataFile, match="_change_data"):
        build_changes(DeltaLog.open(p), 2, 2, settings=Settings(), spark=spark)


def test_cli_json_contract_with_where_limit_and_offset(table, spark):
    out = run_cli(
        "changes", table, "--from", "0", "--to", "4", "--where", "_change_type != 'insert'",
        "--limit", "2", "--offset", "1", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = out.json()
    assert {"from", "to", "counts", "numRows", "rows"} <= set(data)
    assert (data["from"], data["to"], data["numRows"], data["offset"]) == (0, 4, 5, 1)
    assert data["counts"] == {
        "insert": 0,
        "delete": 1,
        "update_preimage": 2,
        "update_postimage": 2,
    }
    # The filtered feed in order: v2 pre, v2 post, v3 delete, v4 pre, v4 post; rows 2 and 3.
    rows = [(r["_commit_version"], r["_change_type"], r["id"]) for r in data["rows"]]
    assert rows == [(2, "update_postimage", 2), (3, "delete", 3)]
    assert data["rows"][0]["_commit_timestamp"].endswith("Z")
    text = run_cli("changes", table, "--from", "3", "--to", "3")
    assert text.returncode == 0 and "1 change (insert 0, delete 1" in text.stdout


def test_cli_timestamps_pick_the_versions_at_those_times(table, spark):
    stamps = [e.timestamp for e in build_history(DeltaLog.open(table), Settings())]
    assert stamps == sorted(set(stamps)), "the fixture's commits must have distinct times"
    out = run_cli(
        "changes", table, "--from-timestamp", stamps[1].isoformat(),
        "--to-timestamp", stamps[3].isoformat(), "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert (out.json()["from"], out.json()["to"], out.json()["numRows"]) == (1, 3, 5)
    early = run_cli("changes", table, "--from-timestamp", "1999-01-01")
    assert early.returncode == ExitCode.BAD_INPUT and "1999" in early.stderr


def test_cli_errors_name_what_is_wrong(table, tmp_path):
    p = str(tmp_path / "plain")
    write_deltalake(p, pa.table({"id": [1]}))
    DeltaTable(p).alter.set_table_properties(CDF)
    write_deltalake(p, pa.table({"id": [2]}), mode="append")
    failed = run_cli("changes", p, "--from", "0")  # the feed is on from version 1 only
    assert failed.returncode == ExitCode.BAD_INPUT and "version(s) 0," in failed.stderr
    beyond = run_cli("changes", table, "--from", "3", "--to", "9")
    assert beyond.returncode == ExitCode.BAD_INPUT and "9" in beyond.stderr
    negative = run_cli("changes", table, "--from", "3", "--offset", "-1")
    assert negative.returncode == ExitCode.BAD_INPUT and "--offset" in negative.stderr


def test_cli_vacuumed_change_files_are_a_damaged_table(tmp_path, spark):
    p = written(tmp_path / "t")
    for f in (Path(p) / "_change_data").iterdir():
        f.unlink()
    out = run_cli("changes", p, "--from", "2", "--to", "2")
    assert out.returncode == ExitCode.DAMAGED_TABLE and "_change_data" in out.stderr


def test_a_column_name_with_a_backtick_is_read_and_ordered(tmp_path, spark):
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"id": [2, 1], "a`b": ["x", "y"]}), configuration=CDF)
    write_deltalake(path, pa.table({"id": [3], "a`b": ["z"]}), mode="append")
    feed = build_changes(DeltaLog.open(path), 0, 1, settings=Settings(), spark=spark)
    assert [(r["id"], r["a`b"]) for r in feed.rows] == [(1, "y"), (2, "x"), (3, "z")]
