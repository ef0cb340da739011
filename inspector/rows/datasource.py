"""Spark reads a snapshot's files through our storage layer: a Python data source.

Used when Spark cannot read the files itself (object storage without Hadoop's connector
for the scheme). The driver plans exactly what the native path in
:mod:`inspector.rows.reader` plans: the snapshot's add actions, their typed partition
values (parsed by the same :func:`~inspector.rows.reader.partition_value`) and their
deletion vectors (read and checked on the driver, shipped as serialized bitmaps). The
executors then read each Parquet file with pyarrow (:mod:`inspector.rows.parquet_conform`),
conformed to the same physical read schema Spark's reader would use, drop the deleted
rows and append the partition values. The reader's projection to logical names is shared
with the native path, so both give the same rows.

One input partition holds a group of files (about ``spark.sql.files.maxPartitionBytes``).
The scan's description (paths, storage options, bitmaps) travels inside the data source
class, never in reader options, so credentials never appear in a plan or the Spark UI.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from inspector.delta.errors import InspectorError
from inspector.rows.parquet_conform import ReadSchemaMismatch, count_rows, read_conformed

#: Executors' failures start with this, so the driver can name the file in its message.
READ_FAILED = "Delta Inspector could not read"
ROWS_COLUMN = "__delta_inspector_rows"
_OPEN_COST = 4 * 1024 * 1024  # Spark's spark.sql.files.openCostInBytes
_MAX_GROUP = 128 * 1024 * 1024  # Spark's spark.sql.files.maxPartitionBytes
_registered: set[tuple[str, str]] = set()
_lock = threading.Lock()


@dataclass(frozen=True, kw_only=True)
class FileTask:
    """One data file to read: where, its size, typed partition values, deleted rows."""

    path: str
    size: int
    partition_values: tuple[Any, ...] = ()
    deleted: bytes | None = None  # a serialized BitMap64 of row indexes


@dataclass(frozen=True, kw_only=True)
class ScanSpec:
    """What the executors need to read a list of files (picklable, holds credentials)."""

    location: str
    storage_options: Mapping[str, str] = field(default_factory=dict, repr=False)
    read_schema_json: str
    partition_schema_json: str
    case_sensitive: bool = False
    count_only: bool = False
    groups: tuple[tuple[FileTask, ...], ...] = ()

    def output_schema(self) -> Any:
        """The source's Spark schema: physical data columns, then partition columns."""
        from pyspark.sql.types import LongType, StructField, StructType

        if self.count_only:
            return StructType([StructField(ROWS_COLUMN, LongType(), True)])
        data = StructType.fromJson(_json(self.read_schema_json))
        parts = StructType.fromJson(_json(self.partition_schema_json))
        return StructType(data.fields + parts.fields)


class SnapshotSource(DataSource):
    """A data source over one :class:`ScanSpec` (subclassed per scan by :func:`load`)."""

    spec: ClassVar[ScanSpec]
    source_name: ClassVar[str] = "delta_inspector_snapshot"

    @classmethod
    def name(cls) -> str:
        return cls.source_name

    def schema(self) -> Any:
        return self.spec.output_schema()

    def reader(self, schema: Any) -> DataSourceReader:
        return SnapshotReader(self.spec)


class SnapshotReader(DataSourceReader):
    """Reads one group of files per input partition, on an executor."""

    def __init__(self, spec: ScanSpec) -> None:
        self.spec = spec

    def partitions(self) -> list[InputPartition]:
        return [InputPartition(group) for group in self.spec.groups]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        spec = self.spec
        schema = spec.output_schema()
        if spec.count_only:
            counts = [_count(spec, task) for task in partition.value]
            yield pa.RecordBatch.from_arrays(
                [pa.array(counts, type=pa.int64())], names=[ROWS_COLUMN]
            )
            return
        from pyspark.sql.types import StructType

        data = StructType.fromJson(_json(spec.read_schema_json))
        parts = StructType.fromJson(_json(spec.partition_schema_json))
        for task in partition.value:
            yield from _read_task(spec, task, data, parts, schema)


def load(spark: Any, spec: ScanSpec) -> Any:
    """A DataFrame over ``spec``'s files, read on the executors by :class:`SnapshotSource`.

    The source is registered once per distinct scan in this session (named by a digest
    of the scan), so repeated reads of a version reuse it.
    """
    digest = hashlib.sha256(pickle.dumps(spec)).hexdigest()[:20]
    name = f"delta_inspector_snapshot_{digest}"
    key = (str(id(spark)), name)
    with _lock:
        if key not in _registered:
            source = type(
                f"SnapshotSource_{digest}", (SnapshotSource,), {"spec": spec, "source_name": name}
            )
            spark.dataSource.register(source)
            _registered.add(key)
    return spark.read.format(name).load()


def group_tasks(tasks: Sequence[FileTask], parallelism: int) -> tuple[tuple[FileTask, ...], ...]:
    """Files packed into input partitions as Spark packs file splits.

    The target size is Spark's: ``min(maxPartitionBytes, max(openCost, total / parallelism))``,
    each file costing its size plus the open cost.
    """
    if not tasks:
        return ()
    total = sum(t.size + _OPEN_COST for t in tasks)
    target = min(_MAX_GROUP, max(_OPEN_COST, total // max(parallelism, 1)))
    groups: list[list[FileTask]] = [[]]
    size = 0
    for task in sorted(tasks, key=lambda t: -t.size):
        if groups[-1] and size + task.size + _OPEN_COST > target:
            groups.append([])
            size = 0
        groups[-1].append(task)
        size += task.size + _OPEN_COST
    return tuple(tuple(g) for g in groups)


def deleted_bytes(bitmap: Any) -> bytes | None:
    """A deletion vector's bitmap as shipped to the executors (None when it is empty)."""
    return bytes(bitmap.serialize()) if len(bitmap) else None


def _deleted_array(data: bytes | None) -> np.ndarray | None:
    if data is None:
        return None
    from pyroaring import BitMap64

    return np.asarray(list(BitMap64.deserialize(data)), dtype=np.int64)


def _source(spec: ScanSpec, task: FileTask) -> Any:
    """What pyarrow opens for a file: its local path, or ranged reads from the store."""
    storage = _storage(spec)
    local = storage.local_path(task.path)
    return local if local is not None else RangeFile(storage, task.path, task.size)


_stores: dict[str, Any] = {}


def _storage(spec: ScanSpec) -> Any:
    """The table's storage in this (executor) process, opened once per location."""
    from inspector.storage import open_storage

    key = hashlib.sha256(pickle.dumps((spec.location, sorted(spec.storage_options.items()))))
    with _lock:
        if key.hexdigest() not in _stores:
            storage, _ = open_storage(spec.location, options=spec.storage_options)
            _stores[key.hexdigest()] = storage
        return _stores[key.hexdigest()]


class RangeFile(io.RawIOBase):
    """A read-only file over a stored object: pyarrow reads the footer, then only the
    column chunks it needs, each as one ranged GET."""

    def __init__(self, storage: Any, path: str, size: int) -> None:
        super().__init__()
        self._storage, self._path, self._size, self._pos = storage, path, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(base + offset, 0)
        return self._pos

    def read(self, size: int | None = -1) -> bytes:
        end = self._size if size is None or size < 0 else min(self._pos + size, self._size)
        if end <= self._pos:
            return b""
        data = bytes(self._storage.read_range(self._path, self._pos, end))
        self._pos += len(data)
        return data

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _count(spec: ScanSpec, task: FileTask) -> int:
    deleted = _deleted_array(task.deleted)
    try:
        return count_rows(_source(spec, task)) - (0 if deleted is None else len(deleted))
    except (OSError, pa.ArrowException, InspectorError) as exc:
        raise RuntimeError(f"{READ_FAILED} {task.path}: {exc}") from None


def _read_task(
    spec: ScanSpec, task: FileTask, data: Any, parts: Any, schema: Any
) -> Iterable[pa.RecordBatch]:
    from pyspark.sql.pandas.types import to_arrow_schema, to_arrow_type

    arrow_schema = to_arrow_schema(schema, timezone="UTC")
    part_types = [to_arrow_type(f.dataType, timezone="UTC") for f in parts.fields]
    try:
        for batch, n in read_conformed(
            _source(spec, task),
            data,
            case_sensitive=spec.case_sensitive,
            deleted=_deleted_array(task.deleted),
        ):
            if n == 0:
                continue
            values = [
                pa.repeat(pa.scalar(v, type=t), n)
                for v, t in zip(task.partition_values, part_types, strict=True)
            ]
            yield pa.RecordBatch.from_arrays(batch.columns + values, schema=arrow_schema)
    except (OSError, pa.ArrowException, ReadSchemaMismatch, InspectorError) as exc:
        raise RuntimeError(f"{READ_FAILED} {task.path}: {exc}") from None


def _json(text: str) -> Any:
    import json

    return json.loads(text)
