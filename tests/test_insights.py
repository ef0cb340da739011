"""``insights``: layout figures from the log equal those deltalake computes independently."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pytest
from conftest import CORPUS, run_cli
from deltalake import DeltaTable, write_deltalake

from inspector.delta import properties
from inspector.delta.schema import parse_schema

TABLES = [
    "delta-golden/dv-partitioned-with-checkpoint",  # partitioned, deletion vectors, checkpoint
    "dat-v0.0.2/multi_partitioned/delta",  # several partition columns, removes
    "delta-kernel-java/basic-dv-no-checkpoint",  # deletion vectors, unpartitioned
    "delta-kernel-java/basic-with-checkpoint",  # unpartitioned, 15 versions
    "delta-golden/dv-with-columnmapping",  # partitioned by a mapped column, deletion vectors
    "delta-rs/table_with_partitioning_mapping",  # column mapping on a partition column
]


def _expected(root: Path, target: int = 128 * 2**20) -> dict[str, dict[str, int]]:
    """Per-partition figures from deltalake's add actions and deletion vectors."""
    table = DeltaTable(str(root))
    adds = pa.table(table.get_add_actions(flatten=True)).to_pylist()
    parts = table.metadata().partition_columns
    deleted: dict[str, int] = {}
    for row in pa.table(table.deletion_vectors()).to_pylist():
        deleted[row["filepath"].rsplit("/", 1)[-1]] = row["selection_vector"].count(False)
    found: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for add in adds:
        key = "/".join(f"{c}={_text(add[f'partition.{c}'])}" for c in parts)
        figures = found[key]
        figures["files"] += 1
        figures["bytes"] += add["size_bytes"]
        figures["records"] += add["num_records"]
        dv_rows = deleted.get(add["path"].rsplit("/", 1)[-1], 0)
        figures["rows"] += add["num_records"] - dv_rows  # deleted rows are no rows
        figures["smallFiles"] += add["size_bytes"] < target
        figures["dvDeletedRows"] += dv_rows
    return {k: dict(v) for k, v in found.items()}


def _text(value: object) -> str:
    """A partition value as the log writes it (deltalake types dates and binary)."""
    if value is None:
        return "null"
    return value.decode() if isinstance(value, bytes) else str(value)


def _actual(root: Path) -> tuple[dict, dict[str, dict[str, int]]]:
    result = run_cli("insights", root, "--json")
    assert result.returncode == 0, result.stderr
    record = result.json()
    names = ("files", "bytes", "rows", "records", "smallFiles", "dvDeletedRows")
    by_partition = {
        "/".join(f"{k}={_text(v)}" for k, v in p["values"].items()): {n: p[n] for n in names}
        for p in record["partitions"]
    }
    return record, by_partition


@pytest.mark.parametrize("name", TABLES)
def test_insights_match_deltalake_on_corpus_tables(name):
    root = CORPUS / name
    record, actual = _actual(root)

    expected = _expected(root)
    assert actual == expected
    assert record["files"] == sum(p["files"] for p in expected.values())
    assert sum(b["files"] for b in record["sizeHistogram"]) == record["files"]
    assert record["filesOverVersions"][-1] == {
        "version": record["version"],
        "files": record["files"],
    }


def test_deletion_vectors_are_counted_per_partition_and_subtracted_from_the_rows():
    root = CORPUS / "delta-golden/dv-partitioned-with-checkpoint"
    record, actual = _actual(root)

    assert record["dvDeletedRows"] == 2
    assert record["rows"] == record["records"] - 2
    detail = run_cli("detail", root, "--json").json()
    assert record["rows"] == detail["numRecords"]  # the Overview's rows at the version
    assert {k for k, v in actual.items() if v["dvDeletedRows"]} == {"part=6", "part=8"}


def _skewed(tmp_path: Path) -> Path:
    root = tmp_path / "skewed"
    for region, count, batches in (("big", 2000, 6), ("mid", 200, 2), ("tiny", 10, 1)):
        for _ in range(batches):
            data = pa.table({"region": [region] * count, "n": list(range(count))})
            write_deltalake(str(root), data, partition_by=["region"], mode="append")
    return root


def test_generated_skewed_table(tmp_path):
    root = _skewed(tmp_path)
    record, actual = _actual(root)

    assert actual == _expected(root)
    assert [p["partition"] for p in record["partitions"]] == [
        "region=big",
        "region=mid",
        "region=tiny",
    ]
    big, mid = record["partitions"][0], record["partitions"][1]
    assert big["files"] == 6 and big["rows"] == 12000
    assert record["skew"] == pytest.approx(big["bytes"] / mid["bytes"])
    # Every file is small: OPTIMIZE compacts partitions with two or more into one file each.
    assert big["compactFiles"] == 6 and big["filesAfterOptimize"] == 1
    assert record["partitions"][2]["compactFiles"] == 0
    assert record["optimize"]["filesAfter"] == 2
    assert [p["files"] for p in record["filesOverVersions"]] == list(range(1, 10))
    assert record["stats"]["share"] == 1.0 and "n" in record["stats"]["observedColumns"]


def test_target_file_size_from_the_table(tmp_path):
    root = tmp_path / "target"
    data = pa.table({"k": ["a"] * 50, "n": list(range(50))})
    for _ in range(3):
        write_deltalake(
            str(root),
            data,
            partition_by=["k"],
            mode="append",
            configuration={properties.TARGET_FILE_SIZE: "1000"},
        )
    record, actual = _actual(root)

    assert record["targetFileSize"] == 1000 and record["targetFileSizeFromTable"]
    assert actual == _expected(root, target=1000)
    part = record["partitions"][0]
    assert part["filesAfterOptimize"] == math.ceil(part["compactBytes"] / 1000)


def test_text_output_and_a_version(tmp_path):
    root = _skewed(tmp_path)
    result = run_cli("insights", root, "--version", "0")

    assert result.returncode == 0, result.stderr
    assert "at version 0" in result.stdout and "region=big" in result.stdout


def test_property_readers():
    assert properties.target_file_size({}).bytes == 128 * 2**20
    assert properties.target_file_size({properties.TARGET_FILE_SIZE: "64mb"}).bytes == 64 * 2**20
    bad = properties.target_file_size({properties.TARGET_FILE_SIZE: "big"})
    assert bad.bytes == 128 * 2**20 and bad.problem
    policy = properties.stats_columns_policy({properties.DATA_SKIPPING_STATS_COLUMNS: "a, `b`"})
    assert policy.columns == ("a", "b")
    assert properties.stats_columns_policy({}).num_indexed_cols == 32


def test_indexed_leaves_count_struct_fields_one_by_one_and_an_array_as_one_leaf():
    # Delta's StatisticsCollection: the first N leaves of the data columns, partitions skipped
    schema = parse_schema(
        '{"type":"struct","fields":['
        '{"name":"p","type":"string","nullable":true,"metadata":{}},'
        '{"name":"s","type":{"type":"struct","fields":['
        '{"name":"x","type":"long","nullable":true,"metadata":{}},'
        '{"name":"y","type":"long","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},'
        '{"name":"a","type":{"type":"array","elementType":{"type":"struct","fields":['
        '{"name":"z","type":"long","nullable":true,"metadata":{}}]},"containsNull":true},'
        '"nullable":true,"metadata":{}},'
        '{"name":"n","type":"long","nullable":true,"metadata":{}}]}'
    )
    leaves = ("s", "x"), ("s", "y"), ("a",), ("n",)
    policy = properties.stats_columns_policy
    assert policy({}).indexed_leaves(schema, ["p"]) == leaves
    three = {properties.DATA_SKIPPING_NUM_INDEXED_COLS: "3"}
    assert policy(three).indexed_leaves(schema, ["p"]) == leaves[:3]
    every = {properties.DATA_SKIPPING_NUM_INDEXED_COLS: "-1"}
    assert policy(every).indexed_leaves(schema, []) == (("p",), *leaves)
    listed = {properties.DATA_SKIPPING_STATS_COLUMNS: "n, s.y"}
    assert policy(listed).indexed_leaves(schema, ["p"]) == (("n",), ("s", "y"))


def test_expected_statistics_columns_are_those_delta_wrote_for_nested_and_array_columns():
    # Spark's writer kept statistics for the array of structs as one leaf, none inside it
    result = run_cli("insights", CORPUS / "delta-rs/spark-variant-checkpoint", "--json")
    assert result.returncode == 0, result.stderr
    stats = result.json()["stats"]
    assert stats["expectedColumns"] == stats["observedColumns"]
    assert "array_of_struct_of_variants" in stats["expectedColumns"]
