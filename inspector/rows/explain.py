"""Which files a filtered read of a version reads: Delta's planner, and the log's phases.

The kept set is Delta's own (``inputFiles()`` of the filtered read); the counts around it
(the version's files, what partition pruning and statistics keep) come from the log
(:mod:`inspector.files.pruning`), whose kept set is never smaller than Delta's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from inspector.delta.jsonvalue import camel_json
from inspector.files.predicate import Unusable, describe
from inspector.files.pruning import Filters, prune
from inspector.log.deltalog import DeltaLog
from inspector.rows.delta_engine import read_snapshot
from inspector.rows.session import get_spark
from inspector.settings import Settings

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from inspector.log.snapshot import Snapshot

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:(//[^/]*)?")
#: The columns of the add actions a listed file shows.
_FILE_COLUMNS = ["path", "size", "partitionValues", "stats", "deletionVector"]

#: Spark's switch for Delta's data skipping (on by default; the report says when off).
SKIPPING_CONF = "spark.databricks.delta.stats.skipping"


@dataclass(frozen=True, kw_only=True)
class Tally:
    """A number of files and their bytes."""

    files: int
    bytes: int


@dataclass(frozen=True, kw_only=True)
class ReadFile:
    """One file a reader must read: its path (as the log has it), size and partition."""

    path: str
    size: int
    partition_values: dict[str, str | None]
    num_records: int | None
    deleted_rows: int | None  # the deletion vector's cardinality, None without one


@dataclass(frozen=True, kw_only=True)
class ColumnWithoutStats:
    """A data column the filter names, and how many of the version's files lack its bounds."""

    column: str
    files_without: int


@dataclass(frozen=True, kw_only=True)
class Explanation:
    """What a filtered read of a version reads, phase by phase."""

    version: int
    where: str
    total: Tally
    after_partitions: Tally
    after_stats: Tally
    read: Tally
    kept_by: str  # "delta": Delta's planner (inputFiles)
    partition_filters: tuple[str, ...]
    data_filters: tuple[str, ...]
    unjudged: tuple[Unusable, ...]  # parts of the filter that skip no file, and why
    columns_without_stats: tuple[ColumnWithoutStats, ...]
    with_deletion_vectors: int
    skipping_enabled: bool
    log_keeps_fewer: tuple[str, ...]  # files Delta reads that the log would skip (a bug)
    #: The files Delta reads, sorted by path (add actions' ``_FILE_COLUMNS``; see :meth:`page`).
    files: pa.Table
    #: Physical to logical column names, for the partition values of :meth:`page`.
    logical_names: Mapping[str, str]

    def page(self, offset: int, limit: int) -> tuple[ReadFile, ...]:
        """The files read from ``offset`` (at most ``limit``), as records: only these."""
        offset = max(offset, 0)
        return _read_files(self.files.slice(offset, max(limit, 0)), self.logical_names)

    def to_json(self) -> dict[str, Any]:
        """The JSON contract of ``explain --json`` (docs/json-contracts.md)."""
        out = camel_json(
            self,
            "version",
            "where",
            "kept_by",
            "partition_filters",
            "data_filters",
            "with_deletion_vectors",
            "skipping_enabled",
        )
        tallies = camel_json(self, "total", "after_partitions", "after_stats", "read")
        out.update({name: camel_json(tally) for name, tally in tallies.items()})
        out["unjudged"] = [camel_json(u) for u in self.unjudged]
        out["columnsWithoutStats"] = [camel_json(c) for c in self.columns_without_stats]
        out["logKeepsFewer"] = list(self.log_keeps_fewer)
        out["files"] = [camel_json(f) for f in self.page(0, self.files.num_rows)]
        return out


def explain_read(
    log: DeltaLog,
    version: int,
    where: str,
    *,
    settings: Settings,
    spark: SparkSession | None = None,
) -> Explanation:
    """Which files Delta reads for ``WHERE where`` at ``version``, and what each phase kept.

    Raises:
        InvalidInput, UnsupportedFeature, SparkUnavailable.
    """
    from inspector.rows.predicate import filtered, log_filters

    snapshot = log.snapshot(version)
    spark = spark or get_spark(settings)
    # Delta's planner opens no file: none is checked first.
    df = filtered(read_snapshot(snapshot, spark=spark, check_workers=None), where)
    filters = log_filters(df, snapshot)
    files = snapshot.files_table
    masks = prune(files, snapshot.schema, filters)
    delta_kept = _delta_kept(df, snapshot, files)
    skipping = (spark.conf.get(SKIPPING_CONF, "true") or "true").lower() == "true"
    chosen = files.filter(delta_kept)
    return Explanation(
        version=version,
        where=where.strip(),
        total=_tally(files),
        after_partitions=_tally(files.filter(masks.partitions)),
        after_stats=_tally(files.filter(masks.stats)),
        read=_tally(chosen),
        kept_by="delta",
        partition_filters=tuple(describe(p) for p in filters.partition),
        data_filters=tuple(describe(p) for p in filters.data),
        unjudged=filters.unusable,
        columns_without_stats=_without_stats(files, snapshot, filters),
        with_deletion_vectors=int(
            pc.sum(pc.is_valid(chosen.column("deletionVector"))).as_py() or 0
        ),
        skipping_enabled=skipping,
        log_keeps_fewer=tuple(
            files.filter(pc.and_(delta_kept, pc.invert(masks.stats))).column("path").to_pylist()
        ),
        files=chosen.select(_FILE_COLUMNS).sort_by("path"),
        logical_names={f.physical_name: f.name for f in snapshot.schema.fields},
    )


def _delta_kept(df: DataFrame, snapshot: Snapshot, files: pa.Table) -> pa.Array:
    """Which rows of ``files`` Delta's planner reads, as a mask: Spark's paths (unescaped)
    against the log's canonical paths (``key_path``)."""
    read = pa.array(
        sorted({relative_path(p, snapshot.table_root) for p in df.inputFiles()}), pa.string()
    )
    keys = files.column("key_path")
    paths = keys.combine_chunks() if files.num_rows else pa.array([], pa.string())
    return pc.fill_null(pc.is_in(paths, value_set=read), False)


def relative_path(path: str, root: str) -> str:
    """A file's path as Spark gives it (unescaped), as the log's canonical path names it:
    relative to the table root, compared past scheme and authority (Spark's ``file:/`` or
    ``s3a://`` where the table was a path or ``s3://``); outside the root without ``file:``."""
    base = _past_authority(root).rstrip("/") + "/"
    inside = _past_authority(path)
    return inside[len(base) :] if inside.startswith(base) else path.removeprefix("file:")


def _past_authority(uri: str) -> str:
    """``uri`` without its ``scheme:`` or ``scheme://authority`` (a local path as it is)."""
    found = _SCHEME.match(uri)
    return uri[found.end() :] if found else uri


def _tally(files: pa.Table) -> Tally:
    return Tally(files=files.num_rows, bytes=int(pc.sum(files.column("size")).as_py() or 0))


def _without_stats(
    files: pa.Table, snapshot: Snapshot, filters: Filters
) -> tuple[ColumnWithoutStats, ...]:
    from inspector.files.predicate import columns_of

    names = sorted({c for p in filters.data for c in columns_of(p)})
    out = []
    stats = files.column("stats")
    for name in names:
        field = snapshot.schema.get(name)
        if field is None:
            continue
        key = f'"{field.physical_name}":'
        has = pc.match_substring(pc.fill_null(stats, ""), key)
        missing = int(pc.sum(pc.invert(has)).as_py() or 0) if files.num_rows else 0
        if missing:
            out.append(ColumnWithoutStats(column=name, files_without=missing))
    return tuple(out)


def _read_files(files: pa.Table, logical: Mapping[str, str]) -> tuple[ReadFile, ...]:
    """A page of files read as records (partition values under their logical names)."""
    from inspector.log import columnar

    counts = columnar.num_records(files.column("stats")).to_pylist()
    return tuple(
        ReadFile(
            path=f["path"],
            size=f["size"],
            partition_values={logical.get(k, k): v for k, v in f["partitionValues"] or []},
            num_records=count,
            deleted_rows=f["deletionVector"]["cardinality"] if f["deletionVector"] else None,
        )
        for f, count in zip(files.to_pylist(), counts, strict=True)
    )
