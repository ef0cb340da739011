"""Physical columns: the read schema Spark's Parquet reader is given, and the way back.

Shared by both ways Spark reads a snapshot's files (:mod:`inspector.rows.reader`'s
native scan and the Python data source of :mod:`inspector.rows.readpath`), so they
read the same columns and project them to the same logical rows: column-mapped
physical names (and field ids in id mode), typed partition values from the log, and
deletion vectors checked against their file.
"""

from __future__ import annotations

from datetime import tzinfo
from typing import TYPE_CHECKING, Any

from inspector.delta.actions import AddFile
from inspector.delta.errors import MissingDataFile
from inspector.delta.partitions import partition_value
from inspector.delta.schema import COLUMN_ID_KEY, PHYSICAL_NAME_KEY
from inspector.log.deletion_vectors import deleted_rows
from inspector.log.snapshot import Snapshot

if TYPE_CHECKING:
    from pyroaring import BitMap64
    from pyspark.sql import Column
    from pyspark.sql.types import DataType, StructField


def physical_field(field: StructField, id_mode: bool) -> StructField:
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
        return StructType([physical_field(f, id_mode) for f in data_type.fields])
    if isinstance(data_type, ArrayType):
        return ArrayType(_physical_type(data_type.elementType, id_mode), True)
    if isinstance(data_type, MapType):
        return MapType(
            _physical_type(data_type.keyType, id_mode),
            _physical_type(data_type.valueType, id_mode),
            True,
        )
    return data_type


def output_column(field: StructField, parts: set[str], id_mode: bool) -> Column:
    """A logical column: partition values as joined, data columns renamed (nested too)."""
    from pyspark.sql import functions as F

    if field.name in parts:
        return F.col(_quote(partition_alias(field))).alias(field.name)
    physical = physical_field(field, id_mode)
    column = F.col(_quote(physical.name))
    if _strip(physical.dataType) != _strip(field.dataType):
        column = column.cast(field.dataType)  # struct casts are positional: renames nested fields
    return column.alias(field.name, metadata={})


def _strip(data_type: DataType) -> str:
    """A type's simpleString: names and types without metadata or nullability."""
    return data_type.simpleString()


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def partition_alias(field: StructField) -> str:
    return "__delta_inspector_part_" + physical_name(field)


def physical_name(field: StructField) -> str:
    return str((field.metadata or {}).get(PHYSICAL_NAME_KEY) or field.name)


def typed_partition_values(add: AddFile, fields: list[Any], zone: tzinfo) -> tuple[Any, ...]:
    """An add's partition values for the given (logical) partition fields, typed."""
    values = add.partition_values or {}
    return tuple(
        partition_value(
            values.get(physical_name(f), values.get(f.name)), f.dataType.typeName(), add.path, zone
        )
        for f in fields
    )


def checked_bitmap(snapshot: Snapshot, add: AddFile) -> BitMap64:
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
