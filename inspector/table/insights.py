"""Layout insights from the log alone: file sizes, partitions, small files, stats and DVs.

Computed column-wise from a snapshot's ``files_table`` (one group-by over the partition
values): Python runs once per partition or size bucket, never once per file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inspector.delta import properties
from inspector.delta.jsonvalue import camel_json
from inspector.delta.schema import iter_columns
from inspector.delta.text import partition_label
from inspector.log import arrays, columnar
from inspector.log.commit import known_sum
from inspector.log.snapshot import Snapshot
from inspector.table.history_entry import HistoryEntry

_MB = 2**20
#: Upper edges of the file-size histogram's buckets (the last bucket is open).
BUCKET_EDGES = (_MB, 8 * _MB, 32 * _MB, 64 * _MB, 128 * _MB, 256 * _MB, 1024 * _MB)


@dataclass(frozen=True, kw_only=True)
class SizeBucket:
    """One bar of the file-size histogram: files with ``low <= size < high``."""

    low: int
    high: int | None
    files: int
    bytes: int

    @property
    def label(self) -> str:
        """``8–32 MB``, ``< 1 MB`` or ``≥ 1024 MB``."""
        if self.low == 0:
            return f"< {self.high // _MB if self.high else 0} MB"
        if self.high is None:
            return f"≥ {self.low // _MB} MB"
        return f"{self.low // _MB}–{self.high // _MB} MB"

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, **camel_json(self, "low", "high", "files", "bytes")}


@dataclass(frozen=True, kw_only=True)
class PartitionInsight:
    """One partition's files, rows, small files, OPTIMIZE estimate and deletion-vector load.

    Attributes:
        records: Records in the files (``numRecords``), or None when a file lacks stats.
        compact_files: Small files an OPTIMIZE would rewrite (none when only one is small).
        files_after: Files those would become: ``ceil(compact_bytes / target)``.
        rows: ``records`` minus the rows deletion vectors delete: the rows a reader sees.
    """

    values: dict[str, str | None]
    files: int
    bytes: int
    records: int | None
    small_files: int
    small_bytes: int
    compact_files: int
    compact_bytes: int
    files_after: int
    files_with_dv: int
    dv_deleted_rows: int
    rows: int | None

    @property
    def label(self) -> str:
        """``date=2024-01-01/region=eu`` (``(unpartitioned)`` for no values)."""
        return partition_label(self.values, unpartitioned="(unpartitioned)")

    def to_json(self) -> dict[str, Any]:
        return {
            "partition": self.label,
            **camel_json(self, "values", "files", "bytes", "rows", "records"),
            **camel_json(self, "small_files", "small_bytes"),
            **camel_json(self, "compact_files", "compact_bytes"),
            "filesAfterOptimize": self.files_after,
            "filesWithDeletionVectors": self.files_with_dv,
            **camel_json(self, "dv_deleted_rows"),
        }


@dataclass(frozen=True, kw_only=True)
class StatsCoverage:
    """How many files carry statistics, and for which columns (by logical name; the
    physical names a column-mapped table's statistics use are in ``physical_names``)."""

    files_with_stats: int
    files: int
    policy: str
    expected_columns: tuple[str, ...]
    observed_columns: tuple[str, ...]
    physical_names: Mapping[str, str] = field(default_factory=dict)

    @property
    def share(self) -> float:
        """Fraction of files with statistics (1.0 for an empty table)."""
        return self.files_with_stats / self.files if self.files else 1.0

    def to_json(self) -> dict[str, Any]:
        return {
            **camel_json(self, "files_with_stats", "files", "share", "policy"),
            "expectedColumns": list(self.expected_columns),
            "observedColumns": list(self.observed_columns),
            "physicalNames": dict(self.physical_names),
        }


@dataclass(frozen=True, kw_only=True)
class LayoutInsights:
    """The layout of one version (see the module docstring)."""

    table_root: str
    version: int
    target_file_size: int
    target_from_table: bool
    buckets: tuple[SizeBucket, ...]
    partitions: tuple[PartitionInsight, ...]
    stats: StatsCoverage
    timeline: tuple[tuple[int, int], ...]
    problems: tuple[str, ...] = ()

    def total(self, name: str) -> int:
        """The sum of one integer field over partitions (``files``, ``small_files``, ...)."""
        return sum(int(getattr(p, name) or 0) for p in self.partitions)

    @property
    def rows(self) -> int | None:
        """The version's rows, deletion vectors subtracted (the Overview's ``numRecords``);
        None when any file lacks stats."""
        return known_sum([p.rows for p in self.partitions])

    @property
    def records(self) -> int | None:
        """Records in the files (``numRecords``, deleted rows included); None without stats."""
        return known_sum([p.records for p in self.partitions])

    @property
    def skew(self) -> float | None:
        """Largest partition's bytes over the median partition's (None without partitions)."""
        sizes = sorted(p.bytes for p in self.partitions)
        if not sizes:
            return None
        median = float(np.median(sizes))
        return sizes[-1] / median if median else None

    def to_json(self) -> dict[str, Any]:
        largest = max(self.partitions, key=lambda p: p.bytes, default=None)
        return {
            "table": self.table_root,
            "version": self.version,
            "targetFileSize": self.target_file_size,
            "targetFileSizeFromTable": self.target_from_table,
            "files": self.total("files"),
            "bytes": self.total("bytes"),
            **camel_json(self, "rows", "records"),
            "smallFiles": self.total("small_files"),
            "smallBytes": self.total("small_bytes"),
            "optimize": {
                "compactFiles": self.total("compact_files"),
                "compactBytes": self.total("compact_bytes"),
                "filesAfter": self.total("files_after"),
            },
            "dvDeletedRows": self.total("dv_deleted_rows"),
            "partitionCount": len(self.partitions),
            "skew": self.skew,
            "largestPartition": None if largest is None else largest.label,
            "sizeHistogram": [b.to_json() for b in self.buckets],
            "partitions": [p.to_json() for p in self.partitions],
            "stats": self.stats.to_json(),
            "filesOverVersions": [{"version": v, "files": n} for v, n in self.timeline],
            "problems": list(self.problems),
        }


def layout_insights(snapshot: Snapshot, history: Iterable[HistoryEntry] = ()) -> LayoutInsights:
    """The layout insights of a snapshot; the history entries' (any order) added and
    removed file counts give the files-per-version timeline, anchored at ``snapshot``."""
    config = snapshot.metadata.configuration
    target = properties.target_file_size(config)
    size = snapshot.files_table.column("size").combine_chunks().fill_null(0)
    return LayoutInsights(
        table_root=snapshot.table_root,
        version=snapshot.version,
        target_file_size=target.bytes,
        target_from_table=target.from_table,
        buckets=_histogram(arrays.to_numpy(size)),
        partitions=_partitions(snapshot, size, target.bytes),
        stats=_stats(snapshot),
        timeline=_timeline(snapshot, history),
        problems=tuple(p for p in (target.problem,) if p),
    )


def _histogram(sizes: np.ndarray) -> tuple[SizeBucket, ...]:
    which = np.searchsorted(np.array(BUCKET_EDGES), sizes, side="right")
    counts = np.bincount(which, minlength=len(BUCKET_EDGES) + 1)
    totals = np.bincount(which, weights=sizes, minlength=len(BUCKET_EDGES) + 1)
    lows = (0, *BUCKET_EDGES)
    highs: tuple[int | None, ...] = (*BUCKET_EDGES, None)
    return tuple(
        SizeBucket(low=lo, high=hi, files=int(n), bytes=int(b))
        for lo, hi, n, b in zip(lows, highs, counts, totals, strict=True)
    )


def _partition_table(snapshot: Snapshot, size: pa.Array, target: int) -> tuple[pa.Table, list[str]]:
    """One row per file: partition value columns and the figures to aggregate."""
    files = snapshot.files_table
    small = pc.less(size, target)
    dv = files.column("deletionVector").combine_chunks()
    card = dv.field("cardinality") if len(dv) else arrays.numbers([])
    columns: dict[str, pa.Array] = {
        "size": size,
        "rows": columnar.num_records(files.column("stats")),
        "small": small.cast(pa.int64()),
        "small_bytes": pc.if_else(small, size, 0),
        "dv": pc.is_valid(card).cast(pa.int64()),
        "dv_rows": pc.fill_null(card, 0),
    }
    keys = [f"p{i}" for i in range(len(snapshot.partition_columns))]
    values = files.column("partitionValues").combine_chunks()
    for key, name in zip(keys, snapshot.partition_columns, strict=True):
        field = snapshot.schema.get(name)  # partitionValues use physical names (column mapping)
        physical = field.physical_name if field is not None else name
        columns[key] = pc.map_lookup(values, physical, "first") if len(values) else arrays.texts([])
    if not keys:
        keys, columns["p"] = ["p"], arrays.repeated("", len(size))
    return pa.table(columns), keys


def _partitions(snapshot: Snapshot, size: pa.Array, target: int) -> tuple[PartitionInsight, ...]:
    table, keys = _partition_table(snapshot, size, target)
    sums = [(c, "sum") for c in ("size", "rows", "small", "small_bytes", "dv", "dv_rows")]
    grouped = table.group_by(keys).aggregate([("size", "count"), ("rows", "count"), *sums])
    found = []
    names = snapshot.partition_columns
    for row in grouped.to_pylist():
        values = {n: row[k] for n, k in zip(names, keys, strict=False)} if names else {}
        found.append(_insight(row, values, target))
    return tuple(sorted(found, key=lambda p: (-p.bytes, p.label)))


def _insight(row: dict[str, Any], values: dict[str, Any], target: int) -> PartitionInsight:
    count, small, small_bytes = row["size_count"], row["small_sum"], row["small_bytes_sum"]
    records = row["rows_sum"] or 0 if row["rows_count"] == count else None
    compact = small if small >= 2 else 0
    compact_bytes = small_bytes if compact else 0
    dv_rows = row["dv_rows_sum"] or 0
    return PartitionInsight(
        values=values,
        files=count,
        bytes=row["size_sum"] or 0,
        records=records,
        small_files=small,
        small_bytes=small_bytes,
        compact_files=compact,
        compact_bytes=compact_bytes,
        files_after=math.ceil(compact_bytes / target) if compact else 0,
        files_with_dv=row["dv_sum"] or 0,
        dv_deleted_rows=dv_rows,
        rows=None if records is None else records - dv_rows,
    )


def _stats(snapshot: Snapshot) -> StatsCoverage:
    stats = snapshot.files_table.column("stats").combine_chunks()
    with_stats = len(stats) - stats.null_count
    policy = properties.stats_columns_policy(snapshot.metadata.configuration)
    observed = _observed_columns(stats)
    logical = {".".join(c.physical_path): c.name for c in iter_columns(snapshot.schema)}
    return StatsCoverage(
        files_with_stats=with_stats,
        files=len(stats),
        policy=policy.describe(),
        expected_columns=tuple(
            ".".join(path)
            for path in policy.indexed_leaves(snapshot.schema, snapshot.partition_columns)
        ),
        observed_columns=tuple(logical.get(n, n) for n in observed),
        physical_names={logical[n]: n for n in observed if logical.get(n, n) != n},
    )


def _observed_columns(stats: pa.Array) -> tuple[str, ...]:
    """Columns with min/max or null counts in the first file that has statistics."""
    valid = pc.indices_nonzero(pc.is_valid(stats)) if len(stats) else arrays.numbers([])
    if not len(valid):
        return ()
    try:
        parsed = json.loads(stats[valid[0].as_py()].as_py())
    except ValueError:
        return ()
    names: list[str] = []
    for section in ("minValues", "maxValues", "nullCount"):
        _leaf_names(parsed.get(section) or {}, (), names)
    return tuple(dict.fromkeys(names))


def _leaf_names(node: dict[str, Any], path: tuple[str, ...], out: list[str]) -> None:
    for key, value in node.items():
        if isinstance(value, dict):
            _leaf_names(value, (*path, key), out)
        else:
            out.append(".".join((*path, key)))


def _timeline(snapshot: Snapshot, history: Iterable[HistoryEntry]) -> tuple[tuple[int, int], ...]:
    """Live files per version, from the history's added/removed counts, anchored at the snapshot."""
    deltas = {e.version: e.files.num_added_files - e.files.num_removed_files for e in history}
    counts = {snapshot.version: snapshot.num_files}
    running = snapshot.num_files
    for version in sorted(v for v in deltas if v > snapshot.version):
        running += deltas[version]
        counts[version] = running
    running = snapshot.num_files
    for version in sorted((v for v in deltas if v < snapshot.version), reverse=True):
        running -= deltas.get(version + 1, 0)
        counts[version] = max(running, 0)
    return tuple(sorted(counts.items()))
