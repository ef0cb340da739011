"""Reading the rows of a snapshot with Spark, exactly as Delta defines them.

With Delta Lake's Spark jars on the classpath we let Delta read (``versionAsOf``).
Without them (the default here) we read the snapshot ourselves: Spark reads exactly
the snapshot's Parquet files with an explicit schema of physical column names,
partition values come from each add action (joined on ``_metadata.file_path``,
never inferred from directory names), column-mapped names are renamed to logical
ones, and rows marked by deletion vectors are dropped (by ``_metadata.row_index``).
Anything we cannot read correctly is refused: never wrong rows.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, date, datetime, tzinfo
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

from inspector.delta.actions import AddFile
from inspector.delta.errors import CorruptLog, MissingDataFile, UnsupportedFeature
from inspector.delta.schema import COLUMN_ID_KEY, PHYSICAL_NAME_KEY
from inspector.log.deletion_vectors import deleted_rows, dv_file_path
from inspector.log.snapshot import Snapshot
from inspector.rows.readpath import is_local, storage_options

if TYPE_CHECKING:
    from pyroaring import BitMap64
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructField, StructType

#: Reader features whose tables we read correctly (some need nothing from a reader).
SUPPORTED_READER_FEATURES = frozenset(
    {
        "columnMapping",
        "deletionVectors",
        "timestampNtz",
        "v2Checkpoint",
        "vacuumProtocolCheck",
        "typeWidening",
        "typeWidening-preview",
        "variantType",
        "variantType-preview",
        "catalogOwned",
        "catalogOwned-preview",
        "catalogManaged",
    }
)
_CATALOG_FEATURES = {"catalogOwned", "catalogOwned-preview", "catalogManaged"}
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
_FILE_KEY = "__delta_inspector_file"
_ROW_INDEX = "__delta_inspector_row"
_GLOB_CHARS = re.compile(r"([\\\[\]{}*?])")


def read_snapshot(snapshot: Snapshot, *, spark: SparkSession | None = None) -> DataFrame:
    """Exactly the rows of a snapshot, with its logical schema (partition columns included).

    Args:
        snapshot: The version to read.
        spark: A SparkSession; None starts (or reuses) the process's session.

    Returns:
        A ``pyspark.sql.DataFrame`` (lazy: nothing is read until an action runs).

    Raises:
        UnsupportedFeature: The table uses a feature we cannot read correctly (named).
        MissingDataFile: A data or deletion-vector file is missing (named).
    """
    check_readable(snapshot)
    check_files_exist(snapshot, snapshot.add_files)
    spark = spark or _session()
    from inspector.rows.readpath import ReadPath, choose_read_path, spark_location

    if choose_read_path(spark, snapshot) is ReadPath.DELTA:
        return (
            spark.read.format("delta")
            .option("versionAsOf", snapshot.version)
            .load(spark_location(spark, snapshot))
        )
    return _read(spark, snapshot, snapshot.add_files)


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


def check_readable(snapshot: Snapshot) -> None:
    """Refuse tables whose rows we cannot return correctly.

    Raises:
        UnsupportedFeature: Naming the reader feature, protocol version or column type.
    """
    proto = snapshot.protocol
    if proto.min_reader_version > 3:
        raise UnsupportedFeature(
            f"Version {snapshot.version} requires Delta reader version {proto.min_reader_version}; "
            "Delta Inspector reads versions 1 to 3.",
            "Read this table with a newer Delta engine, or pick an older version.",
        )
    features = set(proto.reader_features or ()) if proto.min_reader_version >= 3 else set()
    unknown = sorted(features - SUPPORTED_READER_FEATURES)
    if unknown:
        raise UnsupportedFeature(
            f"Version {snapshot.version} uses the table feature(s) {', '.join(unknown)}, which "
            "Delta Inspector cannot read correctly, so it shows no rows rather than wrong ones.",
            "Read this version with Delta Lake itself (put Delta's jars on Spark's classpath "
            "with the spark_conf setting, e.g. spark.jars=...), or pick a version without it.",
        )
    spark_schema(snapshot)  # refuses column types Spark does not know
    _check_type_changes(snapshot)


def read_warnings(snapshot: Snapshot) -> list[str]:
    """Caveats about rows read from this snapshot (shown beside a preview)."""
    features = set(snapshot.protocol.reader_features or ())
    if features & _CATALOG_FEATURES:
        return [
            "This table is managed by a catalog: the rows shown are those of the commits in "
            "_delta_log; commits the catalog has ratified but not yet published are not included."
        ]
    return []


def check_files_exist(snapshot: Snapshot, adds: Iterable[AddFile]) -> None:
    """Stat every data and deletion-vector file before Spark starts, for a clean message.

    Raises:
        MissingDataFile: Naming the first missing file and how many are missing.
    """
    from inspector.rows.readpath import missing_files

    missing = missing_files(
        snapshot,
        [snapshot.data_path(a) for a in adds]
        + [
            dv_file_path(a.deletion_vector, snapshot.table_root)
            for a in adds
            if a.deletion_vector and a.deletion_vector.storage_type != "i"
        ],
    )
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise MissingDataFile(
            f"Version {snapshot.version} needs {missing[0]}, which is missing{more}: the "
            "version's data was vacuumed or not copied with the table.",
            "Pick a later version whose files exist (VACUUM keeps the files of recent "
            "versions), or restore the missing files from a backup.",
        )


def spark_schema(snapshot: Snapshot) -> StructType:
    """The snapshot's logical schema as a Spark ``StructType`` (Delta uses Spark's JSON).

    Raises:
        UnsupportedFeature: If a column type is unknown to this Spark version.
    """
    from pyspark.sql.types import StructType

    try:
        return StructType.fromJson(json.loads(snapshot.metadata.schema_string))
    except Exception as exc:
        raise UnsupportedFeature(
            f"Version {snapshot.version}'s schema has a column type Spark {_spark_version()} "
            f"cannot read ({exc}).",
            "Read this table with an engine that supports the type.",
        ) from None


def _session() -> SparkSession:
    from inspector.rows.session import get_spark

    return get_spark()


def _spark_version() -> str:
    import pyspark

    return pyspark.__version__


# Type changes Spark's Parquet reader applies itself when the read schema is wider
# than the file's type (Spark 4: SPARK-40876 and follow-ups). Others are refused.
_INTEGRAL = ("byte", "short", "integer", "long")


def _widening_supported(from_type: str, to_type: str) -> bool:
    if from_type in _INTEGRAL and to_type in _INTEGRAL:
        return _INTEGRAL.index(from_type) <= _INTEGRAL.index(to_type)
    if (from_type, to_type) in {("float", "double"), ("date", "timestamp_ntz")}:
        return True
    if from_type in ("byte", "short", "integer") and to_type == "double":
        return True
    dec_from, dec_to = _decimal(from_type), _decimal(to_type)
    if from_type in _INTEGRAL and dec_to:
        # Spark's vectorized reader needs room for the whole Parquet INT32 / INT64 range.
        return dec_to[0] - dec_to[1] >= (20 if from_type == "long" else 10)
    if dec_from and dec_to:
        return dec_to[1] >= dec_from[1] and dec_to[0] - dec_to[1] >= dec_from[0] - dec_from[1]
    return False


def _decimal(name: str) -> tuple[int, int] | None:
    match = re.fullmatch(r"decimal\((\d+),\s*(\d+)\)", name)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _check_type_changes(snapshot: Snapshot) -> None:
    for field_name, change in _type_changes(json.loads(snapshot.metadata.schema_string), ()):
        src, dst = str(change.get("fromType")), str(change.get("toType"))
        if not _widening_supported(src, dst):
            raise UnsupportedFeature(
                f"Column {field_name} was widened from {src} to {dst} (typeWidening); Spark's "
                "Parquet reader cannot read the older files' values as the new type exactly.",
                "Read this table with Delta Lake itself, or rewrite the old files.",
            )


def _type_changes(node: Any, path: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        if "name" in node and "type" in node:
            path = path + (node["name"],)
            for change in (node.get("metadata") or {}).get("delta.typeChanges") or ():
                yield ".".join(path), change
        for key, value in node.items():
            if key != "metadata":
                yield from _type_changes(value, path)
    elif isinstance(node, list):
        for item in node:
            yield from _type_changes(item, path)


def _read(spark: SparkSession, snapshot: Snapshot, adds: list[AddFile]) -> DataFrame:
    """Read the given adds; adds sharing a path (from different versions) are read apart."""
    logical = spark_schema(snapshot)
    if not adds:
        return spark.createDataFrame([], logical)
    from inspector.rows.readpath import ReadPath, choose_read_path, python_rows

    if choose_read_path(spark, snapshot) is ReadPath.PYTHON:
        return python_rows(spark, snapshot, logical, adds)
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
    df = _scan(
        spark, snapshot, adds, StructType([_physical_field(f, id_mode) for f in data_fields])
    )
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
    return df.select(*[_output_column(f, parts, id_mode) for f in logical.fields])


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
            deleted += len(_checked_bitmap(snapshot, add))
    return _scan(spark, snapshot, adds, StructType([])).count() - deleted


def _physical_field(field: StructField, id_mode: bool) -> StructField:
    """A Spark field renamed to its Parquet (physical) name, with its field id in id mode."""
    from pyspark.sql.types import StructField

    meta = field.metadata or {}
    extra = (
        {"parquet.field.id": int(meta[COLUMN_ID_KEY])} if id_mode and COLUMN_ID_KEY in meta else {}
    )
    return StructField(
        str(meta.get(PHYSICAL_NAME_KEY) or field.name),
        _physical_type(field.dataType, id_mode),
        True,
        extra,
    )


def _physical_type(data_type: DataType, id_mode: bool) -> DataType:
    from pyspark.sql.types import ArrayType, MapType, StructType

    if isinstance(data_type, StructType):
        return StructType([_physical_field(f, id_mode) for f in data_type.fields])
    if isinstance(data_type, ArrayType):
        return ArrayType(_physical_type(data_type.elementType, id_mode), True)
    if isinstance(data_type, MapType):
        return MapType(
            _physical_type(data_type.keyType, id_mode),
            _physical_type(data_type.valueType, id_mode),
            True,
        )
    return data_type


def _output_column(field: StructField, parts: set[str], id_mode: bool) -> Column:
    """A logical column: partition values as joined, data columns renamed (nested too)."""
    from pyspark.sql import functions as F

    if field.name in parts:
        return F.col(_quote(_partition_alias(field))).alias(field.name)
    physical = _physical_field(field, id_mode)
    column = F.col(_quote(physical.name))
    if _strip(physical.dataType) != _strip(field.dataType):
        column = column.cast(field.dataType)  # struct casts are positional: renames nested fields
    return column.alias(field.name, metadata={})


def _strip(data_type: DataType) -> str:
    """A type's simpleString: names and types without metadata or nullability."""
    return data_type.simpleString()


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _partition_alias(field: StructField) -> str:
    return "__delta_inspector_part_" + _physical_name(field)


def _physical_name(field: StructField) -> str:
    return str((field.metadata or {}).get(PHYSICAL_NAME_KEY) or field.name)


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
        + [StructField(_partition_alias(f), f.dataType, True) for f in fields]
    )
    # Zoneless timestamp values are in the writer's session time zone; like Delta on Spark we
    # read them in this session's time zone (UTC unless the spark_conf setting changes it).
    zone = ZoneInfo(spark.conf.get("spark.sql.session.timeZone") or "UTC")
    rows = [
        (keys[_file_key(snapshot, add)], *typed_partition_values(add, fields, zone)) for add in adds
    ]
    return spark.createDataFrame(rows, schema)


def typed_partition_values(add: AddFile, fields: list, zone: tzinfo) -> tuple[Any, ...]:
    """An add's partition values for the given (logical) partition fields, typed."""
    values = add.partition_values or {}
    return tuple(
        partition_value(
            values.get(_physical_name(f), values.get(f.name)), f.dataType.typeName(), add.path, zone
        )
        for f in fields
    )


def partition_value(text: str | None, type_name: str, file: str = "", zone: tzinfo = UTC) -> Any:
    """Convert a partition value from the log (a string) to a Python value of its type.

    Args:
        text: The serialized value; None, ``__HIVE_DEFAULT_PARTITION__`` and (for non-string
            types) the empty string mean null.
        type_name: Spark's ``typeName()`` of the column (``decimal`` for any decimal).
        file: The data file, for the error message.
        zone: The time zone of timestamp values written without one (the spec's
            ``2021-01-01 00:00:00`` form); values with ``Z`` or an offset ignore it.

    Returns:
        The typed value (timestamps are aware UTC datetimes; timestamp_ntz naive).

    Raises:
        CorruptLog: If the value does not parse as the column's type.
    """
    if text is None or text == HIVE_NULL or (text == "" and type_name != "string"):
        return None
    try:
        if type_name == "timestamp":
            return _timestamp(text, zone)
        return _PARTITION_PARSERS.get(type_name, _unsupported_partition)(text)
    except (ValueError, InvalidOperation, OverflowError):
        raise CorruptLog(
            f"The partition value {text!r} of {file} is not a valid {type_name}.",
            "The log is damaged or was written by a faulty writer; pick another version.",
        ) from None


def _timestamp(text: str, zone: tzinfo) -> datetime:
    parsed = datetime.fromisoformat(text.strip())
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=zone)
    return parsed.astimezone(UTC)


def _timestamp_ntz(text: str) -> datetime:
    return datetime.fromisoformat(text.strip()).replace(tzinfo=None)


def _boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered not in ("true", "false"):
        raise ValueError(text)
    return lowered == "true"


def _unsupported_partition(text: str) -> Any:
    raise ValueError(text)


_PARTITION_PARSERS: dict[str, Callable[[str], Any]] = {
    "string": str,
    "byte": int,
    "short": int,
    "integer": int,
    "long": int,
    "float": float,
    "double": float,
    "boolean": _boolean,
    "date": lambda t: date.fromisoformat(t.strip()[:10]),
    "timestamp_ntz": _timestamp_ntz,
    "decimal": lambda t: Decimal(t.strip()),
    "binary": lambda t: t.encode("utf-8"),  # Delta writes Cast(binary as string): UTF-8
}


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
        (keys[_file_key(snapshot, add)], list(_checked_bitmap(snapshot, add)))
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


def _checked_bitmap(snapshot: Snapshot, add: AddFile) -> BitMap64:
    """The add's deleted rows, refused when they point past the end of its file."""
    assert add.deletion_vector is not None  # callers pass only adds with a deletion vector
    bitmap = deleted_rows(add.deletion_vector, snapshot.table_root, snapshot.store)
    if add.num_records is not None and len(bitmap) and bitmap.max() >= add.num_records:
        raise MissingDataFile(
            f"The deletion vector of {add.path} marks row {bitmap.max()} deleted, but the file "
            f"has {add.num_records} rows: the deletion vector does not belong to this file.",
            "Rows cannot be read correctly; restore the table's files from a backup.",
        )
    return bitmap
