"""One Parquet file read with pyarrow, conformed to the read schema Spark's reader would use.

The Python data source (:mod:`inspector.rows.datasource`) runs this on the executors.
It must return what Spark's own Parquet reader returns for the same file and read
schema (physical column names, ``parquet.field.id`` in column-mapping id mode), so the
rows equal those of the native path:

- columns are matched by field id when the read field has one (Spark's
  ``spark.sql.parquet.fieldId.read.enabled``), else by name, case-insensitively unless
  ``spark.sql.caseSensitive``; nested struct fields, list elements and map values alike;
- a column the file lacks is null (a column added after the file was written);
- values are cast to the read type (type widening: int to long, float to double, date
  to timestamp_ntz, wider decimals), with ``safe`` casts so nothing is silently changed;
- INT96 timestamps are read as microseconds, dates and timestamps are not rebased
  (the session's ``CORRECTED`` rebase modes).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

_FIELD_ID = b"PARQUET:field_id"
#: Rows per Arrow batch handed to Spark (its default maxRecordsPerBatch).
BATCH_ROWS = 10_000


class ReadSchemaMismatch(Exception):
    """The file cannot be read with the read schema (Spark's reader would fail too)."""


def read_conformed(
    source: Any,
    read_schema: Any,
    *,
    case_sensitive: bool,
    deleted: np.ndarray | None = None,
) -> Iterator[tuple[pa.RecordBatch, int]]:
    """Yield (batch conformed to ``read_schema``, rows kept) for one Parquet file.

    Args:
        source: A local path or a file-like object pyarrow can read.
        read_schema: Spark ``StructType`` of physical column names (field ids in metadata).
        case_sensitive: Match names exactly (``spark.sql.caseSensitive``).
        deleted: Sorted row indexes a deletion vector marks deleted, or None.

    Raises:
        ReadSchemaMismatch: Ambiguous names, or ids expected but absent from the file.
    """
    from pyspark.sql.pandas.types import to_arrow_type

    parquet = pq.ParquetFile(source, coerce_int96_timestamp_unit="us")
    file_schema = parquet.schema_arrow
    fields = list(read_schema.fields)
    if _wants_ids(fields) and not _has_ids(list(file_schema)):
        raise ReadSchemaMismatch(
            "the read schema expects Parquet field ids (column mapping id mode), "
            "but the file has none"
        )
    matches = [_match(f, list(file_schema), case_sensitive) for f in fields]
    targets = [to_arrow_type(f.dataType, timezone="UTC") for f in fields]
    columns = sorted({file_schema[i].name for i in matches if i is not None})
    start = 0
    for batch in _batches(parquet, columns):
        n = batch.num_rows
        arrays = [
            pa.nulls(n, type=t)
            if i is None
            else _conform_type(batch.column(file_schema[i].name), f.dataType, t, case_sensitive)
            for f, t, i in zip(fields, targets, matches, strict=True)
        ]
        conformed = pa.RecordBatch.from_arrays(
            arrays,
            schema=pa.schema([pa.field(f.name, t) for f, t in zip(fields, targets, strict=True)]),
        )
        if deleted is not None and len(deleted):
            conformed = _drop_rows(conformed, deleted, start)
        start += n
        yield conformed, conformed.num_rows


def count_rows(source: Any) -> int:
    """The file's row count from its footer (no data read)."""
    return int(pq.ParquetFile(source).metadata.num_rows)


def _batches(parquet: pq.ParquetFile, columns: list[str]) -> Iterator[pa.RecordBatch]:
    if columns:
        yield from parquet.iter_batches(batch_size=BATCH_ROWS, columns=columns, use_threads=False)
        return
    # Only partition columns: no Parquet column is read, but every row still counts.
    remaining = parquet.metadata.num_rows
    while remaining > 0:
        n = min(remaining, BATCH_ROWS)
        yield pa.record_batch({"_": pa.nulls(n)}).drop_columns(["_"])
        remaining -= n


def _drop_rows(batch: pa.RecordBatch, deleted: np.ndarray, start: int) -> pa.RecordBatch:
    n = batch.num_rows
    lo, hi = np.searchsorted(deleted, [start, start + n])
    if lo == hi:
        return batch
    keep = np.ones(n, dtype=bool)
    keep[deleted[lo:hi] - start] = False
    return batch.filter(pa.array(keep))


def _field_id(spark_field: Any) -> int | None:
    value = (spark_field.metadata or {}).get("parquet.field.id")
    return None if value is None else int(value)


def _arrow_id(field: pa.Field) -> int | None:
    value = (field.metadata or {}).get(_FIELD_ID)
    return None if value is None else int(value)


def _wants_ids(fields: Sequence[Any]) -> bool:
    from pyspark.sql.types import ArrayType, MapType, StructType

    def walk(data_type: Any) -> bool:
        if isinstance(data_type, StructType):
            return _wants_ids(data_type.fields)
        if isinstance(data_type, ArrayType):
            return walk(data_type.elementType)
        if isinstance(data_type, MapType):
            return walk(data_type.keyType) or walk(data_type.valueType)
        return False

    return any(_field_id(f) is not None or walk(f.dataType) for f in fields)


def _has_ids(fields: Sequence[pa.Field]) -> bool:
    def walk(data_type: pa.DataType) -> bool:
        if pa.types.is_struct(data_type):
            return _has_ids([data_type.field(i) for i in range(data_type.num_fields)])
        if pa.types.is_map(data_type):
            return _has_ids([data_type.key_field, data_type.item_field])
        if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
            return _has_ids([data_type.value_field])
        return False

    return any(_arrow_id(f) is not None or walk(f.type) for f in fields)


def _match(spark_field: Any, candidates: Sequence[pa.Field], case_sensitive: bool) -> int | None:
    """The index of the file field Spark's reader would read for ``spark_field``, or None."""
    wanted_id = _field_id(spark_field)
    if wanted_id is not None:
        found = [i for i, f in enumerate(candidates) if _arrow_id(f) == wanted_id]
    elif case_sensitive:
        found = [i for i, f in enumerate(candidates) if f.name == spark_field.name]
    else:
        found = [i for i, f in enumerate(candidates) if f.name.lower() == spark_field.name.lower()]
    if len(found) > 1:
        raise ReadSchemaMismatch(
            f"the column {spark_field.name} matches {len(found)} columns of the file"
        )
    return found[0] if found else None


def _conform_type(array: pa.Array, spark_type: Any, target: pa.DataType, cs: bool) -> pa.Array:
    """``array`` as exactly ``target``; nested fields matched as Spark's reader does."""
    from pyspark.sql.types import ArrayType, MapType, StructType

    if array.type.equals(target):
        return array
    mask = array.is_null() if array.null_count else None
    if pa.types.is_struct(target) and pa.types.is_struct(array.type):
        names = [target.field(i).name for i in range(target.num_fields)]
        spark_fields: list[Any] = (
            list(spark_type.fields)
            if isinstance(spark_type, StructType)
            else [_NamedOnly(name) for name in names]  # variant: value and metadata
        )
        sources = [array.type.field(i) for i in range(array.type.num_fields)]
        children = []
        for spark_field, index in zip(spark_fields, range(target.num_fields), strict=True):
            found = _match(spark_field, sources, cs)
            child_target = target.field(index).type
            children.append(
                pa.nulls(len(array), type=child_target)
                if found is None
                else _conform_type(array.field(found), spark_field.dataType, child_target, cs)
            )
        return pa.StructArray.from_arrays(
            children, fields=[target.field(i) for i in range(target.num_fields)], mask=mask
        )
    if pa.types.is_list(target) and (
        pa.types.is_list(array.type) or pa.types.is_large_list(array.type)
    ):
        values = _conform_type(array.values, spark_type.elementType, target.value_type, cs)
        offsets = array.offsets.cast(pa.int32())
        return pa.ListArray.from_arrays(offsets, values, type=target, mask=mask)
    if pa.types.is_map(target) and pa.types.is_map(array.type) and isinstance(spark_type, MapType):
        keys = _conform_type(array.keys, spark_type.keyType, target.key_type, cs)
        items = _conform_type(array.items, spark_type.valueType, target.item_type, cs)
        return pa.MapArray.from_arrays(array.offsets, keys, items, type=target, mask=mask)
    if isinstance(spark_type, (StructType, ArrayType, MapType)):
        raise ReadSchemaMismatch(f"the file stores {array.type} where the table has {spark_type}")
    return array.cast(target, safe=True)


class _NamedOnly:
    """A struct member matched by name only (variant's ``value`` and ``metadata``)."""

    def __init__(self, name: str) -> None:
        from pyspark.sql.types import BinaryType

        self.name = name
        self.metadata: dict[str, Any] = {}
        self.dataType = BinaryType()
