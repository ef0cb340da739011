"""Reading the rows of a snapshot with Spark, exactly as Delta defines them.

With Delta Lake's Spark jars loaded (the default ``delta`` engine) Delta reads
(``versionAsOf``). Without them (``spark_engine`` ``own``), and where :mod:`.readpath`
says so, we read the snapshot ourselves: Spark reads exactly
the snapshot's Parquet files with an explicit schema of physical column names,
partition values come from each add action (joined on ``_metadata.file_path``,
never inferred from directory names), column-mapped names are renamed to logical
ones, and rows marked by deletion vectors are dropped (by ``_metadata.row_index``).
Anything we cannot read correctly is refused (:mod:`inspector.rows.readcheck`, before
Spark starts): never wrong rows.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

from inspector.delta.actions import AddFile
from inspector.delta.errors import MissingDataFile, UnsupportedFeature
from inspector.log.snapshot import Snapshot
from inspector.rows.physical import (
    checked_bitmap,
    output_column,
    partition_alias,
    physical_field,
    typed_partition_values,
)
from inspector.rows.readcheck import check_files_exist, check_readable, spark_schema
from inspector.rows.readpath import is_local, storage_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

_FILE_KEY = "__delta_inspector_file"
_ROW_INDEX = "__delta_inspector_row"
_GLOB_CHARS = re.compile(r"([\\\[\]{}*?])")


def read_snapshot(snapshot: Snapshot, *, spark: SparkSession | None = None) -> DataFrame:
    """Exactly the rows of a snapshot, with its logical schema (partition columns included).

    Args:
        snapshot: The version to read.
        spark: A SparkSession; None uses the session already started (get_spark).

    Returns:
        A ``pyspark.sql.DataFrame`` (lazy: nothing is read until an action runs).

    Raises:
        UnsupportedFeature: The table uses a feature we cannot read correctly (named).
        MissingDataFile: A data or deletion-vector file is missing (named).
    """
    spark = spark or _session()
    from inspector.rows.readpath import ReadPath, choose_read_path

    if choose_read_path(spark, snapshot) is ReadPath.DELTA:
        from inspector.rows.delta_engine import read_with_delta

        check_files_exist(snapshot, snapshot.add_files)  # named, before Delta's stack trace
        return read_with_delta(spark, snapshot, lambda: _own_reader_hint(snapshot))
    check_readable(snapshot)
    check_files_exist(snapshot, snapshot.add_files)
    return _read(spark, snapshot, snapshot.add_files)


def _own_reader_hint(snapshot: Snapshot) -> str:
    try:
        check_readable(snapshot)
    except UnsupportedFeature:
        return "Pick another version; Delta Inspector's own reader cannot read this one either."
    return "Delta Inspector's own reader can read it: set DELTA_INSPECTOR_SPARK_ENGINE=own."


def read_files(
    snapshot: Snapshot, adds: Iterable[AddFile], *, spark: SparkSession | None = None
) -> DataFrame:
    """The rows of some add actions (from any version), read like :func:`read_snapshot`.

    Args:
        snapshot: Provides the schema, partition columns and column mapping.
        adds: The add actions to read; empty gives an empty DataFrame with the schema.
        spark: A SparkSession; None uses the process's session.

    Returns:
        A ``pyspark.sql.DataFrame`` with the snapshot's logical schema.

    Raises:
        UnsupportedFeature: The table uses a feature we cannot read correctly (named).
        MissingDataFile: A data or deletion-vector file is missing (named).
    """
    adds = list(adds)
    check_readable(snapshot)
    check_files_exist(snapshot, adds)
    return _read(spark or _session(), snapshot, adds)


def _session() -> SparkSession:
    from inspector.rows.session import started_spark

    return started_spark()


# Type changes Spark's Parquet reader applies itself when the read schema is wider
# than the file's type (Spark 4: SPARK-40876 and follow-ups). Others are refused.
def _read(spark: SparkSession, snapshot: Snapshot, adds: list[AddFile]) -> DataFrame:
    """Read the given adds; adds sharing a path (from different versions) are read apart."""
    logical = spark_schema(snapshot)
    if not adds:
        return spark.createDataFrame([], logical)
    from inspector.rows.readpath import ReadPath, choose_read_path, python_rows

    if choose_read_path(spark, snapshot) is ReadPath.PYTHON:
        rows: DataFrame = python_rows(spark, snapshot, logical, adds)
        return rows
    layers: list[list[AddFile]] = []
    seen: Counter[str] = Counter()
    for add in adds:
        key = _file_key(snapshot, add)
        if seen[key] == len(layers):
            layers.append([])
        layers[seen[key]].append(add)
        seen[key] += 1
    frames = [_read_layer(spark, snapshot, logical, layer) for layer in layers]
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    return result


def _read_layer(
    spark: SparkSession, snapshot: Snapshot, logical: StructType, adds: list[AddFile]
) -> DataFrame:
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    id_mode = snapshot.metadata.column_mapping_mode == "id"
    parts = set(snapshot.partition_columns)
    data_fields = [f for f in logical.fields if f.name not in parts]
    df = _scan(spark, snapshot, adds, StructType([physical_field(f, id_mode) for f in data_fields]))
    has_dvs = any(a.deletion_vector for a in adds)
    if parts or has_dvs:
        keys = _spark_file_keys(df, snapshot, adds)
        df = df.withColumn(_FILE_KEY, df.metadataColumn("_metadata").getField("file_path"))
    if has_dvs:
        df = df.withColumn(_ROW_INDEX, df.metadataColumn("_metadata").getField("row_index"))
        df = _drop_deleted(spark, snapshot, df, adds, keys)
    if parts:
        df = df.join(
            F.broadcast(_partition_frame(spark, snapshot, logical, adds, keys)), on=_FILE_KEY
        )
    return df.select(*[output_column(f, parts, id_mode) for f in logical.fields])


def _scan(
    spark: SparkSession, snapshot: Snapshot, adds: list[AddFile], read_schema: StructType
) -> DataFrame:
    """Spark's scan of exactly these files: explicit schema, no partition discovery."""
    if snapshot.metadata.column_mapping_mode == "id":
        # Column-mapping id mode matches Parquet columns by field id, as Delta does.
        spark.conf.set("spark.sql.parquet.fieldId.read.enabled", "true")
    # file: keeps a cluster's default file system (HDFS, ...) from claiming local paths;
    # Hadoop would expand glob characters in file names, so they are escaped.
    paths = [_GLOB_CHARS.sub(r"\\\1", _spark_path(snapshot, a)) for a in adds]
    from inspector.rows.readpath import spark_location

    spark_location(spark, snapshot)  # gives an object store's connector its credentials
    return spark.read.schema(read_schema).option("recursiveFileLookup", "true").parquet(*paths)


def _spark_file_keys(df: DataFrame, snapshot: Snapshot, adds: list[AddFile]) -> dict[str, str]:
    """Each add's file as Spark names it in ``_metadata.file_path``: ``file:`` + %-encoded path.

    Spark's own listing (``inputFiles``, no job) gives the encoded paths (written
    ``file:///`` there, ``file:/`` in ``_metadata``); it is decoded and matched to our
    paths, so the per-row join compares Spark's strings as they are. Decoding them per
    row instead costs about five times as much on large tables.

    Raises:
        MissingDataFile: If Spark did not list a file (it vanished while we looked).
    """
    listed = {}
    for uri in df.inputFiles():
        parts = urlsplit(uri)
        if parts.scheme == "file":
            listed["file:" + unquote(parts.path)] = "file:" + parts.path
        else:  # an object store's URI, as the Hadoop connector names it
            listed[unquote(uri)] = uri
    keys = {}
    for add in adds:
        local = _file_key(snapshot, add)
        if _spark_path(snapshot, add) not in listed:
            raise MissingDataFile(
                f"Spark could not list {local}, a file of this version.",
                "Check that the file exists and is readable, then retry.",
            )
        keys[local] = listed[_spark_path(snapshot, add)]
    return keys


def _spark_path(snapshot: Snapshot, add: AddFile) -> str:
    """The file as Spark's reader is given it: ``file:`` + path, or the connector's URI."""
    key = _file_key(snapshot, add)
    if is_local(key):
        return "file:" + key
    from inspector.rows.connectors import hadoop_uri

    return hadoop_uri(key, storage_options(snapshot))


def count_rows(snapshot: Snapshot, *, spark: SparkSession | None = None) -> int:
    """The exact number of rows of a snapshot, reading only Parquet footers where possible.

    Rows live in the files; partition values do not change the count, and a deletion
    vector removes exactly its cardinality when every deleted index is inside its file
    (checked against the file's ``numRecords``). Otherwise the rows are read and counted.

    Raises:
        UnsupportedFeature, MissingDataFile: As :func:`read_snapshot`.
    """
    check_readable(snapshot)
    adds = snapshot.add_files
    check_files_exist(snapshot, adds)
    spark = spark or _session()
    from inspector.rows.readpath import ReadPath, choose_read_path, python_count

    path = choose_read_path(spark, snapshot)
    if path is ReadPath.DELTA or any(a.deletion_vector and a.num_records is None for a in adds):
        return read_snapshot(snapshot, spark=spark).count()
    if not adds:
        return 0
    if path is ReadPath.PYTHON:
        return python_count(spark, snapshot, spark_schema(snapshot), adds)
    from pyspark.sql.types import StructType

    deleted = 0
    for add in adds:
        if add.deletion_vector is not None:
            deleted += len(checked_bitmap(snapshot, add))
    return _scan(spark, snapshot, adds, StructType([])).count() - deleted


def _file_key(snapshot: Snapshot, add: AddFile) -> str:
    path = snapshot.data_path(add)
    return os.path.normpath(path) if is_local(path) else path


def _partition_frame(
    spark: SparkSession,
    snapshot: Snapshot,
    logical: StructType,
    adds: list[AddFile],
    keys: dict[str, str],
) -> DataFrame:
    """A small DataFrame (file key, typed partition values...) built from the add actions."""
    from pyspark.sql.types import StringType, StructField, StructType

    fields = [f for f in logical.fields if f.name in set(snapshot.partition_columns)]
    schema = StructType(
        [StructField(_FILE_KEY, StringType(), False)]
        + [StructField(partition_alias(f), f.dataType, True) for f in fields]
    )
    # Zoneless timestamp values are in the writer's session time zone; like Delta on Spark we
    # read them in this session's time zone (UTC unless the spark_conf setting changes it).
    zone = ZoneInfo(spark.conf.get("spark.sql.session.timeZone") or "UTC")
    rows = [
        (keys[_file_key(snapshot, add)], *typed_partition_values(add, fields, zone)) for add in adds
    ]
    return spark.createDataFrame(rows, schema)


def _drop_deleted(
    spark: SparkSession,
    snapshot: Snapshot,
    df: DataFrame,
    adds: list[AddFile],
    keys: dict[str, str],
) -> DataFrame:
    """Left-anti join with the (file, row index) pairs the deletion vectors mark deleted."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, LongType, StringType, StructField, StructType

    rows = [
        (keys[_file_key(snapshot, add)], list(checked_bitmap(snapshot, add)))
        for add in adds
        if add.deletion_vector is not None
    ]
    schema = StructType(
        [
            StructField(_FILE_KEY, StringType(), False),
            StructField("rows", ArrayType(LongType(), False), False),
        ]
    )
    deleted = spark.createDataFrame(rows, schema).select(
        _FILE_KEY, F.explode("rows").alias(_ROW_INDEX)
    )
    return df.join(deleted, on=[_FILE_KEY, _ROW_INDEX], how="left_anti")
