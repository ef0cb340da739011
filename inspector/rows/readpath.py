"""Which way Spark reads a snapshot's files, and the Python data source's scan.

- ``delta``: Delta Lake's own reader, when its jars are loaded (the default).
- ``native``: Delta Inspector's own reader: Spark's Parquet reader on local files.
- ``hadoop-connector``: Spark's Parquet reader on object storage, through Hadoop's
  connector for the scheme (URI mapped, e.g. ``s3://`` to ``s3a://``; credentials
  as Hadoop conf).
- ``python-data-source``: our Python data source fetches the files through the
  storage layer on the executors (object storage without a connector).

The ``spark_read_path`` setting (Spark conf ``spark.deltaInspector.readPath``) can
force Delta Inspector's own reader, ``native`` (Spark reads the files: locally or through
a connector) or ``python``; ``auto`` picks as above, Delta's reader first.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo

from inspector.delta.actions import AddFile
from inspector.delta.errors import InvalidInput, NotADeltaTable
from inspector.log.snapshot import Snapshot
from inspector.rows.session import (  # noqa: F401  (re-exported)
    READ_PATH_CHOICES,
    READ_PATH_CONF,
    check_read_path,
    has_delta_jars,
)


class ReadPath(StrEnum):
    """How Spark read a snapshot's rows (shown by ``show`` and the Preview page)."""

    DELTA = "delta"
    NATIVE = "native"
    CONNECTOR = "hadoop-connector"
    PYTHON = "python-data-source"

    def describe(self) -> str:
        """One line for people."""
        return {
            ReadPath.DELTA: "Delta Lake's reader (its jars are on Spark's classpath)",
            ReadPath.NATIVE: "Spark's Parquet reader on local files",
            ReadPath.CONNECTOR: "Spark's Parquet reader through Hadoop's connector",
            ReadPath.PYTHON: "Delta Inspector's Python data source (files fetched by the executors)",
        }[self]


def is_local(location: str) -> bool:
    """True for a local path or ``file:`` URI (Spark reads it without a connector)."""
    from inspector.storage import parse_location

    try:
        return parse_location(location).is_local
    except NotADeltaTable:
        return False


def choose_read_path(spark: Any, snapshot: Snapshot) -> ReadPath:
    """The path :mod:`inspector.rows.reader` takes for this snapshot in this session."""
    from inspector.rows.connectors import connector_for, has_connector

    preference = check_read_path(spark.conf.get(READ_PATH_CONF, "auto") or "auto")
    if preference == "python":
        return ReadPath.PYTHON
    local = is_local(snapshot.table_root)
    connector = None if local else connector_for(snapshot.table_root)
    readable = local or (connector is not None and has_connector(spark, connector))
    if not readable and preference == "auto":
        return ReadPath.PYTHON
    if not readable:
        package = connector.package if connector else "a Hadoop connector for the scheme"
        raise InvalidInput(
            f"spark_read_path is native, but Spark has no connector to read "
            f"{snapshot.table_root} with.",
            f"Add {package} with spark.jars.packages in spark_conf (see docs/spark.md), "
            "or set spark_read_path to auto.",
        )
    if preference == "auto" and has_delta_jars(spark):
        return ReadPath.DELTA
    return ReadPath.NATIVE if local else ReadPath.CONNECTOR


def storage_options(snapshot: Snapshot) -> dict[str, str]:
    """The options the table's store was opened with (secrets: never show them)."""
    from inspector.storage import ObjectStorage

    store = snapshot.store
    return store.options if isinstance(store, ObjectStorage) else {}


def spark_location(spark: Any, snapshot: Snapshot) -> str:
    """The table root as Spark's readers take it; for an object store, the connector's
    URI, with the store's options set as Hadoop conf on the session (never printed)."""
    if is_local(snapshot.table_root):
        return snapshot.table_root
    from inspector.rows.connectors import apply_hadoop_conf, hadoop_conf, hadoop_uri

    options = storage_options(snapshot)
    apply_hadoop_conf(spark, hadoop_conf(snapshot.table_root, options))
    return hadoop_uri(snapshot.table_root, options)


def missing_files(snapshot: Snapshot, paths: list[str]) -> list[str]:
    """Which of ``paths`` (data or DV files) are not in the table's object store.

    The table's prefix is listed once (not a HEAD per file); files outside it are asked
    for one by one.
    """
    store = snapshot.store
    root = snapshot.table_root.rstrip("/") + "/"
    inside = [p for p in paths if p.startswith(root)]
    listed = {root + meta.path for meta in store.walk()} if inside else set()
    return [p for p in paths if (p not in listed if p.startswith(root) else store.head(p) is None)]


def python_rows(spark: Any, snapshot: Snapshot, logical: Any, adds: list[AddFile]) -> Any:
    """The adds' rows read by the Python data source, projected exactly as the native path."""
    from inspector.rows.physical import output_column

    parts = set(snapshot.partition_columns)
    id_mode = snapshot.metadata.column_mapping_mode == "id"
    df = _load(spark, snapshot, logical, adds, count_only=False)
    return df.select(*[output_column(f, parts, id_mode) for f in logical.fields])


def python_count(spark: Any, snapshot: Snapshot, logical: Any, adds: list[AddFile]) -> int:
    """The adds' live rows: footers' row counts minus deleted rows, read on the executors."""
    from pyspark.sql import functions as F

    from inspector.rows.datasource import ROWS_COLUMN

    df = _load(spark, snapshot, logical, adds, count_only=True)
    return int(df.agg(F.sum(ROWS_COLUMN)).first()[0] or 0)


def _load(
    spark: Any, snapshot: Snapshot, logical: Any, adds: list[AddFile], *, count_only: bool
) -> Any:
    from pyspark.sql.types import StructField, StructType

    from inspector.rows.datasource import FileTask, ScanSpec, deleted_bytes, group_tasks, load
    from inspector.rows.physical import (
        checked_bitmap,
        partition_alias,
        physical_field,
        typed_partition_values,
    )

    parts = set(snapshot.partition_columns)
    id_mode = snapshot.metadata.column_mapping_mode == "id"
    read_schema = StructType(
        [physical_field(f, id_mode) for f in logical.fields if f.name not in parts]
    )
    part_fields = [f for f in logical.fields if f.name in parts]
    part_schema = StructType(
        [StructField(partition_alias(f), f.dataType, True) for f in part_fields]
    )
    zone = ZoneInfo(spark.conf.get("spark.sql.session.timeZone") or "UTC")
    tasks = [
        FileTask(
            path=snapshot.data_path(add),
            size=add.size,
            partition_values=typed_partition_values(add, part_fields, zone),
            deleted=deleted_bytes(checked_bitmap(snapshot, add)) if add.deletion_vector else None,
        )
        for add in adds
    ]
    spec = ScanSpec(
        location=snapshot.table_root,
        storage_options=storage_options(snapshot),
        read_schema_json=read_schema.json(),
        partition_schema_json=part_schema.json(),
        case_sensitive=(spark.conf.get("spark.sql.caseSensitive", "false") or "").lower() == "true",
        count_only=count_only,
        groups=group_tasks(tasks, spark.sparkContext.defaultParallelism),
    )
    return load(spark, spec)
