"""The change data feed (``changes``) against deltalake's ``load_cdf`` on real tables."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from inspector.delta.errors import ExitCode, InvalidInput, MissingDataFile, VersionNotFound
from inspector.delta.jsonvalue import json_value
from inspector.log.deltalog import DeltaLog
from inspector.rows.changes import ChangeDataFeedDisabled, build_changes
from inspector.settings import Settings
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
]
# The feed is off at some versions of these tables (metaData configuration in _delta_log):
# the column-mapping tables enable it at version 1, table-with-cdf sets it to false at 2.
FIRST_ENABLED = {
    "delta-kernel-rs/cdf-column-mapping-name-mode": 1,
    "delta-kernel-rs/cdf-column-mapping-id-mode": 1,
    "delta-kernel-rs/table-with-cdf": 3,
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


@pytest.mark.parametrize("relative", CORPUS_TABLES)
def test_corpus_tables_match_load_cdf(relative, spark):
    path = str(CORPUS / relative)
    last = DeltaTable(path).version()
    first = FIRST_ENABLED.get(relative, 0)
    found = ours(path, first, last, spark)
    try:
        wanted = expected(path, first, last)
    except Exception as exc:  # deltalake's own limits (e.g. %-encoded paths): ours must still read
        pytest.skip(f"deltalake's load_cdf cannot read this table: {str(exc)[:120]}")
    assert found == wanted


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
    with pytest.raises(ChangeDataFeedDisabled, match=r"version\(s\) 0-1"):
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


def test_cli_json_and_errors(table, tmp_path, spark):
    out = run_cli("changes", table, "--from", "3", "--to", "3", "--json")
    assert out.returncode == 0, out.stderr
    assert out.json()["from"] == 3 and out.json()["numRows"] == 1
    row = out.json()["rows"][0]
    assert row["_change_type"] == "delete" and row["_commit_version"] == 3
    assert row["_commit_timestamp"].endswith("Z")
    p = str(tmp_path / "plain")
    write_deltalake(p, pa.table({"id": [1]}))
    failed = run_cli("changes", p, "--from", "0")
    assert failed.returncode == ExitCode.BAD_INPUT and "version(s) 0" in failed.stderr
