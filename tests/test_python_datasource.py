"""Specification: the Python data source returns exactly the rows of the native read.

Spark reads a table's files through our Python data source when it cannot read them
itself (object storage without Hadoop's connector). Its rows must equal the native
path's, so here the same local tables are read both ways: partitions (with nulls and
escaped characters), deletion vectors, column mapping in name and id mode, type
widening, variant, INT96 and millisecond timestamps, schema changes, and the demo table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.delta.errors import MissingDataFile
from inspector.demo import write_demo_table
from inspector.log.deltalog import DeltaLog
from inspector.rows.preview import build_preview
from inspector.rows.reader import count_rows, read_files, read_snapshot
from inspector.rows.readpath import READ_PATH_CONF, ReadPath, choose_read_path
from inspector.settings import Settings
from tests.conftest import CORPUS

TABLES = [
    "dat-v0.0.2/multi_partitioned/delta",
    "dat-v0.0.2/nested_types/delta",
    "dat-v0.0.2/all_primitive_types/delta",
    "dat-v0.0.2/with_schema_change/delta",
    "delta-kernel-rs-golden/dv-partitioned-with-checkpoint/delta",
    "delta-kernel-rs-golden/dv-with-columnmapping/delta",
    "delta-kernel-rs-golden/log-replay-dv-key-cases/delta",
    "delta-kernel-rs-golden/table-with-columnmapping-mode-id/delta",
    "delta-kernel-rs-golden/table-with-columnmapping-mode-name/delta",
    "delta-kernel-rs-golden/data-reader-partition-values/delta",
    "delta-kernel-rs-golden/data-reader-map/delta",
    "delta-kernel-rs-golden/kernel-timestamp-int96/delta",
    "delta-kernel-rs-golden/kernel-timestamp-timestamp_millis/delta",
    "delta-kernel-rs-golden/parquet-all-types/delta",
    "delta-golden/type-widening-nested",
    "delta-kernel-rs/unshredded-variant",
]


@pytest.fixture
def read_path(spark):
    """Set the session's read path for one test; restored afterwards."""
    before = spark.conf.get(READ_PATH_CONF, "auto")

    def use(value: str) -> None:
        spark.conf.set(READ_PATH_CONF, value)

    yield use
    spark.conf.set(READ_PATH_CONF, before)


def rows(df) -> list[str]:
    """Rows as sorted JSON text (variant as text: Arrow has no variant type)."""
    from inspector.rows.preview import _displayable

    return sorted(json.dumps(r, default=str, sort_keys=True) for r in _displayable(df).collect())


def both_ways(spark, read_path, read):
    read_path("native")
    native = read()
    read_path("python")
    return native, read()


@pytest.mark.spark
@pytest.mark.parametrize("table", TABLES)
def test_rows_and_counts_equal_the_native_read(spark, read_path, table):
    snapshot = DeltaLog.open(str(CORPUS / table)).snapshot()
    native, python = both_ways(
        spark,
        read_path,
        lambda: (rows(read_snapshot(snapshot, spark=spark)), count_rows(snapshot, spark=spark)),
    )
    assert python == native
    assert python[1] == len(python[0])


@pytest.mark.spark
def test_every_version_of_the_demo_table_reads_the_same(spark, read_path, tmp_path):
    log = DeltaLog.open(write_demo_table(str(tmp_path / "demo")))
    for version in range(log.latest_version + 1):
        snapshot = log.snapshot(version)
        native, python = both_ways(
            spark, read_path, lambda s=snapshot: rows(read_snapshot(s, spark=spark))
        )
        assert python == native, f"version {version}"


@pytest.mark.spark
def test_files_of_an_older_version_read_the_same(spark, read_path):
    """What a row diff reads: some add actions, with the newest snapshot's schema."""
    log = DeltaLog.open(str(CORPUS / "delta-kernel-rs-golden/dv-with-columnmapping/delta"))
    old = log.snapshot(1).add_files
    native, python = both_ways(
        spark, read_path, lambda: rows(read_files(log.snapshot(), old, spark=spark))
    )
    assert python == native and python


@pytest.mark.spark
def test_the_preview_says_which_path_read_the_rows(spark, read_path):
    log = DeltaLog.open(str(CORPUS / "dat-v0.0.2/basic_partitioned/delta"))
    read_path("auto")
    assert choose_read_path(spark, log.snapshot()) is ReadPath.DELTA
    assert build_preview(log, 1, settings=Settings(), spark=spark).read_path == "delta"
    read_path("native")
    assert build_preview(log, 1, settings=Settings(), spark=spark).read_path == "native"
    read_path("python")
    preview = build_preview(log, 1, settings=Settings(), spark=spark)
    assert preview.read_path == "python-data-source"


@pytest.mark.spark
def test_show_reports_the_read_path_in_text_and_json(spark, capsys, monkeypatch):
    table = str(CORPUS / "dat-v0.0.2/basic_partitioned/delta")
    monkeypatch.setenv("DELTA_INSPECTOR_SPARK_READ_PATH", "python")
    try:
        assert main(["show", table, "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown["readPath"] == "python-data-source" and shown["numRows"] == 6
        monkeypatch.setenv("DELTA_INSPECTOR_SPARK_READ_PATH", "native")
        assert main(["show", table]) == 0
        assert "read path: native (Spark's Parquet reader on local files)" in (
            capsys.readouterr().out
        )
    finally:
        spark.conf.set(READ_PATH_CONF, "auto")


@pytest.mark.spark
def test_a_damaged_data_file_is_named_not_a_traceback(spark, read_path, copy_table):
    root = copy_table("dat-v0.0.2/basic_append/delta")
    log = DeltaLog.open(str(root))
    damaged = Path(log.snapshot().data_path(log.snapshot().add_files[0]))
    data = damaged.read_bytes()
    damaged.write_bytes(data[:-4] + b"XXXX")  # same size, no Parquet magic at the end
    read_path("python")
    with pytest.raises(MissingDataFile, match="could not read .*" + damaged.name):
        build_preview(log, log.latest_version, settings=Settings(), spark=spark)


@pytest.mark.spark  # show checks the schema with pyspark's types before Spark starts
def test_a_bad_read_path_setting_is_refused_with_the_choices(capsys, monkeypatch):
    monkeypatch.setenv("DELTA_INSPECTOR_SPARK_READ_PATH", "fastest")
    code = main(["show", str(CORPUS / "dat-v0.0.2/basic_append/delta"), "--json"])
    assert code == 2
    assert "auto, native, python" in json.loads(capsys.readouterr().out)["error"]["message"]


@pytest.mark.spark  # imports pyspark's data source API (no JVM)
def test_files_are_grouped_into_partitions_as_spark_packs_splits():
    from inspector.rows.datasource import FileTask, group_tasks

    small = [FileTask(path=f"f{i}", size=1000) for i in range(100)]
    assert len(group_tasks(small, parallelism=4)) == 4
    big = [FileTask(path=f"b{i}", size=100 * 2**20) for i in range(5)]
    groups = group_tasks(big, parallelism=2)
    assert len(groups) == 5 and sorted(t.path for g in groups for t in g) == [
        f"b{i}" for i in range(5)
    ]
    assert group_tasks([], parallelism=8) == ()


@pytest.mark.spark  # imports pyspark's data source API (no JVM)
def test_grouping_keeps_every_file_exactly_once():
    from inspector.rows.datasource import FileTask, group_tasks

    tasks = [FileTask(path=str(i), size=(i * 7919) % 50_000_000) for i in range(300)]
    groups = group_tasks(tasks, parallelism=3)
    assert sorted(int(t.path) for g in groups for t in g) == list(range(300))


S3_TABLES = [
    "delta-kernel-rs-golden/dv-partitioned-with-checkpoint/delta",
    "delta-kernel-rs-golden/dv-with-columnmapping/delta",
    "delta-kernel-rs-golden/table-with-columnmapping-mode-id/delta",
    "dat-v0.0.2/multi_partitioned/delta",
]


@pytest.mark.spark
@pytest.mark.parametrize("table", S3_TABLES)
def test_a_table_in_s3_reads_through_the_python_data_source_like_its_local_copy(
    spark, read_path, s3_server, table
):
    local = DeltaLog.open(str(CORPUS / table))
    remote = DeltaLog.open(s3_server.upload(CORPUS / table), storage_options=s3_server.options)
    read_path("native")
    assert choose_read_path(spark, local.snapshot()) is ReadPath.NATIVE
    read_path("python")
    assert choose_read_path(spark, remote.snapshot()) is ReadPath.PYTHON
    for version in (local.earliest_version, local.latest_version):
        read_path("native")
        native = rows(read_snapshot(local.snapshot(version), spark=spark))
        read_path("python")
        assert rows(read_snapshot(remote.snapshot(version), spark=spark)) == native
        assert count_rows(remote.snapshot(version), spark=spark) == len(native)


@pytest.mark.spark
def test_the_demo_table_in_s3_previews_like_its_local_copy(spark, read_path, s3_server, tmp_path):
    demo = write_demo_table(str(tmp_path / "demo"))
    local = DeltaLog.open(demo)
    remote = DeltaLog.open(s3_server.upload(demo, "demo"), storage_options=s3_server.options)
    read_path("auto")
    settings = Settings(preview_rows=10_000)
    for version in (3, remote.latest_version):
        theirs = build_preview(local, version, settings=settings, spark=spark)
        ours = build_preview(remote, version, settings=settings, spark=spark)
        assert ours.read_path == theirs.read_path == "delta"  # s3a:// through hadoop-aws
        assert ours.num_rows == theirs.num_rows
        assert sorted(map(repr, ours.rows)) == sorted(map(repr, theirs.rows))


@pytest.mark.spark
def test_a_file_missing_from_the_bucket_is_named_before_spark_reads(spark, read_path, s3_server):
    table = "dat-v0.0.2/basic_append/delta"
    uri = s3_server.upload(CORPUS / table)
    log = DeltaLog.open(uri, storage_options=s3_server.options)
    gone = log.snapshot().data_path(log.snapshot().add_files[0])
    s3_server.delete(gone)
    with pytest.raises(MissingDataFile, match=gone.rsplit("/", 1)[-1]):
        read_snapshot(log.snapshot(), spark=spark)
