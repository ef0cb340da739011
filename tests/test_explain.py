"""``explain``: which files a filtered read of a version reads, checked against Delta's planner.

Tables are written by Delta in the test (partitioned, deletion vectors, column mapping)
and taken from the corpus. Delta's planner (``inputFiles()`` of the same filtered read,
data skipping on) is the oracle: the log's kept set is never smaller than Delta's and
equals it where Delta's skipping rules apply.
"""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from inspector.cli.main import main
from inspector.log.deltalog import DeltaLog
from inspector.rows.explain import SKIPPING_CONF, explain_read
from inspector.settings import Settings
from tests.conftest import CORPUS, one_error_line, run_cli, run_main

PARTITIONED = CORPUS / "dat-v0.0.2/multi_partitioned/delta"


@pytest.fixture(scope="module")
def orders(spark, tmp_path_factory):
    """Six files in two partitions, id ranges apart, a deletion vector, names mapped."""
    root = str(tmp_path_factory.mktemp("explain") / "orders")
    spark.conf.set(SKIPPING_CONF, "true")
    spark.sql(
        f"CREATE TABLE delta.`{root}` (id BIGINT, name STRING, p INT, ts TIMESTAMP, amount "
        "DECIMAL(10,2)) USING delta PARTITIONED BY (p) TBLPROPERTIES "
        "('delta.enableDeletionVectors'='true', 'delta.columnMapping.mode'='name')"
    )
    for start, p in ((0, 1), (100, 1), (200, 2), (300, 2), (400, 3)):
        spark.sql(
            f"INSERT INTO delta.`{root}` SELECT /*+ COALESCE(1) */ id, concat('n', id), {p}, "
            "IF(id % 7 = 0, NULL, timestamp'2024-01-01 00:00:00' + make_interval(0,0,0,0,0,0,id)),"
            f" CAST(id AS DECIMAL(10,2)) FROM range({start}, {start + 50})"
        )
    spark.sql(f"DELETE FROM delta.`{root}` WHERE id = 205")  # a deletion vector
    return root


AGREEING = [
    "id = 42",
    "id > 310",
    "id < 120 AND id >= 100",
    "p = 2",
    "p = 2 AND id < 250",
    "p IN (1, 3) AND id IN (5, 410)",
    "name LIKE 'n40%'",
    "NOT (id < 400)",
    "ts > timestamp'2024-01-01 00:05:00'",
    "ts IS NULL",
    "id = 1000",
]


@pytest.mark.parametrize("where", AGREEING)
def test_the_log_keeps_exactly_the_files_delta_plans_to_read(spark, orders, where):
    e = explain_read(DeltaLog.open(orders), 6, where, settings=Settings(), spark=spark)
    assert e.log_keeps_fewer == ()
    assert e.after_stats == e.read, (e.after_stats, e.read)
    assert e.total.files == 5
    assert e.read.files <= e.after_partitions.files <= e.total.files


@pytest.mark.parametrize(
    ("where", "reason"),
    [
        ("upper(name) = 'N42'", "does not compare a column with a value"),
        ("p = 1 OR id = 250", "mixes partition and data columns"),
        ("amount > 300", "decimal"),
    ],
)
def test_parts_the_log_cannot_judge_are_named_and_never_drop_a_file(spark, orders, where, reason):
    e = explain_read(DeltaLog.open(orders), 6, where, settings=Settings(), spark=spark)
    assert e.log_keeps_fewer == ()
    assert e.after_stats.files >= e.read.files
    assert any(reason in u.reason for u in e.unjudged), e.unjudged


def test_partition_pruning_is_counted_before_statistics(spark, orders):
    e = explain_read(
        DeltaLog.open(orders), 6, "p = 2 AND id = 210", settings=Settings(), spark=spark
    )
    assert (e.total.files, e.after_partitions.files, e.after_stats.files) == (5, 2, 1)
    assert e.partition_filters and e.data_filters
    assert e.with_deletion_vectors == 1  # the file that lost id 205
    assert e.page(0, 1)[0].deleted_rows == 1


def test_the_files_read_stay_an_arrow_table_and_only_a_page_becomes_records(spark, orders):
    e = explain_read(DeltaLog.open(orders), 6, "id >= 0", settings=Settings(), spark=spark)
    assert isinstance(e.files, pa.Table) and e.files.num_rows == e.read.files == 5
    listed = e.to_json()["files"]
    assert [f.path for f in e.page(1, 2)] == [f["path"] for f in listed[1:3]]
    assert len(e.page(4, 50)) == 1 and e.page(5, 50) == ()
    assert set(e.page(0, 1)[0].partition_values) == {"p"}  # the logical name, not physical


def test_explain_json_lists_the_files_a_reader_reads(spark, orders, capsys):
    code = main(["explain", orders, "--where", "id >= 440", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["read"]["files"] == len(out["files"]) == 1
    assert out["files"][0]["partitionValues"]
    assert out["keptBy"] == "delta"


def test_explain_on_a_corpus_table_agrees_with_delta(spark):
    log = DeltaLog.open(str(PARTITIONED))
    for where in ("letter = 'a'", "number > 5", "letter = 'b' AND number < 3"):
        e = explain_read(log, log.latest_version, where, settings=Settings(), spark=spark)
        assert e.log_keeps_fewer == ()
        assert e.after_stats == e.read


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--where", "id = = 3"], "not valid SQL"),
        (["--where", "nope = 3"], "not valid SQL"),
        (["--where", "id = 3", "--version", "99"], "not in this table's log"),
    ],
)
def test_bad_filters_and_versions_are_one_line_exit_2(spark, orders, capsys, args, words):
    code, _, err = run_main(capsys, "explain", orders, *args)
    assert code == 2 and words in one_error_line(err)


def test_an_empty_filter_fails_before_spark_starts():
    result = run_cli("explain", PARTITIONED, "--where", " ")
    assert result.returncode == 2
    assert result.stderr.startswith("error: --where is empty.")


def _corpus_filters(log: DeltaLog) -> list[str]:
    """Filters on a table's own values: each column equal to, and above, its first file's
    minimum; each partition column equal to the first file's value."""
    import json as json_

    from inspector.rows.predicate import sql_literal

    snapshot = log.snapshot()
    first = snapshot.files_table.slice(0, 1).to_pylist()
    if not first:
        return []
    stats = json_.loads(first[0]["stats"] or "{}").get("minValues", {})
    kinds = {"integer": int, "long": int, "short": int, "byte": int, "double": float, "string": str}
    wheres = []
    for field in snapshot.schema.fields:
        name, kind = f"`{field.name}`", field.type.simple_string()
        if field.name in snapshot.partition_columns:
            value = dict(first[0]["partitionValues"] or []).get(field.physical_name)
            if value is not None and kind in kinds:
                wheres.append(f"{name} = {sql_literal(kinds[kind](value))}")
            elif value is not None and kind in ("date", "timestamp"):
                wheres.append(f"{name} = {kind.upper()}'{value}'")
        elif field.physical_name in stats and kind in kinds:
            literal = sql_literal(kinds[kind](stats[field.physical_name]))
            wheres += [f"{name} = {literal}", f"{name} > {literal}"]
        elif field.physical_name in stats and kind in ("date", "timestamp"):
            wheres.append(f"{name} >= {kind.upper()}'{stats[field.physical_name]}'")
    return wheres


CORPUS_TABLES = sorted(
    p.parent.relative_to(CORPUS).as_posix()
    for base in ("dat-v0.0.2", "dat-early")
    for p in (CORPUS / base).glob("*/delta/_delta_log")
) + [
    "delta-golden/data-skipping-basic-stats-all-types",
    "delta-golden/data-skipping-basic-stats-all-types-checkpoint",
    "delta-golden/data-skipping-basic-stats-all-types-columnmapping-id",
    "delta-golden/data-skipping-basic-stats-all-types-columnmapping-name",
    "delta-golden/data-skipping-change-stats-collected-across-versions",
    "delta-golden/data-skipping-partition-and-data-column",
    "delta-golden/dv-partitioned-with-checkpoint",
    "delta-golden/dv-with-columnmapping",
    "delta-golden/kernel-timestamp-partition-col-ISO8601",
    "delta-rs/delta-2.2.0-partitioned-types",
    "delta-rs/table-with-dv-small",
]


@pytest.mark.parametrize("table", CORPUS_TABLES)
def test_on_the_corpus_the_log_keeps_what_delta_keeps(spark, table):
    from inspector.delta.errors import UnsupportedFeature

    log = DeltaLog.open(str(CORPUS / table))
    for where in _corpus_filters(log):
        try:
            e = explain_read(log, log.latest_version, where, settings=Settings(), spark=spark)
        except UnsupportedFeature:
            pytest.skip("Delta cannot read this table")
        assert e.log_keeps_fewer == (), where
        assert e.after_stats == e.read, where
